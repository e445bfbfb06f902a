"""Benchmark of the fused linear cross-entropy family (kernels/linear_cross_entropy.py):
lesson 15.

- ``linear_cross_entropy``: one training step of a language model's last layer, the loss
  ``cross_entropy(x @ weight.T, target)`` (mean) then its backward into x and weight, bf16,
  hidden 4096, the Llama-3 vocabulary (128,256), 4096, 8192 and 16384 tokens. For each
  implementation: the time of the step (forward + backward), timed head to head with the
  others, and the peak memory of one step beyond the inputs (the logits, whatever each
  keeps for its backward, and the two gradients). Implementations: the book's
  (``triton``), eager ``F.linear`` + ``F.cross_entropy`` (``eager``), ``torch.compile`` of
  the same (``compile``) and Liger-Kernel's ``LigerFusedLinearCrossEntropyLoss``
  (``liger``, when ``liger_kernel`` is importable). Each step is checked first against a
  float32 torch step, and the rows record how far each result lies from it.

Measure it with ``python3 scripts/bench/measure.py linear_cross_entropy`` (about a minute
of GPU time on an H100; quick mode runs 4096 tokens only).
"""

from __future__ import annotations

import functools
import importlib.metadata

import torch
import torch.nn.functional as F

from kernels import linear_cross_entropy as lce
from scripts.bench import benchlib

try:  # a peer, never a dependency: without it the benchmark runs without its rows
    from liger_kernel.transformers import LigerFusedLinearCrossEntropyLoss
except ImportError as exc:
    LigerFusedLinearCrossEntropyLoss = None
    LIGER_MISSING = f"{type(exc).__name__}: {exc}"


def liger_version() -> str:
    """The installed Liger-Kernel's version ("unknown" where its metadata is missing)."""
    try:
        return importlib.metadata.version("liger_kernel")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


DTYPE = torch.bfloat16
HIDDEN, VOCAB = 4096, 128256  # Llama-3 8B's last layer
TOKENS = benchlib.pick([4096, 8192, 16384], [4096])
IMPLS = ("triton", "eager", "compile", "liger")
# How far a step may lie from the float32 step and still count as a cross-entropy step:
# normwise, max |got - want| / max |want|. bf16 logits put about 2 zmax 2**-9 into the
# loss and the softmax (zmax about 5 here); grad_weight summed in bf16 chunk by chunk (the
# book's and Liger's) adds a rounding per chunk. A wrong formula is off by far more.
MAX_ERROR = 0.05


def eager_loss(x, weight, target):
    """The last layer as a reader writes it: the logits, then torch's cross-entropy."""
    return F.cross_entropy(F.linear(x, weight), target)


def implementations() -> dict:
    """impl -> f(x, weight, target) -> loss (mean), in the order they are timed."""
    impls = {
        "triton": lce.linear_cross_entropy,
        "eager": eager_loss,
        # Compiled once per shape (dynamic=False), as a training loop compiles its step.
        "compile": torch.compile(eager_loss, dynamic=False),
    }
    if LigerFusedLinearCrossEntropyLoss is not None:
        liger = LigerFusedLinearCrossEntropyLoss(ignore_index=-100, reduction="mean")

        def liger_loss(x, weight, target):
            out = liger(weight, x, target)  # (lin_weight, _input, target)
            return out[0] if isinstance(out, tuple) else out

        impls["liger"] = liger_loss
    return impls


def step(fn, x, weight, target):
    """One training step: the loss, its backward into x.grad and weight.grad; returns the
    loss and the two gradients, and leaves no .grad behind for the next call."""
    loss = fn(x, weight, target)
    loss.backward()
    grads = x.grad, weight.grad
    x.grad = weight.grad = None
    return loss.detach(), *grads


def expected_step(x, weight, target):
    """Loss, grad_x and grad_weight by torch autograd in float32 (bf16 inputs widened)."""
    x32 = x.detach().float().requires_grad_()
    w32 = weight.detach().float().requires_grad_()
    loss = F.cross_entropy(x32 @ w32.T, target)
    gx, gw = torch.autograd.grad(loss, (x32, w32))
    return loss.detach(), gx, gw


def errors(got, want) -> dict:
    """Normwise distance of each result from the float32 step: max |got - want| / max |want|."""
    names = ("loss_error", "grad_x_error", "grad_weight_error")
    return {
        name: float((g.float() - w).abs().max() / w.abs().max().clamp_min(1e-30))
        for name, g, w in zip(names, got, want, strict=True)
    }


def peak_bytes(call) -> int:
    """Bytes the CUDA allocator held at its peak during ``call`` beyond what it held
    before (the inputs): the working memory of one step, gradients included."""
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    call()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - before


def inputs(tokens: int, device="cuda"):
    """x ~ N(0, 1) and weight ~ N(0, 1 / H) (logits about N(0, 1)), both requiring grad;
    targets uniform over the vocabulary, none ignored."""
    x = torch.randn(tokens, HIDDEN, device=device).to(DTYPE).requires_grad_()
    w = (torch.randn(VOCAB, HIDDEN, device=device) * HIDDEN**-0.5).to(DTYPE).requires_grad_()
    target = torch.randint(0, VOCAB, (tokens,), device=device)
    return x, w, target


def run(ceilings: dict) -> list[dict]:
    if LigerFusedLinearCrossEntropyLoss is None:
        print(f"  Liger-Kernel rows skipped: liger_kernel is not importable ({LIGER_MISSING})")
    config = torch._dynamo.config  # one compile per token count: allow the recompiles
    limit = "recompile_limit" if hasattr(config, "recompile_limit") else "cache_size_limit"
    setattr(config, limit, max(getattr(config, limit), 64))
    benchlib.warm_up()
    rows = []
    for tokens in TOKENS:
        x, w, target = inputs(tokens)
        want = expected_step(x, w, target)
        base = {
            "dtype": "bfloat16", "tokens": tokens, "hidden": HIDDEN, "vocab": VOCAB,
            "flops": 6 * tokens * HIDDEN * VOCAB,  # three matmuls of 2 N H V each
        }  # fmt: skip
        found = []
        with benchlib.head_to_head():
            for impl, fn in implementations().items():
                row = {"impl": impl, **base}
                if impl == "triton":
                    row["chunk"] = lce.plan(tokens, VOCAB, HIDDEN, x.get_device())[0]
                if impl == "liger":
                    row["version"] = liger_version()
                call = functools.partial(step, fn, x, w, target)
                what = f"linear_cross_entropy {impl} tokens={tokens}"
                try:
                    row.update(errors(call(), want))
                    worst = max(row["loss_error"], row["grad_x_error"], row["grad_weight_error"])
                    if not worst <= MAX_ERROR:
                        raise AssertionError(f"{what}: {worst:.3g} from the float32 step")
                    row["peak_bytes"] = max(peak_bytes(call), 1)
                    row["time_s"] = benchlib.device_time(call, name=impl, among="step")
                except Exception as exc:  # a peer that cannot run is a row, not the end
                    if impl == "triton":
                        raise
                    print(f"  !! {what} failed: {type(exc).__name__}: {exc}"[:400])
                    row = {"impl": impl, **base, "failure": f"{type(exc).__name__}: {exc}"[:400]}
                    torch.cuda.empty_cache()
                found.append(row)
        rows += found
        print(
            f"  tokens={tokens}: "
            + ", ".join(
                f"{r['impl']} {r['time_s']['p50'] * 1e3:.1f} ms {r['peak_bytes'] / 2**20:.0f} MiB"
                if "time_s" in r
                else f"{r['impl']} FAILED"
                for r in found
            )
        )
        del x, w, target, want
        torch.cuda.empty_cache()
    return rows


CHUNK_TOKENS = 8192
CHUNKS = benchlib.pick([128, 256, 512, 1024, 2048, 4096], [256, 1024])


def part_calls(chunk: int, x, w, target) -> dict:
    """The four steps ``launch`` takes per chunk, on the first ``chunk`` rows, each callable
    alone: the logits matmul, the kernel, grad_x's matmul, grad_weight's update."""
    xd, wd = x.detach(), w.detach()
    (tokens, hidden), vocab = x.shape, w.shape[0]
    _, block, num_warps = lce.plan(tokens, vocab, hidden, x.get_device())
    z = torch.empty(chunk, vocab, dtype=x.dtype, device=x.device)
    x_chunk, losses = xd[:chunk], torch.empty(chunk, device=x.device)
    scale = torch.full((), 1.0 / tokens, device=x.device)
    grad_x = torch.empty(chunk, hidden, dtype=x.dtype, device=x.device)
    grad_w = torch.zeros_like(wd)

    def kernel():
        lce.cross_entropy_grad_kernel[(chunk,)](
            z, target, losses, scale, vocab, z.stride(0), -100,
            BLOCK=block, num_warps=num_warps,
        )  # fmt: skip

    return {
        "logits": lambda: torch.matmul(x_chunk, wd.T, out=z),
        "kernel": kernel,
        "grad_x": lambda: torch.matmul(z, wd, out=grad_x),
        "grad_weight": lambda: grad_w.addmm_(z.T, x_chunk),
    }


def run_chunks(ceilings: dict) -> list[dict]:
    benchlib.warm_up()
    x, w, target = inputs(CHUNK_TOKENS)
    want = expected_step(x, w, target)
    rows, calls = [], {}
    for chunk in CHUNKS:

        def call(chunk=chunk):
            return lce.launch(x.detach(), w.detach(), target, chunk=chunk)

        row = {"dtype": "bfloat16", "tokens": CHUNK_TOKENS, "hidden": HIDDEN, "vocab": VOCAB,
               "chunk": chunk, "chunks": -(-CHUNK_TOKENS // chunk),
               "flops": 6 * CHUNK_TOKENS * HIDDEN * VOCAB}  # fmt: skip
        row.update(errors(call(), want))
        if max(row["loss_error"], row["grad_x_error"], row["grad_weight_error"]) > MAX_ERROR:
            raise AssertionError(f"launch chunk={chunk}: {row} from the float32 step")
        row["peak_bytes"] = max(peak_bytes(call), 1)
        calls[chunk] = call
        rows.append(row)
    with benchlib.head_to_head():  # every chunk size in turn
        for row in rows:
            row["time_s"] = benchlib.device_time(calls[row["chunk"]], name=str(row["chunk"]))
    for row in rows:  # the parts of one chunk, each timed alone
        parts = part_calls(row["chunk"], x, w, target)
        for part, fn in parts.items():
            row[f"{part}_time_s"] = benchlib.device_time(fn)
        del parts
        torch.cuda.empty_cache()
        print(
            f"  chunk={row['chunk']}: {row['time_s']['p50'] * 1e3:.1f} ms, "
            f"{row['peak_bytes'] / 2**20:.0f} MiB; per chunk "
            + ", ".join(
                f"{p} {row[p + '_time_s']['p50'] * 1e6:.0f} us"
                for p in ("logits", "kernel", "grad_x", "grad_weight")
            )  # fmt: skip
        )
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "linear_cross_entropy",
        "One training step of the last layer, loss = cross_entropy(x @ weight.T, target) "
        "(mean, no target ignored) then backward into x and weight, bf16, hidden H = 4096, "
        "vocabulary V = 128256, N = 4096, 8192 and 16384 tokens; x ~ N(0, 1), weight ~ "
        "N(0, 1/H), targets uniform. impl: kernels/linear_cross_entropy.py's "
        "linear_cross_entropy (triton; chunk: the rows per logits chunk its plan chose), "
        "F.linear then F.cross_entropy on the bf16 logits (eager), torch.compile of the same "
        "(compile, dynamic=False), Liger-Kernel's LigerFusedLinearCrossEntropyLoss (liger, "
        "defaults; version: the installed release). Each step is checked first against the "
        "same step in float32 torch autograd: loss_error, grad_x_error, grad_weight_error "
        "are max |got - want| / max |want| (a step more than 0.05 off fails). time_s: "
        "device time of the step (the forward, the backward and dropping the gradients), "
        "all of one N timed head to head. peak_bytes: the most the CUDA allocator held "
        "during one step beyond what it held before (x, weight, target), gradients "
        "included. flops: 6 N H V, the three matmuls. A row with failure did not run.",
        run,
    ),
    benchlib.Benchmark(
        "linear_cross_entropy_chunks",
        "The book's fused linear cross-entropy by rows per logits chunk: "
        "kernels/linear_cross_entropy.py's launch (the loss, grad_x and grad_weight; no "
        "autograd) with chunk = 128 to 4096 rows, bf16, N = 8192 tokens, H = 4096, V = "
        "128256, inputs as in linear_cross_entropy. time_s: device time of one launch, all "
        "chunk sizes timed head to head; peak_bytes: the most the CUDA allocator held "
        "during one launch beyond the inputs, gradients included; chunks: how many chunks "
        "of that size N takes. The parts of ONE chunk, each timed alone (device time): "
        "logits_time_s (x_chunk @ weight.T into the logits buffer), kernel_time_s "
        "(cross_entropy_grad_kernel over the chunk's rows, at plan's tile and warps), "
        "grad_x_time_s (logits gradient @ weight) and grad_weight_time_s (grad_weight += "
        "gradient.T @ x_chunk). *_error: as in linear_cross_entropy.",
        run_chunks,
    ),
]
