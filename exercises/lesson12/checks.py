"""Checks of lesson 12's exercises: each launches the reader's kernel with its own grid."""

import math

import torch

from exercises.checking import (
    Wrong,
    book_value,
    compare,
    guarded,
    jit,
    launch,
    nearest_choice,
    rand,
)

BH, N, D, BLOCK = 2, 64, 16, 16
QK_SCALE = math.log2(math.e) / math.sqrt(D)  # scores in base 2: exp2(s) = exp(q.k / sqrt(d))


def _causal_probs(q, k):
    s = (q.double() @ k.double().transpose(-1, -2)) / math.sqrt(q.shape[-1])
    n = q.shape[-2]
    future = torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1)
    return torch.softmax(s.masked_fill(future, float("-inf")), dim=-1)


def causal(module) -> str:
    kernel = jit(module, "attn_fwd_kernel")
    q, k, v = (rand((BH, N, D), torch.float16) for _ in range(3))
    out = guarded((BH, N, D), torch.float16)
    launch(kernel, (N // BLOCK, BH), q, k, v, out.out, N, QK_SCALE,
           HEAD_DIM=D, BLOCK_M=BLOCK, BLOCK_N=BLOCK, hint=1)  # fmt: skip
    out.check()
    compare(out.out, _causal_probs(q, k) @ v.double(), "out", hint=1)
    # Does the first query block stop at its own keys? Later keys hold NaN in this run: a
    # program that reads them gets 0 * NaN = NaN in p @ v, even where p is masked to 0.
    k2, v2 = k.clone(), v.clone()
    k2[:, BLOCK:], v2[:, BLOCK:] = float("nan"), float("nan")
    first = guarded((BH, N, D), torch.float16)
    launch(kernel, (1, BH), q, k2, v2, first.out, N, QK_SCALE,
           HEAD_DIM=D, BLOCK_M=BLOCK, BLOCK_N=BLOCK, hint=2)  # fmt: skip
    if bool(first.out[:, :BLOCK].isnan().any()):
        raise Wrong(
            f"right values, but the program of queries 0 to {BLOCK - 1} also read keys "
            f"{BLOCK} to {N - 1}, which none of its queries can see (in this run they hold "
            "NaN, and its output became NaN): stop the loop after the last key block it needs",
            hint=2,
        )
    want = _causal_probs(q[:, :BLOCK], k[:, :BLOCK]) @ v[:, :BLOCK].double()
    compare(first.out[:, :BLOCK], want, "out[:, :16]", hint=2)
    return f"{BH} heads x {N} tokens x d = {D}, blocks of {BLOCK}, future key blocks skipped"


def causal_backward(module) -> str:
    kernel = jit(module, "attn_bwd_dv_kernel")
    q, k, do = (rand((BH, N, D), torch.float16) for _ in range(3))
    p = _causal_probs(q, k)
    # The forward's logsumexp, base 2, over the keys each query sees.
    s2 = (q.double() @ k.double().transpose(-1, -2)) * QK_SCALE
    future = torch.ones(N, N, dtype=torch.bool, device=q.device).triu(1)
    lse = torch.logsumexp(s2.masked_fill(future, float("-inf")) * math.log(2), -1) / math.log(2)
    dv = guarded((BH, N, D), torch.float32, "dV")
    launch(kernel, (N // BLOCK, BH), q, k, do, lse.float(), dv.out, N, QK_SCALE,
           HEAD_DIM=D, BLOCK_M=BLOCK, BLOCK_N=BLOCK, hint=1)  # fmt: skip
    dv.check()
    want = p.transpose(-1, -2) @ do.double()
    compare(dv.out, want, "dV", rtol=1e-2, atol=1e-2, hint=1)
    return f"dV of causal attention, {BH} heads x {N} tokens x d = {D}, blocks of {BLOCK}"


RATIOS = (2, 8, 32, 128, 512)


def memory(module) -> str:
    ratio = book_value("h100", "attention.memory_ratio", direction="training", n=16384)
    wrong = f"not {{guess}}: our H100 measured {ratio:.0f} times the memory, nearest to {{want}}"
    nearest_choice(module, RATIOS, ratio, wrong)
    return f"our H100 measured the naive step at {ratio:.0f} times the book's memory"
