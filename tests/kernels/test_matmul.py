"""Tiled matmul against its float64 reference: ragged shapes, every dtype, strides, both
program orders, the epilogue, every refusal; and the tile-load model of lesson 09.

Tolerance, per element, against the float64 result ``ref`` of the same (rounded) inputs:

    |out - ref| <= 2 u |ref| + 2 (t + (K + 4) 2**-24) (|a| @ |b| + |bias|) + 2**-24

u is the output's rounding unit (fp32 2**-24, fp16 2**-11, bf16 2**-8; the CPU
interpreter truncates to bf16, so 2**-7 there), t the input rounding of TF32 (2**-9, for
fp32 on a GPU; 0 elsewhere: fp16/bf16 products are exact in the tensor cores, and the
interpreter multiplies fp32 in fp32), and (K + 4) 2**-24 bounds float32 accumulation
over K terms, GELU's slope (< 1.13) and its float32 evaluation. The last term covers
fp16's subnormal spacing. A missing or doubled K step, or a wrong tile, is off by about
the size of the values and fails.
"""

import numpy as np
import pytest
import torch
import triton

from figures import matmul as model
from kernels import matmul as mm
from tests.support import (
    DEVICE,
    ON_GPU,
    LaunchSpy,
    assert_within,
    big_gpu_memory,
    fresh_seed,
    matmul_allowed,
    poisoned_like,
    rand,
    requires_gpu,
    requires_two_gpus,
)

DTYPES = [torch.float16, torch.bfloat16, torch.float32]
H100_SHARED_MEMORY = 232_448  # bytes per program, as Triton reports it for an H100


def config(bm, bn, bk, warps=4, stages=1):
    return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk}, warps, stages)


def assert_matches(out, a, b, bias=None, activation=None, msg=""):
    """out against the float64 reference within the bound stated at the top."""
    bias64 = None if bias is None else bias.double()
    ref = mm.reference(a.double(), b.double(), bias64, activation)  # float64 in and out
    tf32 = 2**-9 if a.dtype == torch.float32 and ON_GPU else 0.0
    assert out.dtype == a.dtype, msg
    assert_within(out, ref, matmul_allowed(a, b, ref, bias, tf32), msg)


# ---- results: shapes, dtypes, epilogue --------------------------------------------------


# --8<-- [start:ragged]
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize(
    "m, n, k", [(33, 47, 65), (1, 1, 1), (16, 16, 16), (64, 32, 48), (31, 17, 130), (5, 100, 3)]
)
def test_matches_reference(m, n, k, dtype):
    seed = fresh_seed()  # fresh random inputs every run
    a, b = rand((m, k), dtype), rand((k, n), dtype)
    out = poisoned_like(torch.empty(m, n, dtype=dtype, device=DEVICE))  # NaN: unwritten fails
    assert mm.matmul(a, b, out=out) is out
    assert_matches(out, a, b, msg=f"seed={seed}")


# --8<-- [end:ragged]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize(
    "with_bias, activation", [(True, None), (False, "gelu"), (True, "gelu")], ids=str
)
def test_epilogue(with_bias, activation, dtype):
    seed = fresh_seed()
    a, b = rand((33, 65), dtype), rand((65, 47), dtype)
    bias = rand(47, dtype) * 4 if with_bias else None  # large enough to move GELU around
    out = mm.matmul(a, b, bias=bias, activation=activation)
    assert_matches(out, a, b, bias, activation, msg=f"seed={seed}")


def test_gelu_is_the_exact_erf_form():
    """Tanh-approximate GELU differs from the erf form by up to ~1e-3 near |x| = 2: fp32 sees it."""
    seed = fresh_seed()
    # a (128, 1) @ b (1, 16): out = a. Multiples of 1/16 in [-4, 4) have few enough bits to
    # pass through TF32 (a GPU's default for fp32 dot) unrounded, so only GELU differs.
    a = (torch.arange(-64, 64, device=DEVICE, dtype=torch.float32) / 16)[:, None]
    b = torch.ones(1, 16, device=DEVICE)
    out = mm.matmul(a, b, activation="gelu")
    exact = torch.nn.functional.gelu(a.double()).expand(128, 16)
    tanh = torch.nn.functional.gelu(a.double(), approximate="tanh").expand(128, 16)
    assert (out.double() - exact).abs().max() < 1e-6, f"seed={seed}"
    assert (out.double() - tanh).abs().max() > 1e-4, f"seed={seed}"


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_k_zero_gives_the_epilogue_of_zero(dtype):
    a, b = rand((5, 0), dtype), rand((0, 7), dtype)
    out = mm.matmul(a, b)
    assert torch.equal(out, torch.zeros(5, 7, dtype=dtype, device=DEVICE))
    bias = rand(7, dtype)
    out = mm.matmul(a, b, bias=bias, activation="gelu")
    assert_matches(out, a, b, bias, "gelu")  # gelu(bias) in every row
    assert torch.equal(out, out[:1].expand(5, 7))


@pytest.mark.parametrize("m, n", [(0, 5), (4, 0), (0, 0)])
def test_empty_output_without_a_launch(m, n, monkeypatch):
    spies = [LaunchSpy(mm.matmul_kernel), LaunchSpy(mm.matmul_autotuned)]
    monkeypatch.setattr(mm, "matmul_kernel", spies[0])
    monkeypatch.setattr(mm, "matmul_autotuned", spies[1])
    a, b = rand((m, 3)), rand((3, n))
    out = mm.matmul(a, b)
    assert out.shape == (m, n) and out.dtype == a.dtype
    given = torch.empty(m, n, device=DEVICE)
    assert mm.matmul(a, b, out=given, config=config(16, 16, 16)) is given
    assert spies[0].devices == [] and spies[1].devices == []


# ---- strides: transposed views, slices, broadcasts ---------------------------------------


def strided(kind, m, n, k, dtype):
    """(a, b, bias, out) with the layout ``kind`` names; all read or written in place."""
    a, b, bias, out = rand((m, k), dtype), rand((k, n), dtype), rand(n, dtype), None
    if kind in ("a-transposed", "both-transposed"):
        a = rand((k, m), dtype).t()
    if kind in ("b-transposed", "both-transposed"):
        b = rand((n, k), dtype).t()  # nn.Linear's weight layout: x @ w.t()
    if kind == "sliced":
        a = rand((m + 3, 2 * k), dtype)[3:, ::2]
        b = rand((k, 3 * n), dtype)[:, 1::3]
        bias = rand(2 * n, dtype)[::2]
    if kind == "broadcast":
        a = rand((1, k), dtype).expand(m, k)  # stride 0: every row the same
        bias = rand((), dtype).expand(n)
    if kind == "out-transposed":
        out = torch.empty(n, m, dtype=dtype, device=DEVICE).t()
    if kind == "out-in-a-wider-buffer":
        out = torch.empty(m, n + 9, dtype=dtype, device=DEVICE)[:, 4 : 4 + n]
    return a, b, bias, out


LAYOUTS = [
    "a-transposed", "b-transposed", "both-transposed", "sliced", "broadcast",
    "out-transposed", "out-in-a-wider-buffer",
]  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("kind", LAYOUTS)
def test_strided_operands_are_read_in_place(kind, dtype):
    seed = fresh_seed()
    a, b, bias, out = strided(kind, 37, 29, 41, dtype)
    if out is not None:
        out.fill_(float("nan"))
    result = mm.matmul(a, b, bias=bias, activation="gelu", out=out)
    assert out is None or result is out
    assert_matches(result, a, b, bias, "gelu", msg=f"seed={seed} {kind}")


# ---- program order and explicit configs ---------------------------------------------------


@pytest.mark.parametrize("group_m", [1, 2, 3, 4, 8, 64])
def test_every_program_order_covers_every_tile(group_m):
    """100 x 70 output in 32 x 16 tiles: 4 x 5 tiles, so group_m = 3 leaves a short group."""
    seed = fresh_seed()
    a, b = rand((100, 40)), rand((40, 70))
    out = poisoned_like(torch.empty(100, 70, device=DEVICE))
    mm.matmul(a, b, out=out, group_m=group_m, config=config(32, 16, 16))
    assert_matches(out, a, b, msg=f"seed={seed} group_m={group_m}")


@pytest.mark.parametrize(
    "cfg",
    [config(16, 16, 16), config(16, 64, 32, 2, 3), config(64, 16, 64, 4, 2), config(32, 32, 128)],
    ids=lambda c: "x".join(str(v) for v in c.kwargs.values()),
)
def test_explicit_configs(cfg):
    seed = fresh_seed()
    a, b = rand((70, 150), torch.float16), rand((150, 45), torch.float16)
    bias = rand(45, torch.float16)
    out = mm.matmul(a, b, bias=bias, activation="gelu", config=cfg)
    assert_matches(out, a, b, bias, "gelu", msg=f"seed={seed}")


def test_configs_fit_hopper_shared_memory_and_pass_the_checks(monkeypatch):
    for cfg in mm.CONFIGS + [mm.FALLBACK_CONFIG]:
        mm._check_config(cfg)
        assert mm.shared_memory_bytes(cfg, 2) <= H100_SHARED_MEMORY, cfg
    assert 8 <= len(mm.CONFIGS) <= 12
    # fp32 needs twice the bytes: the pruner keeps only those that still fit
    monkeypatch.setattr(mm, "shared_memory_limit", lambda device: H100_SHARED_MEMORY)
    fp16, fp32 = rand((2, 2), torch.float16), rand((2, 2))
    assert mm.configs_that_fit(mm.CONFIGS, {"a_ptr": fp16}) == mm.CONFIGS
    kept = mm.configs_that_fit(mm.CONFIGS, {"a_ptr": fp32})
    assert 0 < len(kept) < len(mm.CONFIGS)
    assert all(mm.shared_memory_bytes(c, 4) <= H100_SHARED_MEMORY for c in kept)
    # nothing fits: the small fallback (32 KB in fp32) instead of an autotuner error
    monkeypatch.setattr(mm, "shared_memory_limit", lambda device: 48 * 1024)
    assert mm.configs_that_fit(mm.CONFIGS, {"a_ptr": fp32}) == [mm.FALLBACK_CONFIG]


def test_the_interpreter_tunes_nothing():
    """One config under the interpreter: no do_bench on the CPU, and tests stay fast."""
    if not ON_GPU:
        assert mm.matmul_autotuned.configs == [mm.INTERPRETER_CONFIG]
    else:
        assert mm.matmul_autotuned.configs == mm.CONFIGS


# ---- the tile-load model (figures/matmul.py) ------------------------------------------------


def test_program_order_model_row_major_and_grouped():
    assert model.program_tiles(3, 4, 1) == [(m, n) for m in range(3) for n in range(4)]
    # group_m = 2 on 3 x 4 tiles: down 2 rows per column, then the short last group
    assert model.program_tiles(3, 4, 2) == [
        (0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2), (0, 3), (1, 3),
        (2, 0), (2, 1), (2, 2), (2, 3),
    ]  # fmt: skip
    for shape in [(9, 9), (4, 5), (7, 3), (1, 6)]:
        for g in (1, 2, 3, 8):
            tiles = model.program_tiles(*shape, g)
            assert sorted(tiles) == [(m, n) for m in range(shape[0]) for n in range(shape[1])]


def test_tile_load_model_reproduces_the_9x9_example():
    """9 x 9 output tiles, K = 9 tiles, the first 9 programs: row-major reads a row of a
    (9 tiles) and all of b (81), 90 in all; group_m = 3 covers a 3 x 3 square of outputs
    and reads 3 rows of a and 3 columns of b, 27 + 27 = 54."""
    assert model.tile_loads(9, 9, 9, group_m=1, wave=9, waves=1) == (9, 81)
    assert model.tile_loads(9, 9, 9, group_m=3, wave=9, waves=1) == (27, 27)
    # the whole grid in waves of 9: every wave costs the same in each order
    assert sum(model.tile_loads(9, 9, 9, 1, 9)) == 9 * 90
    assert sum(model.tile_loads(9, 9, 9, 3, 9)) == 9 * 54
    # no sharing (waves of one program): the first 9 programs read 9 * 18 tiles either way
    assert model.tile_loads(9, 9, 9, 1, 1, waves=9) == model.tile_loads(9, 9, 9, 3, 1, waves=9)
    assert sum(model.tile_loads(9, 9, 9, 3, 1, waves=9)) == 162
    # one wave of everything: each tile read once, whatever the order
    assert model.tile_loads(9, 9, 9, 1, 81) == model.tile_loads(9, 9, 9, 3, 81) == (81, 81)


def test_modelled_bytes_at_8192():
    row = {"m": 8192, "n": 8192, "k": 8192, "block_m": 128, "block_n": 256, "block_k": 64}
    grouped = model.modelled_bytes({**row, "group_m": 8}, 132)
    row_major = model.modelled_bytes({**row, "group_m": 1}, 132)
    compulsory = 2 * 8192 * 8192 * 2
    assert compulsory < grouped < row_major


# ---- neg views ------------------------------------------------------------------------------


def test_reads_negated_views_as_their_values():
    seed = fresh_seed()
    a, b, bias = rand((20, 30)), rand((30, 10)), rand(10)
    an, bn, biasn = torch._neg_view(a), torch._neg_view(b), torch._neg_view(bias)
    assert an.is_neg()
    out = mm.matmul(an, bn, bias=biasn)
    assert_matches(out, -a, -b, -bias, msg=f"seed={seed}")
    c = torch.randn(30, 10, dtype=torch.complex64, device=DEVICE)
    imag = c.conj().imag  # the public way to get a neg view (and a strided one)
    assert imag.is_neg()
    assert_matches(mm.matmul(a, imag), a, -c.imag, msg=f"seed={seed}")


def test_refuses_a_negated_out():
    with pytest.raises(ValueError, match="matmul: out is a view with the negative bit"):
        mm.matmul(rand((4, 3)), rand((3, 5)), out=torch._neg_view(torch.empty(4, 5, device=DEVICE)))


# ---- autograd: no backward, so no silent wrong gradients ------------------------------------


@pytest.mark.parametrize("which", ["a", "b", "bias"])
def test_refuses_inputs_that_require_grad(which):
    args = {"a": rand((4, 3)), "b": rand((3, 5)), "bias": rand(5)}
    args[which].requires_grad_()
    with pytest.raises(ValueError, match=f"matmul: {which} requires grad"):
        mm.matmul(args["a"], args["b"], bias=args["bias"])


@pytest.mark.parametrize("mode", [torch.no_grad, torch.inference_mode])
def test_inputs_that_require_grad_are_fine_without_grad_mode(mode):
    seed = fresh_seed()
    a, b = rand((9, 7)).requires_grad_(), rand((7, 5)).requires_grad_()
    out = torch.zeros(9, 5, device=DEVICE, requires_grad=True)
    with mode():
        result = mm.matmul(a, b)
        mm.matmul(a, b, out=out)
    assert not result.requires_grad
    assert_matches(result, a.detach(), b.detach(), msg=f"seed={seed}")
    assert torch.equal(out.detach(), result)


def test_refuses_out_that_requires_grad():
    out = torch.zeros(4, 5, device=DEVICE, requires_grad=True)
    with pytest.raises(ValueError, match="matmul: out requires grad"):
        mm.matmul(rand((4, 3)), rand((3, 5)), out=out)


def test_out_write_bumps_version_so_a_stale_saved_tensor_fails_at_backward():
    a, b = rand((4, 3)), rand((3, 5))
    x = rand((4, 5))
    w = rand((4, 5)).requires_grad_()
    z = w * x  # saves x
    version = x._version
    mm.matmul(a, b, out=x)
    assert x._version > version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


# ---- memory: out may not overlap anything ---------------------------------------------------


@pytest.mark.parametrize("which", ["a", "b", "bias"])
def test_refuses_out_overlapping_an_input(which):
    buf = rand(200)
    args = {"a": rand((4, 3)), "b": rand((3, 5)), "bias": rand(5)}
    shapes = {"a": (4, 3), "b": (3, 5), "bias": (5,)}
    numel = int(np.prod(shapes[which]))
    args[which] = buf[10 : 10 + numel].view(shapes[which])
    out = buf[12:32].view(4, 5)  # shares bytes with the input, starts elsewhere
    with pytest.raises(ValueError, match=f"matmul: out overlaps {which}"):
        mm.matmul(args["a"], args["b"], bias=args["bias"], out=out)


def test_refuses_out_that_is_an_input():
    a = rand((5, 5))
    with pytest.raises(ValueError, match="matmul: out overlaps a"):
        mm.matmul(a, rand((5, 5)), out=a)


def test_catches_overlap_through_another_storage():
    b = rand((3, 5))
    alias = torch.from_dlpack(b)  # same bytes, a different storage object
    with pytest.raises(ValueError, match="matmul: out overlaps b"):
        mm.matmul(rand((3, 3)), b, out=alias)


def test_refuses_out_whose_elements_share_memory():
    out = torch.empty(1, 5, device=DEVICE).expand(4, 5)
    with pytest.raises(ValueError, match="matmul: out has strides .* share memory"):
        mm.matmul(rand((4, 3)), rand((3, 5)), out=out)


def test_accepts_a_disjoint_out_in_the_same_buffer():
    seed = fresh_seed()
    buf = rand(12 + 15 + 20)
    a, b, out = buf[:12].view(4, 3), buf[12:27].view(3, 5), buf[27:].view(4, 5)
    before = buf.clone()
    mm.matmul(a, b, out=out)
    assert_matches(out, before[:12].view(4, 3), before[12:27].view(3, 5), msg=f"seed={seed}")
    assert torch.equal(buf[:27], before[:27])


def test_inputs_may_overlap_each_other():
    seed = fresh_seed()
    x = rand((24, 24))
    assert_matches(mm.matmul(x, x), x, x, msg=f"seed={seed}")
    assert_matches(mm.matmul(x[:, :20], x[4:, :]), x[:, :20], x[4:, :], msg=f"seed={seed}")


# ---- devices --------------------------------------------------------------------------------


def test_rejects_cpu_tensors_when_not_interpreting(monkeypatch):
    monkeypatch.setattr(mm, "_INTERPRET", False)
    with pytest.raises(ValueError, match="matmul: a must be on a CUDA device"):
        mm.matmul(torch.ones(2, 2), torch.ones(2, 2))


@requires_two_gpus
@pytest.mark.parametrize("use_config", [False, True], ids=["autotuned", "explicit-config"])
def test_runs_on_a_gpu_that_is_not_the_current_one(use_config, monkeypatch):
    seed = fresh_seed()
    name = "matmul_kernel" if use_config else "matmul_autotuned"
    spy = LaunchSpy(getattr(mm, name), expect_device=1)
    monkeypatch.setattr(mm, name, spy)
    with torch.cuda.device(0):
        a, b = rand((300, 200), device="cuda:1"), rand((200, 100), device="cuda:1")
        bias = rand(100, device="cuda:1")
        cfg = config(64, 64, 32, 4, 3) if use_config else None
        out = mm.matmul(a, b, bias=bias, activation="gelu", config=cfg)
        assert torch.cuda.current_device() == 0  # the wrapper put it back
    assert spy.devices == [1]
    assert out.device == a.device
    assert_matches(out, a, b, bias, "gelu", msg=f"seed={seed}")


@requires_two_gpus
def test_refuses_tensors_on_two_gpus():
    a, b0, b1 = (
        rand((4, 3), device="cuda:0"),
        rand((3, 5), device="cuda:0"),
        rand((3, 5), device="cuda:1"),
    )
    with pytest.raises(ValueError, match="matmul: b is on cuda:1, but a is on cuda:0"):
        mm.matmul(a, b1)
    with pytest.raises(ValueError, match="matmul: bias is on cuda:1"):
        mm.matmul(a, b0, bias=rand(5, device="cuda:1"))
    with pytest.raises(ValueError, match="matmul: out must be"):
        mm.matmul(a, b0, out=torch.empty(4, 5, device="cuda:1"))


# ---- knobs ----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [True, 8.0, "8", None, np.int64(8)], ids=repr)
def test_group_m_must_be_an_exact_int(value):
    with pytest.raises(TypeError, match="matmul: group_m must be an int"):
        mm.matmul(rand((4, 3)), rand((3, 5)), group_m=value)


@pytest.mark.parametrize("value", [0, -1, 65, 2**70])
def test_rejects_bad_group_m(value):
    with pytest.raises(ValueError, match=r"matmul: group_m must be in \[1, 64\]"):
        mm.matmul(rand((4, 3)), rand((3, 5)), group_m=value)


def bad_config(**change):
    kwargs = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}
    opts = {"num_warps": 4, "num_stages": 2}
    for key, value in change.items():
        (opts if key in opts or key in ("num_ctas", "maxnreg") else kwargs)[key] = value
    return triton.Config({k: v for k, v in kwargs.items() if v is not None}, **opts)


@pytest.mark.parametrize(
    "cfg, error, match",
    [
        ({"BLOCK_M": 32}, TypeError, "config must be a triton.Config"),
        (bad_config(BLOCK_K=None), ValueError, "must set exactly BLOCK_M, BLOCK_N and BLOCK_K"),
        (bad_config(GROUP_M=8), ValueError, "must set exactly BLOCK_M, BLOCK_N and BLOCK_K"),
        (bad_config(BLOCK_M=32.0), TypeError, "config BLOCK_M must be an int"),
        (bad_config(BLOCK_N=True), TypeError, "config BLOCK_N must be an int"),
        (bad_config(num_warps=np.int64(4)), TypeError, "config num_warps must be an int"),
        (bad_config(BLOCK_M=48), ValueError, r"BLOCK_M must be a power of two in \[16, 256\]"),
        (bad_config(BLOCK_N=8), ValueError, r"BLOCK_N must be a power of two in \[16, 256\]"),
        (bad_config(BLOCK_K=512), ValueError, r"BLOCK_K must be a power of two in \[16, 256\]"),
        (bad_config(num_warps=3), ValueError, r"num_warps must be a power of two in \[1, 16\]"),
        (bad_config(num_warps=32), ValueError, r"num_warps must be a power of two in \[1, 16\]"),
        (bad_config(num_stages=0), ValueError, r"num_stages must be an int in \[1, 8\]"),
        (bad_config(num_stages=9), ValueError, r"num_stages must be an int in \[1, 8\]"),
        (bad_config(num_ctas=2), ValueError, "only the block sizes, num_warps and num_stages"),
        (bad_config(maxnreg=128), ValueError, "only the block sizes, num_warps and num_stages"),
        (
            bad_config(BLOCK_M=256, BLOCK_N=256, num_warps=4),
            ValueError,
            "512 accumulator elements .* more than 128",
        ),
    ],
    ids=[
        "dict", "missing-key", "extra-key", "float", "bool", "numpy-int", "not-power-of-two",
        "block-too-small", "block-too-large", "warps-not-power-of-two", "too-many-warps",
        "no-stages", "too-many-stages", "num-ctas", "maxnreg", "spills",
    ],
)  # fmt: skip
def test_rejects_bad_config(cfg, error, match, monkeypatch):
    spy = LaunchSpy(mm.matmul_kernel)
    monkeypatch.setattr(mm, "matmul_kernel", spy)
    with pytest.raises(error, match=f"^matmul: .*{match}"):
        mm.matmul(rand((4, 3)), rand((3, 5)), config=cfg)
    assert spy.devices == []


def test_rejects_a_config_that_needs_more_shared_memory_than_the_gpu_has(monkeypatch):
    spy = LaunchSpy(mm.matmul_kernel)
    monkeypatch.setattr(mm, "matmul_kernel", spy)
    monkeypatch.setattr(mm, "shared_memory_limit", lambda device: 100_000)
    big = config(128, 256, 64, 8, 4)  # 4 * (128 + 256) * 64 * 2 = 196,608 bytes in fp16
    with pytest.raises(ValueError, match="matmul: config needs about 196,608 bytes"):
        mm.matmul(rand((4, 3), torch.float16), rand((3, 5), torch.float16), config=big)
    assert spy.devices == []


# ---- hostile inputs: every check raises before anything is launched -------------------------


def meta(*shape):
    return torch.empty(shape, device="meta")


def ab(bias=None):
    """A valid (2, 3) @ (3, 4) pair, with ``bias``."""
    return rand((2, 3)), rand((3, 4)), bias


@pytest.mark.parametrize(
    "make_args, error, match",
    [
        (lambda: ([[1.0]], rand((1, 1)), None), TypeError, "a must be a torch.Tensor"),
        (lambda: (rand((1, 1)), 2.0, None), TypeError, "b must be a torch.Tensor"),
        (lambda: (rand((2, 2), torch.float64),) * 2 + (None,), TypeError, "a has dtype"),
        (lambda: (rand((2, 2)).int(),) * 2 + (None,), TypeError, "a has dtype"),
        (lambda: (rand((2, 2)), rand((2, 2), torch.float16), None), TypeError, "b has dtype"),
        (
            lambda: (torch.randn(2, 2, dtype=torch.complex64, device=DEVICE).conj(),) * 2 + (None,),
            TypeError,
            "a has dtype torch.complex64",
        ),
        (lambda: (rand(4), rand((4, 2)), None), ValueError, r"a must be 2-D, got shape \(4,\)"),
        (lambda: (rand((2, 4)), rand((2, 4, 1)), None), ValueError, "b must be 2-D"),
        (lambda: (rand(()), rand((1, 1)), None), ValueError, "a must be 2-D"),
        (lambda: (rand((2, 4)), rand((5, 3)), None), ValueError, r"b has shape \(5, 3\), but a"),
        (lambda: (meta(2, 2), rand((2, 2)), None), ValueError, "a is a meta tensor"),
        (lambda: (rand((2, 2)), meta(2, 2), None), ValueError, "b is a meta tensor"),
        (lambda: (rand((2, 2)).to_sparse(), rand((2, 2)), None), ValueError, "a must be a dense"),
        (lambda: (rand((2, 2)), rand((2, 2)).to_sparse_csr(), None), ValueError, "b must be a"),
        (lambda: ab([0.0] * 4), TypeError, "bias must be a torch.Tensor"),
        (lambda: ab(rand(4, torch.float16)), TypeError, "bias has dtype"),
        (lambda: ab(rand(5)), ValueError, r"bias must have shape \(4,\)"),
        (lambda: ab(rand((1, 4))), ValueError, r"bias must have shape \(4,\)"),
        (lambda: ab(meta(4)), ValueError, "bias is a meta tensor"),
        (lambda: ab(rand(4).to_sparse()), ValueError, "bias must be a dense tensor"),
    ],
    ids=[
        "a-not-tensor", "b-not-tensor", "float64", "int32", "mixed-dtype", "complex", "a-1d",
        "b-3d", "a-0d", "inner-mismatch", "meta-a", "meta-b", "sparse-a", "sparse-csr-b",
        "bias-not-tensor", "bias-dtype", "bias-length", "bias-2d", "bias-meta", "bias-sparse",
    ],
)  # fmt: skip
@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
def test_rejects_bad_inputs(make_args, error, match, monkeypatch):
    spies = [LaunchSpy(mm.matmul_kernel), LaunchSpy(mm.matmul_autotuned)]
    monkeypatch.setattr(mm, "matmul_kernel", spies[0])
    monkeypatch.setattr(mm, "matmul_autotuned", spies[1])
    a, b, bias = make_args()
    with pytest.raises(error, match=f"^matmul: {match}"):
        mm.matmul(a, b, bias=bias)
    assert spies[0].devices == [] and spies[1].devices == []


@pytest.mark.parametrize("activation", ["relu", "GELU", "gelu_tanh", 1, True])
def test_rejects_unknown_activation(activation):
    with pytest.raises(ValueError, match="matmul: activation must be one of"):
        mm.matmul(rand((2, 3)), rand((3, 4)), activation=activation)


@pytest.mark.parametrize(
    "make_out, error, match",
    [
        (lambda: [[0.0] * 4] * 2, TypeError, "out must be a torch.Tensor"),
        (lambda: rand((4, 2)), ValueError, r"out must be \(2, 4\)"),
        (lambda: rand(8), ValueError, r"out must be \(2, 4\)"),
        (lambda: rand((2, 4), torch.float16), ValueError, r"out must be \(2, 4\)"),
        (lambda: torch.empty(2, 4, device="meta"), ValueError, "out is a meta tensor"),
        (lambda: rand((2, 4)).to_sparse(), ValueError, "out must be a dense tensor"),
    ],
    ids=["not-tensor", "transposed-shape", "flat", "dtype", "meta", "sparse"],
)
def test_rejects_bad_out(make_out, error, match, monkeypatch):
    spy = LaunchSpy(mm.matmul_autotuned)
    monkeypatch.setattr(mm, "matmul_autotuned", spy)
    with pytest.raises(error, match=f"^matmul: {match}"):
        mm.matmul(rand((2, 3)), rand((3, 4)), out=make_out())
    assert spy.devices == []


# ---- on a GPU, at realistic sizes -----------------------------------------------------------


@requires_gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_autotuned_at_realistic_ragged_sizes(dtype):
    seed = fresh_seed()
    a, b = rand((2085, 1041), dtype), rand((1041, 1553), dtype)
    out = poisoned_like(torch.empty(2085, 1553, dtype=dtype, device=DEVICE))
    mm.matmul(a, b, out=out)
    assert_matches(out, a, b, msg=f"seed={seed}")


@requires_gpu
@pytest.mark.parametrize("m", [16, 1000])
def test_llm_shape_with_a_transposed_weight(m):
    seed = fresh_seed()
    x, w = rand((m, 4096), torch.bfloat16), rand((4104, 4096), torch.bfloat16)
    bias = rand(4104, torch.bfloat16)
    out = mm.matmul(x, w.t(), bias=bias, activation="gelu")
    assert_matches(out, x, w.t(), bias, "gelu", msg=f"seed={seed}")


@requires_gpu
def test_every_default_config_at_a_ragged_size():
    """Each config the autotuner may pick, on its own: the tuner only ever runs the fastest."""
    seed = fresh_seed()
    a, b = rand((1000, 700), torch.float16), rand((700, 1500), torch.float16)
    bias = rand(1500, torch.float16)
    for cfg in mm.CONFIGS + [mm.FALLBACK_CONFIG]:
        out = poisoned_like(torch.empty(1000, 1500, dtype=torch.float16, device=DEVICE))
        mm.matmul(a, b, bias=bias, activation="gelu", out=out, group_m=3, config=cfg)
        assert_matches(out, a, b, bias, "gelu", msg=f"seed={seed} {cfg}")


@big_gpu_memory
@requires_gpu
def test_offsets_past_int32_rows():
    """a has 524,588 x 4096 > 2**31 elements: int32 row offsets would wrap at the bottom."""
    m, k = 2**31 // 4096 + 300, 4096
    a = torch.empty(m, k, dtype=torch.float16, device="cuda")
    a[: m // 2].normal_()
    a[m // 2 :].normal_(mean=1.0)  # the rows past the wrap differ from the first rows
    b = rand((k, 16), torch.float16)
    out = mm.matmul(a, b, config=config(128, 16, 64, 4, 3))
    for rows in (slice(0, 64), slice(m - 400, m)):
        assert_matches(out[rows], a[rows], b, msg=f"rows {rows}")
    del a


@big_gpu_memory
@requires_gpu
def test_k_step_past_int32():
    """a = x.t() with x (128, 2**25 + 8): one K step of 64 moves the pointer by 64 * stride
    = 2**31 + 512 elements, which an int32 step would wrap."""
    m = 2**25 + 8
    x = rand((128, m), torch.float16)  # 8.6 GB
    b = rand((128, 16), torch.float16)
    out = mm.matmul(x.t(), b, config=config(64, 16, 64, 4, 2))
    for rows in (slice(0, 64), slice(m - 100, m)):
        assert_matches(out[rows], x.t()[rows], b, msg=f"rows {rows}")
    del x


# ---- lesson 13: num_stages and shared memory ----------------------------------------------


@pytest.mark.parametrize(
    "stages, dtype, expected",
    [
        # stages x (BLOCK_M + BLOCK_N) x BLOCK_K x element bytes, for 128 x 256 x 64 tiles
        (3, torch.bfloat16, 147_456),  # 144 KiB
        (4, torch.bfloat16, 196_608),  # 192 KiB
        (5, torch.bfloat16, 245_760),  # 240 KiB: past an H100's 227 KiB
        (3, torch.float32, 294_912),  # float32 doubles it
    ],
)
def test_shared_memory_bytes_is_stages_times_one_a_and_one_b_tile(stages, dtype, expected):
    elem = torch.empty((), dtype=dtype).element_size()
    assert mm.shared_memory_bytes(config(128, 256, 64, 8, stages), elem) == expected


@requires_gpu
def test_a_config_past_the_gpus_shared_memory_is_refused_by_name(monkeypatch):
    """On the real GPU, with its real limit: the smallest stage count of 128 x 256 x 64 in
    bf16 that does not fit is refused before anything compiles or launches, and the
    message gives both numbers and what to change."""
    limit = mm.shared_memory_limit(torch.cuda.current_device())
    over = [s for s in range(1, mm.MAX_NUM_STAGES + 1)
            if mm.shared_memory_bytes(config(128, 256, 64, 8, s), 2) > limit]  # fmt: skip
    if not over:
        pytest.skip(f"every stage count of 128 x 256 x 64 fits this GPU's {limit:,} bytes")
    cfg = config(128, 256, 64, 8, over[0])
    need = mm.shared_memory_bytes(cfg, 2)
    spy = LaunchSpy(mm.matmul_kernel)
    monkeypatch.setattr(mm, "matmul_kernel", spy)
    a, b = rand((256, 256), torch.bfloat16), rand((256, 256), torch.bfloat16)
    message = (
        f"matmul: config needs about {need:,} bytes of shared memory for torch.bfloat16, "
        f"more than this GPU's {limit:,}; use fewer stages or smaller blocks"
    )
    with pytest.raises(ValueError) as info:
        mm.matmul(a, b, config=cfg)
    assert str(info.value) == message
    assert spy.devices == []
    # One stage fewer fits, and runs.
    fewer = config(128, 256, 64, 8, over[0] - 1)
    assert mm.shared_memory_bytes(fewer, 2) <= limit
    monkeypatch.setattr(mm, "matmul_kernel", spy.kernel)
    assert_matches(mm.matmul(a, b, config=fewer), a, b, msg=str(fewer))


def test_the_autotuner_prunes_by_shared_memory_before_compiling(monkeypatch):
    """configs_that_fit drops, per dtype, the configs over the limit: with a 160 KiB GPU
    the 192 KiB configs (128 x 256 x 64 at 4 stages) go for fp16 and stay out of timing."""
    monkeypatch.setattr(mm, "shared_memory_limit", lambda device: 160 * 1024)
    kept = mm.configs_that_fit(mm.CONFIGS, {"a_ptr": rand((2, 2), torch.float16)})
    dropped = [c for c in mm.CONFIGS if c not in kept]
    assert dropped and all(mm.shared_memory_bytes(c, 2) > 160 * 1024 for c in dropped)
    assert all(mm.shared_memory_bytes(c, 2) <= 160 * 1024 for c in kept)
    assert mm.matmul_autotuned.early_config_prune is mm.configs_that_fit
