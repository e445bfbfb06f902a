"""Checks of lesson 18's exercises: the peers are tensors of this process."""

import torch

from exercises.checking import Wrong, answer, compare, guarded, jit, launch, ragged, rand


def read_peers(module) -> str:
    kernel = jit(module, "sum_buffers_kernel")
    done = []
    for dtype, world in ((torch.float32, 2), (torch.bfloat16, 3)):
        n, block = ragged(300, 900), 128
        buffers = [rand((n,), dtype) for _ in range(world)]
        addresses = torch.tensor([b.data_ptr() for b in buffers], dtype=torch.int64)
        addresses = addresses.to(buffers[0].device)
        out = guarded((n,), dtype)
        launch(kernel, ((n + block - 1) // block,), addresses, out.out, n, WORLD=world, BLOCK=block)
        out.check()
        want = sum(b.double() for b in buffers)
        compare(out.out, want, "out", hint=1)
        done.append(f"{world} buffers of {n} {str(dtype).removeprefix('torch.')}")
    return ", ".join(done)


def bytes_per_gpu(module) -> str:
    guess = answer(module, "ANSWER", hint=1)
    if not isinstance(guess, (int, float)) or isinstance(guess, bool):
        raise Wrong(f"ANSWER is {guess!r}: write a number", hint=1)
    n = 8
    one_shot, two_shot = n - 1, 2 * (n - 1) / n
    want = one_shot / two_shot
    if abs(guess - want) > 0.05:
        raise Wrong(f"not {guess}: count the bytes each GPU receives in both, per tensor", hint=2)
    return f"{one_shot} tensors against {two_shot:.2f}: {want:.0f} times the bytes"
