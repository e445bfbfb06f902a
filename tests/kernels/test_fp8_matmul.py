"""FP8 matmul with scales (kernels/fp8_matmul.py) against a float64 product of the
DEQUANTISED operands: ``quantize`` and ``dequantize``, each scaling granularity, ragged
M/N/K, e5m2, the refusals of the wrapper contract that are special to FP8 (the rest is in
test_contract.py); on a Hopper GPU, 4096^3 against torch._scaled_mm.

The Triton interpreter runs FP8 dots (it widens the 8-bit values to float32, exactly), so
every case below runs on the CPU too; only the ones that need a GPU's hardware (the
compute-capability refusal, torch._scaled_mm) are GPU-only.

Two kinds of check, and their tolerances:

- **Exact data.** The 8-bit values are small integers (|v| <= 4, so every product is an
  integer of magnitude <= 16 and every partial sum one of magnitude <= 16 K <= 2**13 for
  K <= 512) and the scales are powers of two. Then every sum the kernel forms is exact in
  ANY order and at any accumulator precision of at least 14 bits (Hopper's tensor cores
  keep about 14 for FP8 sums, DeepSeek-V3 report section 3.3.2; float32 keeps 24), and the
  scales only move the exponent. The one error left is the final rounding to bfloat16:
  on the GPU the result equals the float64 reference rounded to bfloat16, bit for bit; the
  interpreter rounds float32 to bfloat16 by truncation, so there it may be one unit
  (2**-7 relative) below. A missing or repeated tile, K step or scale fails.
- **Random data** (normal values through ``quantize``): per element,
  ``|out - ref| <= 2 u |ref| + (K + 4) e (|A| @ |B|) + 2**-30``, with A, B the dequantised
  operands, u = 2**-8 the bfloat16 unit (2**-7 under the interpreter, which truncates),
  and e the accumulator's unit: 2**-24 (float32) under the interpreter; on the GPU the
  tensor cores' FP8 sum keeps about 14 bits, so e = 2**-13 there (the bound for a running
  sum rounded at each step; loose, and the exact-data test is the sharp one). Products of
  FP8 values are exact in float32 (4 + 4 significant bits); the scales add at most two
  float32 roundings per term, inside the same factor.
"""

import math

import pytest
import torch

from kernels import fp8_matmul as f8
from tests.support import (
    DEVICE,
    ON_GPU,
    assert_within,
    fresh_seed,
    requires_gpu,
    requires_two_gpus,
)

E4M3 = torch.float8_e4m3fn
E5M2 = torch.float8_e5m2
GRANULARITIES = f8.GRANULARITIES
# (M, N, K): ragged everywhere, K a multiple of 16 (TMA reads 16-byte rows of 8-bit
# values), crossing the interpreter's 32 x 32 x 32 tiles and, at K = 288, a 128-wide
# block of "block" scaling.
RAGGED = [(1, 8, 16), (33, 40, 48), (70, 50, 160), (5, 129, 288)]
INTERPRETER = not ON_GPU


def hopper() -> bool:
    return ON_GPU and torch.cuda.get_device_capability() >= (9, 0)


requires_hopper = pytest.mark.skipif(
    not hopper(), reason="needs a GPU of compute capability >= 9.0 (FP8 dot and TMA)"
)


def integer_operand(rows, cols, dtype=E4M3, device=DEVICE) -> torch.Tensor:
    """Integers in [-4, 4], never all zero, in an FP8 dtype (both formats hold them)."""
    v = torch.randint(-4, 5, (rows, cols), device=device).float()
    v[v == 0] = 1.0
    return v.to(dtype)


def power_of_two_scales(shape, device=DEVICE) -> torch.Tensor:
    """float32 scales 2**e, e in [-3, 3]: they move the exponent and lose nothing."""
    return torch.exp2(torch.randint(-3, 4, shape, device=device).float())


def exact_operands(m, n, k, granularity, dtype=E4M3):
    a = integer_operand(m, k, dtype)
    b = integer_operand(n, k, dtype).t()  # column-major (K, N), as fp8_matmul reads it
    sa_shape, sb_shape = f8.scale_shapes(m, n, k, granularity)
    return a, b, power_of_two_scales(sa_shape), power_of_two_scales(sb_shape)


def assert_exact(out, a, b, sa, sb, msg=""):
    """Equal to the float64 reference rounded to bfloat16; under the interpreter (which
    truncates to bfloat16) within one bfloat16 unit of the float64 value, below it."""
    ref = f8.reference(a, b, sa, sb, torch.float64)
    if INTERPRETER:
        allowed = 2**-7 * ref.abs()
        assert_within(out, ref, allowed, msg)
    else:
        want = ref.to(torch.bfloat16)
        bad = out != want
        assert not bad.any(), f"{int(bad.sum())} of {out.numel()} elements not exact {msg}"


def random_allowed(a, b, sa, sb, ref) -> torch.Tensor:
    """The random-data bound of the docstring, per element."""
    a_real = f8.dequantize(a, sa, "a").double()
    b_real = f8.dequantize(b, sb, "b").double()
    k = a.shape[1]
    unit = 2**-7 if INTERPRETER else 2**-8
    acc_unit = 2**-24 if INTERPRETER else 2**-13
    return 2 * unit * ref.abs() + (k + 4) * acc_unit * (a_real.abs() @ b_real.abs()) + 2**-30


# ---- quantize and dequantize ----------------------------------------------------------


@pytest.mark.parametrize("dtype", [E4M3, E5M2], ids=str)
@pytest.mark.parametrize("operand", f8.OPERANDS)
@pytest.mark.parametrize("granularity", GRANULARITIES)
def test_quantize_shapes_layouts_and_error(granularity, operand, dtype):
    seed = fresh_seed()
    m, k, n = 70, 288, 130
    x = torch.randn((m, k) if operand == "a" else (k, n), device=DEVICE)
    q, s = f8.quantize(x, granularity, operand, dtype)
    assert q.dtype == dtype and q.shape == x.shape and s.dtype == torch.float32
    want_a, want_b = f8.scale_shapes(m, n, k, granularity)
    assert s.shape == (want_a if operand == "a" else want_b)
    if operand == "a":
        assert q.stride() == (k, 1)
    else:
        assert q.stride() == (1, k)  # column-major: w.t() of a row-major (N, K) w
    # Round to nearest: each element within half a unit of its format (2**-4 relative for
    # e4m3's 3 mantissa bits, 2**-3 for e5m2's 2), or half the smallest subnormal step.
    back = f8.dequantize(q, s, operand)
    each = f8.dequantize(torch.ones_like(q), s, operand)  # every element's scale
    mant = 3 if dtype == E4M3 else 2
    tiny = torch.finfo(dtype).smallest_normal * 2.0**-mant  # the subnormal step
    allowed = 2.0 ** -(mant + 1) * x.abs() + each * tiny / 2 + 1e-30
    assert_within(back, x.double(), allowed.double(), f"seed {seed}")


@pytest.mark.parametrize("granularity", GRANULARITIES)
def test_each_groups_largest_value_maps_to_the_formats_largest(granularity):
    fresh_seed()
    x = torch.randn(64, 256, device=DEVICE)
    q, s = f8.quantize(x, granularity, "a")
    top = torch.finfo(E4M3).max  # 448
    if granularity == "tensor":
        assert q.float().abs().max().item() == top
    elif granularity == "row":
        assert (q.float().abs().amax(dim=1) == top).all()
    else:
        strips = q.float().abs().view(64, 2, 128).amax(dim=2)
        assert (strips == top).all()


def test_an_outlier_costs_per_tensor_scaling_only_when_huge():
    """The lesson's claim in small: one large value in one row of a (64, 512) matrix.
    e4m3 is a float format: a value 10**4 times the rest still leaves the rest in its
    normal range under one shared scale (about 2.7% error, as with per-row scales). At
    10**5 the rest fall among the subnormals and per-tensor scaling loses (about 13%),
    while per-row scales keep every other row at FP8's own 2.6%."""
    torch.manual_seed(0)
    errors = {}
    for outlier in (1e4, 1e5):
        x = torch.randn(64, 512, device=DEVICE)
        x[0, 7] = outlier
        for g in ("tensor", "row"):
            q, s = f8.quantize(x, g, "a")
            back = f8.dequantize(q, s, "a")
            errors[g, outlier] = ((back[1:] - x[1:]).norm() / x[1:].norm()).item()
    assert errors["tensor", 1e4] < 0.03 and errors["row", 1e4] < 0.03
    assert errors["row", 1e5] < 0.03 < 0.1 < errors["tensor", 1e5]


def test_quantize_refuses_by_name():
    x = torch.randn(4, 32, device=DEVICE)
    with pytest.raises(ValueError, match="granularity"):
        f8.quantize(x, "column")
    with pytest.raises(ValueError, match="operand"):
        f8.quantize(x, "row", "c")
    with pytest.raises(TypeError, match="dtype"):
        f8.quantize(x, "row", "a", torch.bfloat16)
    with pytest.raises(ValueError, match="x must be"):
        f8.quantize(x[0], "row")


def test_reference_is_the_product_of_the_dequantised_operands():
    fresh_seed()
    a, sa = f8.quantize(torch.randn(20, 256, device=DEVICE), "block", "a")
    b, sb = f8.quantize(torch.randn(256, 300, device=DEVICE), "block", "b")
    want = f8.dequantize(a, sa, "a").double() @ f8.dequantize(b, sb, "b").double()
    assert torch.equal(f8.reference(a, b, sa, sb, torch.float64), want)
    assert torch.equal(f8.reference(a, b, sa, sb), want.to(torch.bfloat16))


# ---- the kernel -------------------------------------------------------------------------


GPU_OR_INTERPRETER = pytest.mark.skipif(
    ON_GPU and not hopper(), reason="the FP8 dot with TMA needs compute capability >= 9.0"
)


@GPU_OR_INTERPRETER
@pytest.mark.parametrize("fast_accum", [True, False], ids=["fast", "promoted"])
@pytest.mark.parametrize("granularity", GRANULARITIES)
@pytest.mark.parametrize("m, n, k", RAGGED)
def test_exact_data_gives_the_rounded_reference(m, n, k, granularity, fast_accum):
    seed = fresh_seed()
    a, b, sa, sb = exact_operands(m, n, k, granularity)
    out = f8.fp8_matmul(a, b, sa, sb, scaling=granularity, fast_accum=fast_accum)
    assert out.dtype == torch.bfloat16 and out.shape == (m, n)
    assert_exact(out, a, b, sa, sb, f"{granularity} {m}x{n}x{k} seed {seed}")


@GPU_OR_INTERPRETER
@pytest.mark.parametrize("granularity", GRANULARITIES)
@pytest.mark.parametrize("m, n, k", RAGGED)
def test_random_data_within_the_bound(m, n, k, granularity):
    seed = fresh_seed()
    a, sa = f8.quantize(torch.randn(m, k, device=DEVICE), granularity, "a")
    b, sb = f8.quantize(torch.randn(k, n, device=DEVICE), granularity, "b")
    out = f8.fp8_matmul(a, b, sa, sb)  # the scaling read from the scales' shapes
    ref = f8.reference(a, b, sa, sb, torch.float64)
    assert_within(out, ref, random_allowed(a, b, sa, sb, ref), f"{granularity} seed {seed}")


@GPU_OR_INTERPRETER
@pytest.mark.parametrize("granularity", GRANULARITIES)
def test_e5m2_operands(granularity):
    seed = fresh_seed()
    a, b, sa, sb = exact_operands(37, 48, 160, granularity, E5M2)
    out = f8.fp8_matmul(a, b, sa, sb, scaling=granularity)
    assert_exact(out, a, b, sa, sb, f"e5m2 {granularity} seed {seed}")


@GPU_OR_INTERPRETER
def test_writes_into_out_and_a_strided_row_layout():
    fresh_seed()
    a, b, sa, sb = exact_operands(33, 40, 64, "row")
    # a with a padded row stride (80 bytes, a multiple of 16) and b from a padded (N, K).
    a_pad = torch.zeros(33, 80, dtype=torch.float32, device=DEVICE).to(E4M3)
    a_pad[:, :64] = a
    b_pad = torch.zeros(40, 96, dtype=torch.float32, device=DEVICE).to(E4M3)
    b_pad[:, :64] = b.t()
    out = torch.full((33, 40), float("nan"), dtype=torch.bfloat16, device=DEVICE)
    version = out._version
    got = f8.fp8_matmul(a_pad[:, :64], b_pad[:, :64].t(), sa, sb, out=out)
    assert got is out and out._version > version
    assert_exact(out, a, b, sa, sb)
    # An output whose rows are not 16-byte aligned (N = 13): the pointer store.
    a2, b2, sa2, sb2 = exact_operands(9, 13, 32, "tensor")
    assert_exact(f8.fp8_matmul(a2, b2, sa2, sb2), a2, b2, sa2, sb2, "N = 13")


@GPU_OR_INTERPRETER
@pytest.mark.parametrize("granularity", GRANULARITIES)
def test_every_plan_option_keeps_the_result(granularity):
    """The options plan() may set (the store in two halves, the tile loop not flattened,
    two programs per SM), on the plan's tiles for this device, give the same exact result."""
    seed = fresh_seed()
    m, n, k = 70, 72, 288  # N = 72: rows of 144 bytes, so the TMA store (in halves) runs
    a, b, sa, sb = exact_operands(m, n, k, granularity)
    device = a.get_device()
    for change in ({"subtile": True}, {"flatten": False}, {"per_sm": 2}):
        cfg = {**f8.plan(m, n, k, granularity, device, fast_accum=False), **change}
        cfg["programs"] = f8.sm_count(device) * cfg["per_sm"]
        out = f8.launch(a, b, sa, sb, granularity, fast_accum=False, config=cfg)
        assert_exact(out, a, b, sa, sb, f"{granularity} {change} seed {seed}")


@pytest.mark.parametrize("m, n", [(0, 8), (8, 0), (0, 0)])
def test_empty_results_launch_nothing(m, n):
    a, b, sa, sb = exact_operands(m, n, 32, "row")
    assert f8.fp8_matmul(a, b, sa, sb).shape == (m, n)


def test_k_zero_gives_zeros():
    a, b, sa, sb = exact_operands(3, 8, 0, "tensor")
    assert torch.equal(
        f8.fp8_matmul(a, b, sa, sb), torch.zeros(3, 8, dtype=torch.bfloat16, device=DEVICE)
    )


def test_scaling_is_read_from_the_scales_shapes():
    m, n, k = 9, 16, 256
    assert f8.scale_shapes(m, n, k, "tensor") == ((), ())
    assert f8.scale_shapes(m, n, k, "row") == ((m, 1), (1, n))
    assert f8.scale_shapes(m, n, k, "block") == ((m, 2), (2, 1))
    a, b, sa, sb = exact_operands(m, n, k, "row")
    with pytest.raises(ValueError, match="match no scaling"):
        f8.fp8_matmul(a, b, sa, sb[:, :8])
    with pytest.raises(ValueError, match="b_scale must have shape"):
        f8.fp8_matmul(a, b, sa, sb[:, :8], scaling="row")


# ---- refusals special to FP8 ------------------------------------------------------------


def test_refuses_k_not_a_multiple_of_16():
    a, b, sa, sb = exact_operands(8, 8, 24, "tensor")
    with pytest.raises(ValueError, match=r"a has 24 columns \(K\); K must be a multiple of 16"):
        f8.fp8_matmul(a, b, sa, sb)


def test_refuses_layouts_the_fp8_dot_cannot_read():
    a, b, sa, sb = exact_operands(16, 32, 64, "tensor")
    with pytest.raises(ValueError, match="b .*column-major"):
        f8.fp8_matmul(a, b.contiguous(), sa, sb)  # row-major b
    with pytest.raises(ValueError, match="a .*row-major"):
        f8.fp8_matmul(a.t().contiguous().t(), b, sa, sb)  # column-major a
    with pytest.raises(ValueError, match="a .*row-major"):
        f8.fp8_matmul(a[:, 8:40], b[8:40], sa, sb)  # a starts 8 bytes in: misaligned


def test_refuses_other_dtypes_by_name():
    a, b, sa, sb = exact_operands(8, 16, 32, "row")
    with pytest.raises(TypeError, match="a has dtype"):
        f8.fp8_matmul(a.bfloat16(), b, sa, sb)
    with pytest.raises(TypeError, match="b has dtype"):
        f8.fp8_matmul(a, b.to(E5M2), sa, sb)
    with pytest.raises(TypeError, match="a_scale must be float32"):
        f8.fp8_matmul(a, b, sa.double(), sb)
    with pytest.raises(TypeError, match="out must be bfloat16"):
        f8.fp8_matmul(a, b, sa, sb, out=torch.empty(8, 16, device=DEVICE))
    with pytest.raises(TypeError, match="fast_accum"):
        f8.fp8_matmul(a, b, sa, sb, fast_accum=1)
    with pytest.raises(ValueError, match="scaling"):
        f8.fp8_matmul(a, b, sa, sb, scaling="column")


@requires_gpu
def test_refuses_gpus_before_hopper_by_name(monkeypatch):
    a, b, sa, sb = exact_operands(8, 16, 32, "tensor")
    monkeypatch.setitem(f8._CAPABILITIES, a.get_device(), (8, 0))
    with pytest.raises(ValueError, match=r"a is on cuda.*8\.0.*9\.0 \(Hopper\)"):
        f8.fp8_matmul(a, b, sa, sb)


# ---- on a Hopper GPU ---------------------------------------------------------------------


@requires_hopper
@pytest.mark.parametrize("granularity", ["tensor", "row"])
def test_4096_cubed_agrees_with_torch_scaled_mm(granularity):
    """At the benchmark's size, against cuBLASLt on the same operands: both fast-accumulate
    in the tensor cores, in different orders, so they differ by about the accumulator's
    error, far below a bfloat16 unit of the result's typical size."""
    seed = fresh_seed()
    n = 4096
    a, sa = f8.quantize(torch.randn(n, n, device="cuda"), granularity, "a")
    b, sb = f8.quantize(torch.randn(n, n, device="cuda"), granularity, "b")
    ours = f8.fp8_matmul(a, b, sa, sb).double()
    theirs = torch._scaled_mm(
        a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16, use_fast_accum=True
    ).double()
    ref = f8.reference(a, b, sa, sb, torch.float64)
    typical = ref.abs().mean().item()
    assert (ours - ref).abs().max().item() < 0.05 * typical, f"seed {seed}"
    assert (ours - theirs).abs().max().item() < 0.05 * typical, f"seed {seed}"
    assert math.isfinite(typical)


@requires_hopper
def test_block_scaling_at_4096_is_within_the_bound():
    seed = fresh_seed()
    n = 4096
    a, sa = f8.quantize(torch.randn(n, n, device="cuda"), "block", "a")
    b, sb = f8.quantize(torch.randn(n, n, device="cuda"), "block", "b")
    out = f8.fp8_matmul(a, b, sa, sb)
    ref = f8.reference(a, b, sa, sb, torch.float64)
    # The partial sums are promoted to float32 every 128 steps of K: the tensor cores'
    # 14-bit sum runs over 128 terms only.
    a_real = f8.dequantize(a, sa, "a").double()
    b_real = f8.dequantize(b, sb, "b").double()
    allowed = 2 * 2**-8 * ref.abs() + (128 * 2**-13 + (n + 4) * 2**-24) * (
        a_real.abs() @ b_real.abs()
    )
    assert_within(out, ref, allowed, f"seed {seed}")


# ---- the scales' part of the contract (test_contract.py's row passes fixed scales) -----


def test_scales_that_require_grad_are_refused_by_name():
    a, b, sa, sb = exact_operands(8, 16, 32, "row")
    with pytest.raises(ValueError, match="b_scale requires grad"):
        f8.fp8_matmul(a, b, sa, sb.requires_grad_())
    with torch.no_grad():  # outside grad mode nothing is recorded: accepted
        f8.fp8_matmul(a, b, sa, sb)


@GPU_OR_INTERPRETER
def test_a_scale_view_with_the_negative_bit_is_read_as_its_value():
    a, b, sa, sb = exact_operands(9, 16, 32, "row")
    flipped = torch._neg_view(-sa)  # memory holds -sa; the view reads sa
    assert flipped.is_neg()
    assert_exact(f8.fp8_matmul(a, b, flipped, sb), a, b, flipped.resolve_neg(), sb)


@requires_gpu
def test_scales_on_another_device_are_refused_by_name():
    a, b, sa, sb = exact_operands(8, 16, 32, "tensor")
    with pytest.raises(ValueError, match="a_scale must be on a CUDA device"):
        f8.fp8_matmul(a, b, sa.cpu(), sb)


@requires_two_gpus
def test_scales_on_another_gpu_are_refused_and_a_non_current_gpu_works():
    a, b, sa, sb = exact_operands(9, 16, 32, "row")
    with pytest.raises(ValueError, match=r"a_scale is on cuda:1, but a is on cuda:0"):
        f8.fp8_matmul(a, b, sa.to("cuda:1"), sb)
    moved = [t.to("cuda:1") for t in (a, b, sa, sb)]
    out = f8.fp8_matmul(*moved)  # cuda:0 stays the current device
    assert out.device == torch.device("cuda:1") and torch.cuda.current_device() == 0
    assert_exact(out.cpu(), *(t.cpu() for t in moved))
