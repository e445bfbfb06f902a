"""The checks of lesson 03's exercises."""

from __future__ import annotations

import re

import torch

from exercises.checking import (
    ROOT,
    Wrong,
    answer,
    book_value,
    compare,
    compiled_irs,
    guarded,
    jit,
    launch,
    ragged,
    rand,
)

RANGES = {"under 10 ms": 0.01, "10 to 100 ms": 0.1, "100 ms to 1 s": 1.0, "1 to 10 s": 10.0}


def first_call(module) -> str:
    guess = answer(module, "ANSWER", hint=1)
    if guess not in RANGES:
        raise Wrong(f"ANSWER is {guess!r}: write one of {', '.join(map(repr, RANGES))}", 1)
    seconds = book_value("h100", "compiler.call_time", cache="cold")
    want = min((upper, name) for name, upper in RANGES.items() if upper >= seconds)[1]
    if guess != want:
        raise Wrong(f"not {guess!r}: the first call on our H100 took {seconds:.3g} s", hint=2)
    return f"the cold first call on our H100 took {seconds:.3g} s: {want}"


ADD_SIGNATURE = {
    "x_ptr": "*fp32",
    "y_ptr": "*fp32",
    "out_ptr": "*fp32",
    "n_elements": "i32",
    "BLOCK": "constexpr",
}
WIDTH = {"v4": 128, "v2": 64}


def load_bits(ns: tuple[int, ...]) -> dict[int, set[int]]:
    """Bits per global load in the PTX of kernels/vector_add.py's add_kernel, per n."""
    pointers = ("x_ptr", "y_ptr", "out_ptr")
    ptxs = compiled_irs(
        ROOT / "kernels" / "vector_add.py",
        "add_kernel",
        ADD_SIGNATURE,
        {"BLOCK": 1024},
        {"num_warps": 4},
        divisible_sets=[pointers + (("n_elements",) if n % 16 == 0 else ()) for n in ns],
    )
    found = {}
    for n, ir in zip(ns, ptxs, strict=True):
        loads = re.findall(r"ld\.global(?:\.\w+)*?(?:\.(v[24]))?\.b32", ir["ptx"])
        found[n] = {WIDTH.get(v, 32) for v in loads}
    return found


def load_width(module) -> str:
    got = {n: answer(module, f"BITS_PER_LOAD_{n}", hint=1) for n in (4096, 4100)}
    for n, bits in got.items():
        if bits not in (32, 64, 128):
            raise Wrong(f"BITS_PER_LOAD_{n} is {bits!r}: write 32, 64 or 128", hint=1)
    emitted = load_bits(tuple(got))
    for n, bits in got.items():
        want = emitted[n]
        if want != {bits}:
            widths = " and ".join(f"{w}-bit" for w in sorted(want))
            raise Wrong(f"at n = {n} the compiler emitted {widths} loads, not {bits}-bit", 2)
    return "128-bit loads at n = 4096 and 32-bit at 4100, read from the PTX just compiled"


def constexpr_flag(module) -> str:
    kernel = jit(module, "activation_kernel")
    block = 128
    for relu in (True, False):
        for dtype in (torch.float32, torch.float16):
            n = ragged(200, 900)
            x = rand((n,), dtype, scale=3.0)
            out = guarded((n,), dtype)
            grid = ((n + block - 1) // block,)
            launch(kernel, grid, x, out.out, n, RELU=relu, BLOCK=block, hint=1)
            out.check(hint=2)
            x64 = x.double()
            want = torch.relu(x64) if relu else x64 * torch.sigmoid(x64)
            compare(out.out, want.to(dtype), f"out (RELU={relu})", hint=1)
    return "RELU=True and RELU=False, fp32 and fp16, ragged sizes"
