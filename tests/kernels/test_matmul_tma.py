"""Persistent matmul, TMA and pointer paths, against its float64 reference: ragged shapes,
both dtypes, transposed and strided operands, the bias + GELU epilogue, the rule that picks
the path (the wrapper contract is tested in test_contract.py); on a Hopper GPU, the TMA path
at ragged sizes and at 4096^3.

Under the CPU interpreter the wrapper picks the pointer kernel; the TMA kernel still runs
there when asked for (``path="tma"``), the interpreter emulating the descriptors (it checks
TMA's alignment rules too), so its tile and index logic is tested without a GPU.

Tolerance, per element, against the float64 result ``ref`` of the same (rounded) inputs:

    |out - ref| <= 2 u |ref| + 2 (K + 4) 2**-24 (|a| @ |b|) + 2**-24

u is the output's rounding unit (fp16 2**-11, bf16 2**-8; the interpreter truncates to
bf16, so 2**-7 there); (K + 4) 2**-24 bounds float32 accumulation over K terms (fp16 and
bf16 products are exact in float32). A missing or doubled K step or tile is off by about
the size of the values and fails.
"""

import pytest
import torch

from kernels import matmul_tma as mt
from tests.support import (
    DEVICE,
    ON_GPU,
    LaunchSpy,
    assert_within,
    counting_autotuner,
    fresh_seed,
    matmul_allowed,
    poisoned_like,
    rand,
    requires_gpu,
)

DTYPES = [torch.float16, torch.bfloat16]
H100_SHARED_MEMORY = 232_448  # bytes per program, as Triton reports it for an H100
KERNELS = ("matmul_tma_autotuned", "matmul_persistent_autotuned")
PATH_KERNEL = {"tma": "matmul_tma_autotuned", "pointers": "matmul_persistent_autotuned"}


def hopper() -> bool:
    return ON_GPU and torch.cuda.get_device_capability() >= (9, 0)


# The TMA kernel runs under the interpreter (it emulates descriptors) and on Hopper or newer.
requires_tma = pytest.mark.skipif(
    not mt.HAS_TENSOR_DESCRIPTORS or (ON_GPU and not hopper()),
    reason="needs tl.make_tensor_descriptor, and on a GPU compute capability >= 9.0",
)
requires_hopper = pytest.mark.skipif(
    not hopper() or not mt.HAS_TENSOR_DESCRIPTORS,
    reason="needs a GPU of compute capability >= 9.0 (TMA) and a Triton with descriptors",
)


def full_configs(test):
    """Mark a test that runs the autotuner's real config lists on a GPU."""
    test.full_configs = True
    return test


@pytest.fixture(autouse=True)
def one_small_config_on_a_gpu(request, monkeypatch):
    """On a GPU, every test not marked ``full_configs`` runs one small config: each new
    shape and layout would otherwise compile and time every config of the lists, and the
    small tests check indexing, not speed. (Under the interpreter there is one anyway.)"""
    if ON_GPU and not getattr(request.function, "full_configs", False):
        for name in KERNELS:
            tuner = getattr(mt, name)
            monkeypatch.setattr(tuner, "configs", [mt.FALLBACK_CONFIG])
            monkeypatch.setattr(tuner, "cache", {})  # no pick from the full lists reused


def assert_matches(out, a, b, bias=None, activation=None, msg=""):
    """out against the float64 reference within the bound stated at the top (|bias| joins
    the scale; exact GELU's slope is at most about 1.13, inside the factor 2)."""
    bias64 = None if bias is None else bias.double()
    ref = mt.reference(a.double(), b.double(), bias64, activation)  # float64 in and out
    assert out.dtype == a.dtype, msg
    assert_within(out, ref, matmul_allowed(a, b, ref, bias), msg)


def spies(monkeypatch) -> dict:
    """Both autotuned kernels replaced by spies that record launches and still run."""
    found = {}
    for name in KERNELS:
        found[name] = LaunchSpy(getattr(mt, name))
        monkeypatch.setattr(mt, name, found[name])
    return found


def operands(m, n, k, dtype, a_transposed=False, b_transposed=False):
    """a (m, k) and b (k, n); a transposed operand is the .t() view of a contiguous matrix."""
    a = rand((k, m), dtype).t() if a_transposed else rand((m, k), dtype)
    b = rand((n, k), dtype).t() if b_transposed else rand((k, n), dtype)
    return a, b


def h(shape):
    """A float16 random tensor of ``shape``."""
    return rand(shape, torch.float16)


# ---- results: the pointer kernel on ragged shapes ----------------------------------------

RAGGED = [(33, 47, 65), (1, 1, 1), (16, 16, 16), (31, 17, 130), (5, 100, 3), (70, 45, 150)]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("m, n, k", RAGGED)
def test_pointer_path_matches_reference(m, n, k, dtype, monkeypatch):
    seed = fresh_seed()
    found = spies(monkeypatch)
    a, b = operands(m, n, k, dtype)
    out = poisoned_like(torch.empty(m, n, dtype=dtype, device=DEVICE))  # NaN: unwritten fails
    assert mt.matmul_tma(a, b, out=out, path="pointers") is out
    assert_matches(out, a, b, msg=f"seed={seed}")
    assert (
        found["matmul_persistent_autotuned"].devices and not found["matmul_tma_autotuned"].devices
    )


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("m, n, k", RAGGED + [(37, 40, 24), (100, 56, 40)])
def test_auto_path_runs_the_kernel_path_for_names(m, n, k, dtype, monkeypatch):
    seed = fresh_seed()
    found = spies(monkeypatch)
    a, b = operands(m, n, k, dtype)
    expected = mt.path_for(a, b)
    if not ON_GPU:
        assert expected == "pointers"  # the interpreter always takes the portable kernel
    out = mt.matmul_tma(a, b)
    assert_matches(out, a, b, msg=f"seed={seed} path={expected}")
    launched = [name for name in KERNELS if found[name].devices]
    assert launched == [PATH_KERNEL[expected]]


# ---- results: the TMA kernel (interpreter or Hopper) ----------------------------------------

# Row strides of a, b and the result must be multiples of 16 bytes (8 elements): K and N
# multiples of 8 (and M too where a is transposed); M, N, K still ragged against the tiles.
ALIGNED = [(37, 40, 24), (33, 48, 72), (5, 16, 8), (100, 56, 40), (40, 8, 8)]


@requires_tma
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("m, n, k", ALIGNED)
def test_tma_path_matches_reference(m, n, k, dtype, monkeypatch):
    seed = fresh_seed()
    found = spies(monkeypatch)
    a, b = operands(m, n, k, dtype)
    assert mt.tma_refusal(a, b) is None
    out = poisoned_like(torch.empty(m, n, dtype=dtype, device=DEVICE))
    assert mt.matmul_tma(a, b, out=out, path="tma") is out
    assert_matches(out, a, b, msg=f"seed={seed}")
    assert (
        found["matmul_tma_autotuned"].devices and not found["matmul_persistent_autotuned"].devices
    )


@requires_tma
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize(
    "a_transposed, b_transposed", [(True, False), (False, True), (True, True)], ids=str
)
def test_tma_path_reads_transposed_operands(a_transposed, b_transposed, dtype):
    """b = w.t() with w a contiguous (N, K) weight, as nn.Linear stores it; a = x.t()."""
    seed = fresh_seed()
    a, b = operands(40, 48, 56, dtype, a_transposed, b_transposed)
    assert mt.tma_refusal(a, b) is None
    out = mt.matmul_tma(a, b, path="tma")
    assert_matches(out, a, b, msg=f"seed={seed}")


@requires_tma
@pytest.mark.skipif(ON_GPU, reason="on a GPU, test_warp_specialized_tma_on_hopper")
@pytest.mark.skipif(not mt.HAS_WARP_SPECIALIZE, reason="this Triton has no warp_specialize")
def test_warp_specialize_flag_keeps_the_result():
    seed = fresh_seed()
    a, b = operands(37, 40, 24, torch.float16)
    out = mt.matmul_tma(a, b, path="tma", warp_specialize=True)
    assert_matches(out, a, b, msg=f"seed={seed}")


# ---- strides, K = 0, empty outputs ------------------------------------------------------------


def strided(kind, m, n, k, dtype):
    """(a, b, out) with the layout ``kind`` names; all read or written in place."""
    a, b, out = rand((m, k), dtype), rand((k, n), dtype), None
    if kind in ("a-transposed", "both-transposed"):
        a = rand((k, m), dtype).t()
    if kind in ("b-transposed", "both-transposed"):
        b = rand((n, k), dtype).t()
    if kind == "sliced":
        a = rand((m + 3, 2 * k), dtype)[3:, ::2]
        b = rand((k, 3 * n), dtype)[:, 1::3]
    if kind == "broadcast":
        a = rand((1, k), dtype).expand(m, k)  # stride 0: every row the same
    if kind == "out-transposed":
        out = torch.empty(n, m, dtype=dtype, device=DEVICE).t()
    if kind == "out-in-a-wider-buffer":
        out = torch.empty(m, n + 9, dtype=dtype, device=DEVICE)[:, 4 : 4 + n]
    return a, b, out


LAYOUTS = [
    "a-transposed", "b-transposed", "both-transposed", "sliced", "broadcast",
    "out-transposed", "out-in-a-wider-buffer",
]  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("kind", LAYOUTS)
def test_strided_operands_are_read_in_place(kind, dtype):
    seed = fresh_seed()
    a, b, out = strided(kind, 37, 29, 41, dtype)
    if out is not None:
        out.fill_(float("nan"))
    result = mt.matmul_tma(a, b, out=out)
    assert out is None or result is out
    assert_matches(result, a, b, msg=f"seed={seed} {kind}")


@pytest.mark.parametrize("path", [None, "pointers"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_k_zero_gives_zeros(dtype, path):
    a, b = rand((5, 0), dtype), rand((0, 7), dtype)
    out = poisoned_like(torch.empty(5, 7, dtype=dtype, device=DEVICE))
    mt.matmul_tma(a, b, out=out, path=path)
    assert torch.equal(out, torch.zeros(5, 7, dtype=dtype, device=DEVICE))


# ---- the rule that picks the path -------------------------------------------------------------


def test_the_interpreter_and_cpu_tensors_take_pointers():
    a, b = operands(64, 64, 64, torch.float16)
    assert mt.tma_refusal(a, b) is None  # the layouts would do
    if not ON_GPU:
        assert mt.path_for(a, b) == "pointers"
    assert mt.path_for(a.cpu(), b.cpu()) == "pointers"


@pytest.mark.parametrize(
    "make",
    [
        lambda: operands(64, 64, 64, torch.float16),
        lambda: operands(8, 16, 24, torch.bfloat16, b_transposed=True),  # x @ w.t()
        lambda: operands(8, 16, 24, torch.float16, a_transposed=True),  # M = 8: 16-byte rows
        lambda: operands(8, 16, 24, torch.float16, a_transposed=True, b_transposed=True),
        lambda: (h((8, 40))[:, :24], h((24, 16))),  # a slice of a wider buffer: row stride 40
    ],
    ids=["plain", "b-transposed", "a-transposed", "both-transposed", "a-in-a-wider-buffer"],
)
def test_tma_accepts_plain_and_transposed_layouts(make):
    a, b = make()
    assert mt.tma_refusal(a, b) is None


@pytest.mark.parametrize(
    "make, who",
    [
        (lambda: operands(8, 16, 1031, torch.float16), "a (strides"),  # K * 2 bytes % 16 != 0
        (lambda: operands(8, 1041, 16, torch.bfloat16), "b (strides"),  # N * 2 bytes % 16 != 0
        (lambda: operands(1001, 16, 16, torch.float16, a_transposed=True), "a (strides"),
        (lambda: (h(8 * 16 + 1)[1:].view(8, 16), h((16, 16))), "a (strides"),  # 2 bytes off
        (lambda: (h((8, 32))[:, ::2], h((16, 16))), "a (strides"),  # no unit stride
        (lambda: (h((8, 16)), h((16, 1)).expand(16, 16)), "b (strides"),  # stride 0
        (lambda: (h((8, 0)), h((0, 16))), "K is 0"),
    ],
    ids=["k-odd", "n-odd", "a-transposed-m-odd", "a-misaligned", "a-no-unit-stride",
         "b-broadcast", "k-zero"],
)  # fmt: skip
def test_tma_refusal_names_what_breaks_the_rule(make, who):
    a, b = make()
    reason = mt.tma_refusal(a, b)
    assert reason is not None and who in reason, reason
    assert mt.path_for(a, b) == "pointers"


def test_tma_refusal_looks_at_out():
    a, b = operands(16, 24, 16, torch.float16)
    assert mt.tma_refusal(a, b) is None
    fine = torch.empty(16, 24, dtype=torch.float16, device=DEVICE)
    assert mt.tma_refusal(a, b, fine) is None
    wide = torch.empty(16, 32, dtype=torch.float16, device=DEVICE)[:, :24]  # row stride 32
    assert mt.tma_refusal(a, b, wide) is None
    for bad in (
        torch.empty(24, 16, dtype=torch.float16, device=DEVICE).t(),  # columns contiguous
        torch.empty(16, 29, dtype=torch.float16, device=DEVICE)[:, :24],  # row stride 58 bytes
        torch.empty(16 * 24 + 1, dtype=torch.float16, device=DEVICE)[1:].view(16, 24),
    ):
        assert "out (strides" in mt.tma_refusal(a, b, bad)
    a, b = operands(16, 20, 16, torch.float16)  # b's rows 40 bytes: b is refused first
    assert "b (strides" in mt.tma_refusal(a, b)
    b = rand((20, 16), torch.float16).t()  # b fine (a transposed weight), result rows 40 bytes
    assert "result's rows (N = 20)" in mt.tma_refusal(a, b)


# ---- configs --------------------------------------------------------------------------------


def test_configs_fit_hopper_shared_memory(monkeypatch):
    assert 3 <= len(mt.TMA_CONFIGS) <= 6 and 2 <= len(mt.POINTER_CONFIGS) <= 6
    for cfg in mt.TMA_CONFIGS:
        assert mt.shared_memory_bytes(cfg, 2, tma=True) <= H100_SHARED_MEMORY, cfg
    for cfg in mt.POINTER_CONFIGS:
        assert mt.shared_memory_bytes(cfg, 2, tma=False) <= H100_SHARED_MEMORY, cfg
    for cfg in mt.TMA_CONFIGS + mt.POINTER_CONFIGS:
        kw = cfg.kwargs
        # the float32 accumulator: at most 128 values per thread (no spills on Hopper)
        assert kw["BLOCK_M"] * kw["BLOCK_N"] // (32 * cfg.num_warps) <= 128, cfg
    # 128 x 256 x 64 with 4 stages: 196,608 bytes of operands + 65,536 for the TMA store
    big = mt.make_config(128, 256, 64, 8, 4)
    assert mt.shared_memory_bytes(big, 2, tma=True) == 262_144 > H100_SHARED_MEMORY
    monkeypatch.setattr(mt, "shared_memory_limit", lambda device: H100_SHARED_MEMORY)
    a = rand((2, 2), torch.float16)
    assert mt._tma_configs_that_fit(mt.TMA_CONFIGS + [big], {"a_ptr": a}) == mt.TMA_CONFIGS
    assert mt._pointer_configs_that_fit([big], {"a_ptr": a}) == [big]  # no store tile
    monkeypatch.setattr(mt, "shared_memory_limit", lambda device: 48 * 1024)
    assert mt._tma_configs_that_fit(mt.TMA_CONFIGS, {"a_ptr": a}) == [mt.FALLBACK_CONFIG]


@full_configs
def test_the_interpreter_tunes_nothing():
    if not ON_GPU:
        assert mt.matmul_tma_autotuned.configs == [mt.INTERPRETER_CONFIG]
        assert mt.matmul_persistent_autotuned.configs == [mt.INTERPRETER_CONFIG]
        assert mt.sm_count(-1) == mt.INTERPRETER_PROGRAMS
    else:
        assert mt.matmul_tma_autotuned.configs == mt.TMA_CONFIGS
        assert mt.matmul_persistent_autotuned.configs == mt.POINTER_CONFIGS


# ---- the epilogue: lesson 09's bias and exact GELU, on both paths ---------------------------

EPILOGUES = [(True, None), (False, "gelu"), (True, "gelu")]


@pytest.mark.parametrize("with_bias, activation", EPILOGUES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("m, n, k", [(33, 47, 65), (1, 1, 1), (5, 100, 3), (70, 45, 150)])
def test_pointer_path_epilogue(m, n, k, dtype, with_bias, activation):
    seed = fresh_seed()
    a, b = operands(m, n, k, dtype)
    bias = rand(n, dtype) if with_bias else None
    out = poisoned_like(torch.empty(m, n, dtype=dtype, device=DEVICE))
    mt.matmul_tma(a, b, out=out, bias=bias, activation=activation, path="pointers")
    assert_matches(out, a, b, bias, activation, msg=f"seed={seed}")


@requires_tma
@pytest.mark.parametrize("with_bias, activation", EPILOGUES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("m, n, k", [(37, 40, 24), (100, 56, 40), (5, 16, 8)])
def test_tma_path_epilogue(m, n, k, dtype, with_bias, activation, monkeypatch):
    seed = fresh_seed()
    found = spies(monkeypatch)
    a, b = operands(m, n, k, dtype)
    bias = rand(n, dtype) if with_bias else None
    out = poisoned_like(torch.empty(m, n, dtype=dtype, device=DEVICE))
    mt.matmul_tma(a, b, out=out, bias=bias, activation=activation, path="tma")
    assert_matches(out, a, b, bias, activation, msg=f"seed={seed}")
    assert found["matmul_tma_autotuned"].devices


def test_gelu_is_the_exact_erf_form():
    """Values where exact and tanh GELU differ by far more than the output's rounding: at
    x = -2.7 the two differ by about 2% of the value. b is the identity, so out = gelu(a)."""
    a = torch.full((16, 16), -2.7, dtype=torch.float16, device=DEVICE)
    b = torch.eye(16, dtype=torch.float16, device=DEVICE)
    out = mt.matmul_tma(a, b, activation="gelu").double()
    exact = torch.nn.functional.gelu(a.double() @ b.double())
    tanh = torch.nn.functional.gelu(a.double() @ b.double(), approximate="tanh")
    assert (out - exact).abs().max() < (out - tanh).abs().min()


@pytest.mark.parametrize("path", [None, "pointers"])
def test_k_zero_gives_the_activation_of_the_bias(path):
    seed = fresh_seed()
    a, b = rand((6, 0), torch.float16), rand((0, 24), torch.float16)
    bias = rand(24, torch.float16)
    out = mt.matmul_tma(a, b, bias=bias, activation="gelu", path=path)
    assert_matches(out, a, b, bias, "gelu", msg=f"seed={seed}")  # gelu(bias) in every row


@pytest.mark.parametrize("kind", ["every-other", "broadcast", "negated"])
def test_bias_views_are_read_as_their_values(kind):
    seed = fresh_seed()
    a, b = operands(9, 16, 24, torch.bfloat16)
    if kind == "every-other":
        bias = rand(32, torch.bfloat16)[::2]  # stride 2
    elif kind == "broadcast":
        bias = rand((), torch.bfloat16).expand(16)  # stride 0
    else:
        bias = torch._neg_view(rand(16, torch.bfloat16))
    out = mt.matmul_tma(a, b, bias=bias, activation="gelu")
    plain = bias.resolve_neg() if kind == "negated" else bias
    assert_matches(out, a, b, plain, "gelu", msg=f"seed={seed} {kind}")


# ---- knobs: path and warp_specialize ------------------------------------------------------------


def test_warp_specialize_with_the_auto_path_off_hopper_is_refused(monkeypatch):
    if hopper():
        pytest.skip("on Hopper the auto path may be TMA")
    with pytest.raises(ValueError, match="^matmul_tma: warp_specialize=True needs the TMA path"):
        mt.matmul_tma(rand((8, 16), torch.float16), rand((16, 8), torch.float16),
                      warp_specialize=True)  # fmt: skip


def test_forced_tma_on_a_misaligned_layout_says_why(monkeypatch):
    found = spies(monkeypatch)
    a, b = operands(8, 16, 1031, torch.float16)
    with pytest.raises(ValueError, match=r"^matmul_tma: path='tma' cannot run: a \(strides"):
        mt.matmul_tma(a, b, path="tma")
    out = torch.empty(16, 8, dtype=torch.float16, device=DEVICE).t()
    a, b = operands(8, 16, 24, torch.float16)
    with pytest.raises(ValueError, match=r"^matmul_tma: path='tma' cannot run: out \(strides"):
        mt.matmul_tma(a, b, out=out, path="tma")
    assert all(not spy.devices for spy in found.values())


def test_forced_tma_without_descriptors_or_warp_specialize_is_refused(monkeypatch):
    a, b = operands(8, 16, 24, torch.float16)
    monkeypatch.setattr(mt, "HAS_WARP_SPECIALIZE", False)
    if mt.HAS_TENSOR_DESCRIPTORS and not (ON_GPU and not hopper()):
        with pytest.raises(ValueError, match="^matmul_tma: warp_specialize=True needs tl.range"):
            mt.matmul_tma(a, b, path="tma", warp_specialize=True)
    monkeypatch.setattr(mt, "HAS_TENSOR_DESCRIPTORS", False)
    with pytest.raises(ValueError, match="^matmul_tma: path='tma' needs tl.make_tensor_descriptor"):
        mt.matmul_tma(a, b, path="tma")
    assert mt.path_for(a, b) == "pointers"


@requires_gpu
def test_forced_tma_before_hopper_is_refused():
    if hopper():
        pytest.skip("this GPU has TMA")
    a, b = operands(8, 16, 24, torch.float16)
    with pytest.raises(ValueError, match=r"^matmul_tma: path='tma' needs compute capability 9\.0"):
        mt.matmul_tma(a, b, path="tma")
    assert mt.path_for(a, b) == "pointers"


# ---- on a Hopper GPU: the TMA path for real ------------------------------------------------------

# M, N, K not multiples of any tile (128, 256, 64), but K and N multiples of 8 elements, so
# the rows of a, b and the result are multiples of 16 bytes and TMA can read them.
RAGGED_ALIGNED = (1000, 1040, 1032)
MISALIGNED = (1000, 1041, 1031)


@requires_hopper
@pytest.mark.parametrize(
    "dtype, b_transposed, epilogue",
    [(torch.float16, False, False), (torch.bfloat16, False, False),
     (torch.bfloat16, True, False), (torch.float16, False, True), (torch.bfloat16, False, True)],
    ids=["fp16", "bf16", "bf16-weight.t()", "fp16-bias-gelu", "bf16-bias-gelu"],
)  # fmt: skip
@full_configs
def test_tma_path_on_hopper_at_ragged_sizes(dtype, b_transposed, epilogue, monkeypatch):
    seed = fresh_seed()
    m, n, k = RAGGED_ALIGNED
    a, b = operands(m, n, k, dtype, b_transposed=b_transposed)
    bias, activation = (rand(n, dtype), "gelu") if epilogue else (None, None)
    assert mt.path_for(a, b) == "tma", mt.tma_refusal(a, b)
    found = spies(monkeypatch)
    out = poisoned_like(torch.empty(m, n, dtype=dtype, device=DEVICE))
    mt.matmul_tma(a, b, out=out, bias=bias, activation=activation)
    launched = [name for name in KERNELS if found[name].devices]
    assert launched == ["matmul_tma_autotuned"], f"expected the TMA kernel, launched {launched}"
    # (the autotuner itself is behind the spy here: its chosen config is not at hand)
    assert_matches(out, a, b, bias, activation, msg=f"seed={seed}")


@requires_gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@full_configs
def test_misaligned_shapes_take_the_pointer_kernel_on_a_gpu(dtype, monkeypatch):
    seed = fresh_seed()
    m, n, k = MISALIGNED
    a, b = operands(m, n, k, dtype)
    assert mt.path_for(a, b) == "pointers"
    found = spies(monkeypatch)
    out = poisoned_like(torch.empty(m, n, dtype=dtype, device=DEVICE))
    mt.matmul_tma(a, b, out=out)
    assert [name for name in KERNELS if found[name].devices] == ["matmul_persistent_autotuned"]
    assert_matches(out, a, b, msg=f"seed={seed}")


@requires_hopper
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@full_configs
def test_tma_path_on_hopper_at_4096(dtype):
    seed = fresh_seed()
    a, b = operands(4096, 4096, 4096, dtype)
    assert mt.path_for(a, b) == "tma", mt.tma_refusal(a, b)
    out = poisoned_like(torch.empty(4096, 4096, dtype=dtype, device=DEVICE))
    mt.matmul_tma(a, b, out=out)
    # (the autotuner itself is behind the spy here: its chosen config is not at hand)
    assert_matches(out, a, b, msg=f"seed={seed}")


@requires_hopper
@pytest.mark.skipif(not mt.HAS_WARP_SPECIALIZE, reason="this Triton has no warp_specialize")
@full_configs
def test_warp_specialized_tma_on_hopper():
    """Opt-in: the benchmark records a failure here as a row instead of stopping. If this
    test fails to compile, the installed Triton cannot warp-specialize this loop on Hopper."""
    seed = fresh_seed()
    m, n, k = RAGGED_ALIGNED
    a, b = operands(m, n, k, torch.bfloat16)
    out = mt.matmul_tma(a, b, warp_specialize=True)
    assert_matches(out, a, b, msg=f"seed={seed}")


# ---- figures/matmul_tma.py: values without data, and on made-up rows -------------------------


def fake_row(impl, dtype, n, p50, spread=0.01, **extra):
    t = {"p20": p50 * (1 - spread), "p50": p50, "p80": p50 * (1 + spread), "reps": 10}
    return {"impl": impl, "dtype": dtype, "m": n, "n": n, "k": n, "flops": 2 * n**3,
            "bytes": 6 * n * n, "time_s": t, **extra}  # fmt: skip


def fake_docs(rows):
    provenance = {"gpu": "Some GPU", "triton": "3.6.0", "torch": "2.11", "date": "2026-12-01T00"}
    return {"matmul_tma": {"rows": rows, "provenance": provenance, "ceilings": {}}}


def value(spec: str, docs: dict):
    """The unformatted value ``spec`` (``KIND NAME=VALUE ...``, as a page writes it) names."""
    from scripts.book import render

    return render.compute(render.parse_use(spec.split()), docs)


def chosen(kind: str, docs: dict, nth: int = 0, n: str | None = None) -> str:
    """What lesson 13's ``nth`` ``choose`` that reads ``kind`` shows on ``docs`` (at ``n``
    instead of 4096 where given)."""
    from scripts.book import render
    from tests.site.support import page_choice

    body = page_choice("performance/13-autotuning.md", kind, nth)
    return render.choose_text(body.replace("4096", n) if n else body, {"h100": docs})


def test_values_say_not_measured_without_data():
    import itertools

    from figures import matmul_tma as fig
    from scripts.book import render

    for key, val in fig.VALUES.items():
        params = render.parameters(val.compute)
        choices = [p.kind if isinstance(p.kind, tuple) else fig.SIZES for p in params.values()]
        for combo in itertools.product(*choices):
            result = val.compute({}, **dict(zip(params, combo, strict=True)))
            assert result is None, (key, combo)
            assert val.text(result) == "not measured", key
    devices = {"some-gpu": {"other": {}}}
    assert render.value_text("some-gpu", "matmul_tma.vs_cublas impl=tma", devices) == (
        "not measured"
    )


def test_values_on_made_up_rows():
    cfg = {"block_m": 128, "block_n": 256, "block_k": 64, "num_warps": 8, "num_stages": 3}
    rows = [
        fake_row("tma", "float16", 4096, 1.00e-3, path="tma", **cfg),
        fake_row("cublas", "float16", 4096, 1.05e-3),
        fake_row("lesson09", "float16", 4096, 1.20e-3),
        fake_row("tma", "bfloat16", 4096, 1.10e-3, path="tma", **cfg),
        fake_row("cublas", "bfloat16", 4096, 1.00e-3),
        fake_row("tma", "float16", 8192, 8.00e-3, spread=0.05, path="tma"),
        fake_row("cublas", "float16", 8192, 8.10e-3, spread=0.05),
        fake_row("tma_ws", "bfloat16", 4096, 1.0),
    ]
    del rows[-1]["time_s"]  # a failed row: no time, the exception instead
    rows[-1]["failure"] = "CompilationError: no warp specialization here"
    docs = fake_docs(rows)
    fp16 = "dtype=float16 n=4096"
    assert value(f"matmul_tma.ratio of=tma to=cublas {fp16}", docs) == pytest.approx(1.05)
    assert value(f"matmul_tma.ratio of=tma to=lesson09 {fp16}", docs) == pytest.approx(1.2)
    assert value(f"matmul_tma.cell impl=pointers {fp16}", docs) is None  # no such row
    # Words by the tie rule (spreads of 1% each, widened by the 1% floor): 1.05x with
    # ranges 2% apart is faster, 0.91x slower, 1.0125x with 5% spreads a tie.
    assert value(f"matmul_tma.compare of=tma to=cublas {fp16}", docs) == "faster than"
    assert value("matmul_tma.compare of=tma to=cublas dtype=bfloat16 n=4096", docs) == (
        "slower than"
    )
    assert value("matmul_tma.compare of=tma to=cublas dtype=float16 n=8192", docs) == ("as fast as")
    assert value(f"matmul_tma.compare of=tma to=pointers {fp16}", docs) is None  # no row
    assert value("matmul_tma.vs_cublas impl=tma", docs) == (
        "faster than cuBLAS at fp16 4096³; as fast as cuBLAS at fp16 8192³; "
        "slower than cuBLAS at bf16 4096³"
    )
    assert value("matmul_tma.vs_cublas impl=tma_ws", docs) is None  # its one row failed
    assert value("matmul_tma.ws_status", docs).startswith("failed (CompilationError")
    assert value("matmul_tma.cell impl=tma_ws dtype=bfloat16 n=4096", docs) is None  # failed
    assert value(f"matmul_tma.regs impl=tma {fp16}", docs) is None  # not recorded
    c = value(f"matmul_tma.cell impl=tma {fp16}", docs)
    assert c == f"{2 * 4096**3 / 1e-3 / 1e12:.0f} TFLOP/s (105.0%)"
    assert value(f"matmul_tma.cell impl=cublas {fp16}", docs).endswith("TFLOP/s")
    assert value("matmul_tma.cell impl=tma dtype=float16 n=8192", docs).endswith("(101.2%)")
    rows[4] = fake_row("cublas", "bfloat16", 4096, 1.00e-3, spread=0.2)
    rows[0] = fake_row("tma", "float16", 4096, 1.00e-3, path="tma", n_regs=160, **cfg)
    rows[1] = fake_row("cublas", "float16", 4096, 1.01e-3)
    docs = fake_docs(rows)
    assert (
        value("matmul_tma.vs_cublas impl=tma", docs) == "as fast as cuBLAS at all 3 shapes measured"
    )
    assert value(f"matmul_tma.regs impl=tma {fp16}", docs) == 160


def test_epilogue_values_on_made_up_rows():
    def epi(impl, n, p50):
        return {"impl": impl, "m": n, "n": n, "k": n, "time_s": {"p50": p50}}

    rows = [
        epi("tma_fused", 4096, 1.00), epi("lesson09_fused", 4096, 1.10),
        epi("cublas_eager", 4096, 1.20), epi("tma_plain", 4096, 0.90), epi("cublas", 4096, 0.88),
        epi("tma_fused", 8192, 8.0), epi("cublas_eager", 8192, 9.6),
    ]  # fmt: skip
    docs = {"matmul_tma_epilogue": {"rows": rows}}
    ratio = "matmul_tma.epilogue_ratio"
    assert value(f"{ratio} of=cublas_eager to=tma_fused n=4096", docs) == pytest.approx(1.2)
    assert value(f"{ratio} of=cublas_eager to=lesson09_fused n=4096", docs) == pytest.approx(
        1.2 / 1.1
    )
    assert value(f"{ratio} of=cublas to=tma_plain n=4096", docs) == pytest.approx(0.88 / 0.9)
    extra = "matmul_tma.epilogue_extra of=tma_fused to=tma_plain n=4096"
    assert value(extra, docs) == pytest.approx(1 / 0.9 - 1)
    assert value(f"{ratio} of=cublas_eager to=lesson09_fused n=8192", docs) is None  # no row
    from figures import matmul_tma as fig

    assert fig.epilogue_added(docs, "tma_fused", "tma_plain", 4096) == pytest.approx(0.1)
    assert fig.epilogue_added(docs, "tma_fused", "tma_plain", 8192) is None
    # No config recorded: lesson 13's sentence says what the configs would settle.
    docs["matmul_tma_epilogue"].update(provenance={}, benchmark="matmul_tma_epilogue")
    assert "would settle" in chosen("matmul_tma.epilogue_config", docs)
    assert value("matmul_tma.epilogue_config impl=tma_fused n=4096", {}) is None


def test_epilogue_words_and_configs_on_made_up_rows():
    cfg = {"block_m": 128, "block_n": 256, "block_k": 64, "num_warps": 8, "num_stages": 3}

    def epi(impl, n, p50, spread=0.01, **extra):
        t = {"p20": p50 * (1 - spread), "p50": p50, "p80": p50 * (1 + spread), "reps": 10}
        return {"impl": impl, "m": n, "n": n, "k": n, "time_s": t, **extra}

    rows = [
        epi("tma_fused", 4096, 1.00, **cfg), epi("tma_plain", 4096, 0.90, **cfg),
        epi("cublas_eager", 4096, 1.20),
        epi("tma_fused", 8192, 8.0, **cfg), epi("tma_plain", 8192, 7.9, spread=0.05,
                                               **{**cfg, "num_stages": 4}),
    ]  # fmt: skip
    from scripts.book import render

    docs = {"matmul_tma_epilogue": {"rows": rows, "ceilings": {}, "provenance": {}}}
    vs = "matmul_tma.epilogue_vs"
    assert value(f"{vs} of=tma_fused to=tma_plain n=4096", docs) == "slower than"
    assert value(f"{vs} of=tma_fused to=cublas_eager n=4096", docs) == "faster than"
    assert value(f"{vs} of=tma_fused to=tma_plain n=8192", docs) == "as fast as"
    assert value(f"{vs} of=tma_fused to=cublas_eager n=8192", docs) is None  # no row
    # What the epilogue costs, in lesson 13's sentences: a time where the fused call is slower
    # beyond the spreads, else that the run cannot tell (the plain call's spread, the margin).
    cost = "matmul_tma.rounds"
    assert chosen(cost, docs, 0) == (
        "At 4096³ the fused call takes 100000 µs longer than the plain one (11.1%)."
    )
    said = chosen(cost, docs, 1)
    assert said.startswith("At 8192³ the fused call is as fast as the plain one by the tie rule")
    assert "7505000–8295000 µs" in said and "1.0%" in said
    with pytest.raises(render.RenderError, match="matmul_tma.epilogue_vs"):
        chosen(cost, {}, 1)
    assert chosen("matmul_tma.epilogue_config", docs) == (
        "At 4096³ the autotuner ran the same config for both calls, 128×256×64, 8 warps, 3 stages."
    )
    assert chosen("matmul_tma.epilogue_config", docs, n="8192") == (
        "At 8192³ the autotuner ran 128×256×64, 8 warps, 3 stages for the fused call and "
        "128×256×64, 8 warps, 4 stages for the plain one."
    )


# ---- the autotuners' key: M by bucket ---------------------------------------------------


@pytest.mark.parametrize("path", ["pointers", pytest.param("tma", marks=requires_tma)])
def test_a_new_m_in_the_same_bucket_does_not_retune(path, monkeypatch):
    """Both kernels key on M's bucket (m_bucket), not M: M = 24 tunes, M = 32 reuses its
    winner (bucket 32), M = 40 (bucket 64) tunes again."""
    name = PATH_KERNEL[path]
    src = getattr(mt, name)
    assert "M" not in src.keys and "M_BUCKET" in src.keys
    small = [mt.INTERPRETER_CONFIG, mt.make_config(16, 32, 16, 4, 1)]
    configs = small if not ON_GPU else [mt.FALLBACK_CONFIG, mt.make_config(64, 64, 32, 4, 3)]
    tuner, timings = counting_autotuner(mt, name, configs)
    monkeypatch.setattr(mt, name, tuner)
    seed = fresh_seed()
    runs = []
    for m in (24, 32, 40, 24):
        a, b = operands(m, 48, 40, torch.float16)
        assert_matches(mt.matmul_tma(a, b, path=path), a, b, msg=f"seed={seed} M={m}")
        runs.append(len(timings))
    assert runs == [2, 2, 4, 4], runs
    assert mt.m_bucket(24) == mt.m_bucket(32) == 32 and mt.m_bucket(40) == 64
