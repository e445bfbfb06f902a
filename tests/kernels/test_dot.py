"""The tile matmul of lesson 05 (kernels/dot.py) in every input precision, against a
float64 reference of the same stored inputs; ragged shapes, strides, poisoned outputs,
and every refusal of the wrapper.

Tolerance, per element, with ``ref`` the float64 product of the inputs as stored and
``scale = |a| @ |b|``:

    |out - ref| <= 2 u |ref| + 2 (t + s) scale + 2**-24

u is the output's rounding unit (fp32 2**-24, fp16 2**-11, bf16 2**-8; the CPU
interpreter truncates to bf16, so 2**-7 there; fp8 results are bf16). t is what the
input rounding costs per product: TF32 keeps 10 of fp32's 23 mantissa bits, so 2**-9 for
a product of two rounded inputs; tf32x3 splits each input into two TF32 parts and drops
only the small x small product, about 2**-20, so 2**-19; ieee, fp16, bf16 and fp8 multiply
exactly (t = 0). s bounds the float32 sum of K terms, (K + 4) 2**-24, except for fp8 on a
GPU: Hopper's fp8 tensor cores sum in a narrower accumulator, and Triton does not promote
it by default (``max_num_imprecise_acc``), so there s is taken as ceil(K / 32) steps of
2**-13, one per 32-wide MMA step with about 14 bits kept. The CPU interpreter multiplies
float32 in float32 whatever ``input_precision`` says, so t = 0 there (a test below shows
it). A missing or doubled K step, or a wrong tile, is off by about the size of the values
and fails at every precision.
"""

import math

import numpy as np
import pytest
import torch

from kernels import dot as kd
from tests.support import (
    DEVICE,
    ON_GPU,
    LaunchSpy,
    assert_within,
    fresh_seed,
    output_unit,
    poisoned_like,
    rand,
    requires_gpu,
    requires_two_gpus,
)

CAPABILITY = torch.cuda.get_device_capability() if ON_GPU else None
HAS_FP8 = not ON_GPU or CAPABILITY >= kd.FP8_CAPABILITY  # the interpreter emulates fp8
requires_fp8 = pytest.mark.skipif(
    not HAS_FP8, reason=f"fp8 tensor cores need compute capability >= 8.9; this GPU is {CAPABILITY}"
)
INPUT_ROUNDING = {"tf32": 2**-9, "tf32x3": 2**-19}  # on a GPU; 0 for the other precisions


def precisions(*names):
    """pytest params for the named precisions; fp8 skipped (and saying why) on a GPU
    without fp8 tensor cores."""
    names = names or tuple(kd.PRECISIONS)
    return [pytest.param(n, marks=requires_fp8 if n == "fp8" else (), id=n) for n in names]


def operands(precision, shape_a, shape_b, device=DEVICE):
    dtype, _ = kd.PRECISIONS[precision]
    return rand(shape_a, dtype, device), rand(shape_b, dtype, device)


def run(precision, a, b, **kw):
    return kd.dot(a, b, input_precision=kd.PRECISIONS[precision][1], **kw)


def allowed_error(precision, a, b, ref):
    """The per-element bound stated at the top."""
    unit = output_unit(kd.OUT_DTYPE[a.dtype])
    k = a.shape[1]
    t = INPUT_ROUNDING.get(precision, 0.0) if ON_GPU else 0.0
    s = math.ceil(k / 32) * 2**-13 if precision == "fp8" and ON_GPU else (k + 4) * 2**-24
    scale = a.double().abs() @ b.double().abs()
    return 2 * unit * ref.abs() + 2 * (t + s) * scale + 2**-24


def assert_matches(out, precision, a, b, msg=""):
    ref = kd.reference(a.double(), b.double())  # float64 in, float64 out
    assert out.dtype == kd.OUT_DTYPE[a.dtype], msg
    assert_within(out, ref, allowed_error(precision, a, b, ref), f"{precision}: {msg}")


SMALL = dict(block_m=16, block_n=16, block_k=32)  # several tiles and K steps at test sizes


# ---- results --------------------------------------------------------------------------------


@pytest.mark.parametrize("precision", precisions())
@pytest.mark.parametrize(
    "m, n, k", [(33, 47, 65), (1, 1, 1), (16, 16, 32), (64, 32, 96), (31, 17, 130), (5, 100, 3)]
)
def test_matches_reference(m, n, k, precision):
    seed = fresh_seed()
    a, b = operands(precision, (m, k), (k, n))
    out = poisoned_like(torch.empty(m, n, dtype=kd.OUT_DTYPE[a.dtype], device=DEVICE))
    assert run(precision, a, b, out=out, **SMALL) is out
    assert_matches(out, precision, a, b, msg=f"seed={seed}")


@pytest.mark.parametrize("precision", precisions("ieee", "bf16"))
def test_launch_alone_matches_the_reference(precision):
    """The launch section a lesson prints works on its own, with its default tile too."""
    seed = fresh_seed()
    a, b = operands(precision, (70, 33), (33, 65))
    out = kd.launch(a, b, input_precision=kd.PRECISIONS[precision][1])
    assert_matches(out, precision, a, b, msg=f"seed={seed}")


@pytest.mark.parametrize("precision", precisions())
def test_reference_rounds_once_to_the_output_dtype(precision):
    a, b = operands(precision, (3, 5), (5, 4))
    ref = kd.reference(a, b)
    assert ref.dtype == kd.OUT_DTYPE[a.dtype]
    assert torch.equal(ref, (a.double() @ b.double()).to(ref.dtype))


def layout(kind, m, n, k, dtype, out_dtype):
    """(a, b, out) with the layout ``kind`` names; all read or written in place."""
    a, b, out = rand((m, k), dtype), rand((k, n), dtype), None
    if kind in ("a-transposed", "both-transposed"):
        a = rand((k, m), dtype).t()
    if kind in ("b-transposed", "both-transposed"):
        b = rand((n, k), dtype).t()  # nn.Linear's weight layout: x @ w.t()
    if kind == "sliced":
        a = rand((m + 3, 2 * k), dtype)[3:, ::2]
        b = rand((k, 3 * n), dtype)[:, 1::3]
    if kind == "out-transposed":
        out = torch.full((n, m), float("nan"), dtype=out_dtype, device=DEVICE).t()
    return a, b, out


LAYOUTS = ["a-transposed", "b-transposed", "both-transposed", "sliced", "out-transposed"]


@pytest.mark.parametrize("precision", precisions())
@pytest.mark.parametrize("kind", LAYOUTS)
def test_strided_operands_are_read_in_place(kind, precision):
    seed = fresh_seed()
    dtype = kd.PRECISIONS[precision][0]
    a, b, out = layout(kind, 37, 29, 70, dtype, kd.OUT_DTYPE[dtype])
    result = run(precision, a, b, out=out, **SMALL)
    assert out is None or result is out
    assert_matches(result, precision, a, b, msg=f"seed={seed} {kind}")


@pytest.mark.parametrize(
    "blocks",
    [(16, 16, 16, 1, 1), (32, 16, 64, 2, 2), (16, 64, 32, 4, 3), (64, 64, 128, 4, 2)],
    ids=lambda b: "x".join(map(str, b)),
)
def test_block_shapes(blocks):
    seed = fresh_seed()
    bm, bn, bk, warps, stages = blocks
    a, b = operands("fp16", (70, 150), (150, 45))
    out = kd.dot(a, b, block_m=bm, block_n=bn, block_k=bk, num_warps=warps, num_stages=stages)
    assert_matches(out, "fp16", a, b, msg=f"seed={seed}")


@pytest.mark.parametrize("precision", precisions())
def test_k_zero_gives_zeros(precision):
    a, b = operands(precision, (5, 0), (0, 7))
    out = run(precision, a, b)
    assert torch.equal(out, torch.zeros(5, 7, dtype=kd.OUT_DTYPE[a.dtype], device=DEVICE))


@pytest.mark.parametrize("m, n", [(0, 5), (4, 0), (0, 0)])
def test_empty_output_without_a_launch(m, n, monkeypatch):
    spy = LaunchSpy(kd.dot_kernel)
    monkeypatch.setattr(kd, "dot_kernel", spy)
    out = kd.dot(rand((m, 3)), rand((3, n)))
    assert out.shape == (m, n) and out.dtype == torch.float32
    given = torch.empty(m, n, device=DEVICE)
    assert kd.dot(rand((m, 3)), rand((3, n)), out=given) is given
    assert spy.devices == []


def test_reads_negated_views_as_their_values():
    seed = fresh_seed()
    a, b = rand((20, 30)), rand((30, 10))
    out = kd.dot(torch._neg_view(a), torch._neg_view(b), input_precision="ieee")
    assert_matches(out, "ieee", -a, -b, msg=f"seed={seed}")


def test_inputs_may_overlap_each_other():
    seed = fresh_seed()
    x = rand((24, 24))
    out = kd.dot(x[:, :20], x[4:, :], input_precision="ieee")
    assert_matches(out, "ieee", x[:, :20], x[4:, :], msg=f"seed={seed}")


# ---- precision: what the interpreter does, and what the GPU does ------------------------------


@pytest.mark.skipif(ON_GPU, reason="on a GPU the precisions differ: see the GPU tests below")
def test_the_interpreter_ignores_input_precision():
    """The CPU interpreter multiplies float32 tiles in float32 (NumPy) for every
    input_precision: TF32 rounding is not emulated, so CPU tests cannot see it."""
    a, b = operands("ieee", (40, 300), (300, 24))
    results = [kd.dot(a, b, input_precision=p, **SMALL) for p in kd.FP32_PRECISIONS]
    assert all(torch.equal(results[0], r) for r in results[1:])


def relative_error(out, a, b):
    """Root-mean-square error over root-mean-square |a| @ |b|: the typical error per unit
    of product size (an average, so one unlucky element cannot decide the test)."""
    ref = a.double() @ b.double()
    scale = a.double().abs() @ b.double().abs()
    return ((out.double() - ref).square().mean() / scale.square().mean()).sqrt().item()


@requires_gpu
def test_ieee_is_measurably_more_accurate_than_tf32():
    """Same fp32 inputs, K = 4096. TF32 rounds every input to 10 mantissa bits: random
    rounding errors of about 2**-11 over 4096 terms give about 1e-5 per unit of
    |a| @ |b|. ieee and tf32x3 leave only fp32 summation error, orders of magnitude less."""
    seed = fresh_seed()
    a, b = operands("ieee", (256, 4096), (4096, 256))
    err = {p: relative_error(kd.dot(a, b, input_precision=p), a, b) for p in kd.FP32_PRECISIONS}
    assert err["tf32"] > 2**-19, f"tf32 looks like fp32: were the tensor cores used? {err} {seed}"
    assert err["ieee"] * 64 < err["tf32"], f"seed={seed} {err}"
    assert err["tf32x3"] * 64 < err["tf32"], f"seed={seed} {err}"


@requires_gpu
@pytest.mark.parametrize("precision", precisions())
def test_default_blocks_at_realistic_ragged_sizes(precision):
    seed = fresh_seed()
    a, b = operands(precision, (1000, 1041), (1041, 1553))
    out = poisoned_like(torch.empty(1000, 1553, dtype=kd.OUT_DTYPE[a.dtype], device=DEVICE))
    run(precision, a, b, out=out)
    assert_matches(out, precision, a, b, msg=f"seed={seed}")


@requires_gpu
@pytest.mark.parametrize("precision", precisions("ieee", "tf32", "fp16", "bf16", "fp8"))
def test_benchmark_configs_with_a_weight_layout(precision):
    """Each block config the benchmark times, on b = w.t() as it times it, at a ragged size."""
    from scripts.bench.benchmarks import dot as bench

    seed = fresh_seed()
    a = operands(precision, (700, 1000), (1, 1))[0]
    b = operands(precision, (1500, 1000), (1, 1))[0].t()
    for cfg in bench.CONFIGS[precision]:
        out = poisoned_like(torch.empty(700, 1500, dtype=kd.OUT_DTYPE[a.dtype], device=DEVICE))
        run(precision, a, b, out=out, **bench.knobs(cfg))
        assert_matches(out, precision, a, b, msg=f"seed={seed} {cfg}")


# ---- autograd: no backward, so no silent wrong gradients ------------------------------------


@pytest.mark.parametrize("which", ["a", "b"])
def test_refuses_inputs_that_require_grad(which):
    args = {"a": rand((4, 3)), "b": rand((3, 5))}
    args[which].requires_grad_()
    with pytest.raises(ValueError, match=f"^dot: {which} requires grad"):
        kd.dot(args["a"], args["b"])


@pytest.mark.parametrize("mode", [torch.no_grad, torch.inference_mode])
def test_inputs_that_require_grad_are_fine_without_grad_mode(mode):
    seed = fresh_seed()
    a, b = rand((9, 7)).requires_grad_(), rand((7, 5)).requires_grad_()
    with mode():
        out = kd.dot(a, b, input_precision="ieee")
    assert not out.requires_grad
    assert_matches(out, "ieee", a.detach(), b.detach(), msg=f"seed={seed}")


def test_refuses_out_that_requires_grad():
    out = torch.zeros(4, 5, device=DEVICE, requires_grad=True)
    with pytest.raises(ValueError, match="^dot: out requires grad"):
        kd.dot(rand((4, 3)), rand((3, 5)), out=out)


def test_out_write_bumps_version_so_a_stale_saved_tensor_fails_at_backward():
    x = rand((4, 5))
    w = rand((4, 5)).requires_grad_()
    z = w * x  # saves x
    version = x._version
    kd.dot(rand((4, 3)), rand((3, 5)), out=x)
    assert x._version > version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


# ---- memory ---------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["a", "b"])
def test_refuses_out_overlapping_an_input(which):
    buf = rand(200)
    args = {"a": rand((4, 3)), "b": rand((3, 5))}
    shape = (4, 3) if which == "a" else (3, 5)
    args[which] = buf[10 : 10 + int(np.prod(shape))].view(shape)
    out = buf[12:32].view(4, 5)
    with pytest.raises(ValueError, match=f"^dot: out overlaps {which}"):
        kd.dot(args["a"], args["b"], out=out)


def test_catches_overlap_through_another_storage():
    b = rand((3, 5))
    alias = torch.from_dlpack(b)  # the same bytes, another storage object
    with pytest.raises(ValueError, match="^dot: out overlaps b"):
        kd.dot(rand((3, 3)), b, out=alias)


def test_refuses_out_whose_elements_share_memory():
    out = torch.empty(1, 5, device=DEVICE).expand(4, 5)
    with pytest.raises(ValueError, match="^dot: out has strides .* share memory"):
        kd.dot(rand((4, 3)), rand((3, 5)), out=out)


def test_refuses_a_negated_out():
    out = torch._neg_view(torch.empty(4, 5, device=DEVICE))
    with pytest.raises(ValueError, match="^dot: out is a view with the negative bit"):
        kd.dot(rand((4, 3)), rand((3, 5)), out=out)


# ---- devices --------------------------------------------------------------------------------


def test_rejects_cpu_tensors_when_not_interpreting(monkeypatch):
    monkeypatch.setattr(kd, "_INTERPRET", False)
    with pytest.raises(ValueError, match="^dot: a must be on a CUDA device"):
        kd.dot(torch.ones(2, 2), torch.ones(2, 2))


def test_refuses_fp8_where_the_gpu_has_no_fp8_tensor_cores(monkeypatch):
    """On a GPU older than 8.9 (an A100 is 8.0) the wrapper refuses fp8 by name;
    simulated here, so that the refusal is tested on every machine."""
    monkeypatch.setattr(kd, "fp8_supported", lambda device: False)
    a, b = operands("fp8", (4, 32), (32, 5))
    with pytest.raises(ValueError, match=r"^dot: a has dtype torch.float8_e4m3fn, .*>= 8.9"):
        kd.dot(a, b)
    kd.dot(*operands("bf16", (4, 32), (32, 5)))  # other dtypes are not affected


@requires_gpu
def test_fp8_support_matches_the_device_capability():
    assert kd.fp8_supported(torch.cuda.current_device()) == (CAPABILITY >= (8, 9))


@requires_two_gpus
def test_runs_on_a_gpu_that_is_not_the_current_one(monkeypatch):
    seed = fresh_seed()
    spy = LaunchSpy(kd.dot_kernel, expect_device=1)
    monkeypatch.setattr(kd, "dot_kernel", spy)
    with torch.cuda.device(0):
        a, b = rand((300, 200), device="cuda:1"), rand((200, 100), device="cuda:1")
        out = kd.dot(a, b, input_precision="ieee")
        assert torch.cuda.current_device() == 0
    assert spy.devices == [1] and out.device == a.device
    assert_matches(out, "ieee", a, b, msg=f"seed={seed}")


@requires_two_gpus
def test_refuses_tensors_on_two_gpus():
    a, b = rand((4, 3), device="cuda:0"), rand((3, 5), device="cuda:1")
    with pytest.raises(ValueError, match="^dot: b is on cuda:1, but a is on cuda:0"):
        kd.dot(a, b)
    with pytest.raises(ValueError, match="^dot: out must be"):
        kd.dot(a, rand((3, 5), device="cuda:0"), out=torch.empty(4, 5, device="cuda:1"))


# ---- input_precision and the knobs --------------------------------------------------------------


@pytest.mark.parametrize("value", ["IEEE", "fp32", "tf32x2", "", "bf16x3", 1, True])
def test_rejects_a_mistyped_input_precision_for_float32(value):
    with pytest.raises(ValueError, match=r"^dot: input_precision must be one of \('ieee'"):
        kd.dot(rand((2, 3)), rand((3, 4)), input_precision=value)


@pytest.mark.parametrize("precision", precisions("fp16", "bf16", "fp8"))
def test_rejects_input_precision_for_other_dtypes(precision):
    a, b = operands(precision, (2, 3), (3, 4))
    with pytest.raises(ValueError, match="^dot: input_precision applies only to float32"):
        kd.dot(a, b, input_precision="ieee")


def test_default_input_precision_is_tf32_like_triton(monkeypatch):
    seen = []

    class Spy:
        def __getitem__(self, grid):
            return lambda *args, **meta: seen.append(meta["INPUT_PRECISION"])

    monkeypatch.setattr(kd, "dot_kernel", Spy())
    kd.dot(rand((2, 3)), rand((3, 4)))
    kd.dot(*operands("fp16", (2, 3), (3, 4)))
    assert seen == ["tf32", None]


@pytest.mark.parametrize("name", ["block_m", "block_n", "block_k", "num_warps", "num_stages"])
@pytest.mark.parametrize("value", [True, 32.0, "32", None, np.int64(32)], ids=repr)
def test_knobs_must_be_exact_ints(name, value):
    with pytest.raises(TypeError, match=f"^dot: {name} must be an int"):
        kd.dot(rand((4, 3)), rand((3, 5)), **{name: value})


@pytest.mark.parametrize(
    "knobs, match",
    [
        ({"block_m": 8}, r"block_m must be a power of two in \[16, 256\], got 8"),
        ({"block_n": 48}, r"block_n must be a power of two in \[16, 256\], got 48"),
        ({"block_k": 512}, r"block_k must be a power of two in \[16, 256\], got 512"),
        ({"num_warps": 3}, r"num_warps must be a power of two in \[1, 16\]"),
        ({"num_warps": 32}, r"num_warps must be a power of two in \[1, 16\]"),
        ({"num_stages": 0}, r"num_stages must be an int in \[1, 8\]"),
        ({"num_stages": 9}, r"num_stages must be an int in \[1, 8\]"),
        ({"block_m": 256, "block_n": 256, "num_warps": 4}, r"block_m \* block_n .* = 512 acc"),
    ],
    ids=["m-small", "n-not-power", "k-large", "warps-3", "warps-32", "stages-0", "stages-9",
         "spills"],
)  # fmt: skip
def test_rejects_out_of_range_knobs(knobs, match, monkeypatch):
    spy = LaunchSpy(kd.dot_kernel)
    monkeypatch.setattr(kd, "dot_kernel", spy)
    with pytest.raises(ValueError, match=f"^dot: {match}"):
        kd.dot(rand((4, 3)), rand((3, 5)), **knobs)
    assert spy.devices == []


@pytest.mark.parametrize("precision", precisions("fp8"))
def test_fp8_needs_block_k_of_at_least_32(precision):
    a, b = operands(precision, (4, 40), (40, 5))
    with pytest.raises(ValueError, match=r"^dot: block_k must be a power of two in \[32, 256\]"):
        kd.dot(a, b, block_k=16)


def test_refuses_more_tile_columns_than_the_grid_holds(monkeypatch):
    monkeypatch.setattr(kd, "MAX_GRID_Y", 3)  # 65,535 tile columns would need a huge b
    with pytest.raises(ValueError, match="^dot: b has 70 columns, 5 tiles of block_n = 16"):
        kd.dot(rand((4, 3)), rand((3, 70)), block_n=16)
    kd.dot(rand((4, 3)), rand((3, 48)), block_n=16)  # 3 tiles: fine


# ---- hostile inputs: every check raises before anything is launched ---------------------------


def meta(*shape):
    return torch.empty(shape, device="meta")


@pytest.mark.parametrize(
    "make_args, error, match",
    [
        (lambda: ([[1.0]], rand((1, 1))), TypeError, "a must be a torch.Tensor"),
        (lambda: (rand((1, 1)), 2.0), TypeError, "b must be a torch.Tensor"),
        (lambda: (rand((2, 2), torch.float64),) * 2, TypeError, "a has dtype torch.float64"),
        (lambda: (rand((2, 2)).int(),) * 2, TypeError, "a has dtype torch.int32"),
        (lambda: (rand((2, 2), torch.float8_e5m2),) * 2, TypeError, "a has dtype .*e5m2"),
        (lambda: (rand((2, 2)), rand((2, 2), torch.float16)), TypeError, "b has dtype"),
        (
            lambda: (torch.randn(2, 2, dtype=torch.complex64, device=DEVICE),) * 2,
            TypeError,
            "a has dtype torch.complex64",
        ),
        (lambda: (rand(4), rand((4, 2))), ValueError, r"a must be 2-D, got shape \(4,\)"),
        (lambda: (rand((2, 4)), rand((2, 4, 1))), ValueError, "b must be 2-D"),
        (lambda: (rand(()), rand((1, 1))), ValueError, "a must be 2-D"),
        (lambda: (rand((2, 4)), rand((5, 3))), ValueError, r"b has shape \(5, 3\), but a"),
        (lambda: (meta(2, 2), rand((2, 2))), ValueError, "a is a meta tensor"),
        (lambda: (rand((2, 2)), meta(2, 2)), ValueError, "b is a meta tensor"),
        (lambda: (rand((2, 2)).to_sparse(), rand((2, 2))), ValueError, "a must be a dense"),
        (lambda: (rand((2, 2)), rand((2, 2)).to_sparse_csr()), ValueError, "b must be a dense"),
    ],
    ids=[
        "a-not-tensor", "b-not-tensor", "float64", "int32", "fp8-e5m2", "mixed-dtype",
        "complex", "a-1d", "b-3d", "a-0d", "inner-mismatch", "meta-a", "meta-b", "sparse-a",
        "sparse-csr-b",
    ],
)  # fmt: skip
@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
def test_rejects_bad_inputs(make_args, error, match, monkeypatch):
    spy = LaunchSpy(kd.dot_kernel)
    monkeypatch.setattr(kd, "dot_kernel", spy)
    a, b = make_args()
    with pytest.raises(error, match=f"^dot: {match}"):
        kd.dot(a, b)
    assert spy.devices == []


@pytest.mark.parametrize(
    "make_out, match",
    [
        (lambda: [[0.0] * 4] * 2, "out must be a torch.Tensor"),
        (lambda: rand((4, 2)), r"out must be \(2, 4\)"),
        (lambda: rand(8), r"out must be \(2, 4\)"),
        (lambda: rand((2, 4), torch.float16), r"out must be \(2, 4\) torch.float32"),
        (lambda: meta(2, 4), "out is a meta tensor"),
        (lambda: rand((2, 4)).to_sparse(), "out must be a dense tensor"),
    ],
    ids=["not-tensor", "transposed-shape", "flat", "dtype", "meta", "sparse"],
)
def test_rejects_bad_out(make_out, match, monkeypatch):
    spy = LaunchSpy(kd.dot_kernel)
    monkeypatch.setattr(kd, "dot_kernel", spy)
    with pytest.raises((TypeError, ValueError), match=f"^dot: {match}"):
        kd.dot(rand((2, 3)), rand((3, 4)), out=make_out())
    assert spy.devices == []


@pytest.mark.parametrize("precision", precisions("fp8"))
def test_fp8_out_is_bfloat16(precision):
    a, b = operands(precision, (2, 32), (32, 4))
    with pytest.raises(ValueError, match=r"^dot: out must be \(2, 4\) torch.bfloat16"):
        kd.dot(a, b, out=torch.empty(2, 4, dtype=torch.float8_e4m3fn, device=DEVICE))


# ---- the worked example of lesson 05 (figures/dot.py) -------------------------------------------


def test_worked_example_adds_up():
    """One tile's K steps times the number of tiles is the whole product's 2 * n**3, and
    the CUDA-core count is the same step in FMAs (2 FLOPs each) spread over 8 warps."""
    from figures import dot as model

    def ex(of):  # the example is arithmetic, not measured: it reads no data
        return model.example({}, of)

    assert ex("tiles") * ex("tile_flops") == ex("total_flops") == 2 * 4096**3
    assert ex("tile_flops") == ex("k_steps") * ex("step_flops")
    assert ex("step_flops") == 2 * ex("step_fmas") == 2 * 128 * 128 * 64
    assert ex("step_bytes") == (128 + 128) * 64 * 2
    assert ex("fmas_per_thread") * 8 * 32 == ex("step_fmas")
    assert ex("step_intensity") == 64
