"""Tiled matmul against its float64 reference: ragged shapes, every dtype, strides, both
program orders, the epilogue (the wrapper contract is tested in test_contract.py); and the
tile-load model of lesson 09.

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
    counting_autotuner,
    fresh_seed,
    matmul_allowed,
    poisoned_like,
    rand,
    requires_gpu,
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


# ---- the autotuner's key: M by bucket ---------------------------------------------------


@pytest.mark.parametrize(
    "m, bucket", [(1, 16), (16, 16), (17, 32), (300, 512), (512, 512), (513, 1024)]
)
def test_m_bucket_is_the_next_power_of_two_from_16(m, bucket):
    assert mm.m_bucket(m) == bucket


def test_a_new_m_in_the_same_bucket_does_not_retune(monkeypatch):
    """A serving loop's token count M changes on every call: the key holds M's bucket, not
    M, so M = 20 tunes, M = 30 and 32 reuse its winner, and M = 33 (bucket 64) tunes."""
    assert "M" not in mm.matmul_autotuned.keys and "M_BUCKET" in mm.matmul_autotuned.keys
    configs = [mm.INTERPRETER_CONFIG, config(16, 32, 16)]
    tuner, timings = counting_autotuner(mm, "matmul_autotuned", configs)
    monkeypatch.setattr(mm, "matmul_autotuned", tuner)
    seed = fresh_seed()
    runs = []
    for m in (20, 30, 32, 33, 60, 20):
        a, b = rand((m, 40), torch.float16), rand((40, 24), torch.float16)
        assert_matches(mm.matmul(a, b), a, b, msg=f"seed={seed} M={m}")
        runs.append(len(timings))
    assert runs == [2, 2, 2, 4, 4, 4], runs  # one timing per config, once per bucket
    assert sorted(key[0] for key in tuner.cache) == [32, 64]


# ---- the minimal kernel: divisible shapes only (lesson 09 starts there) ------------------

# bf16 only on a GPU: the interpreter multiplies bf16 tiles as raw bit patterns, and the
# minimal kernel has no UPCAST branch to route them through float32.
BF16_DOT_NEEDS_A_GPU = pytest.mark.skipif(
    not ON_GPU, reason="the interpreter multiplies bf16 tiles as raw bit patterns"
)
MINIMAL_DTYPES = [torch.float16, pytest.param(torch.bfloat16, marks=BF16_DOT_NEEDS_A_GPU)]


@pytest.mark.parametrize("dtype", MINIMAL_DTYPES, ids=str)
@pytest.mark.parametrize(
    "m, n, k, blocks",
    [
        (64, 64, 32, (64, 64, 32)),
        (128, 192, 96, (64, 64, 32)),
        (48, 32, 80, (16, 32, 16)),
        (16, 16, 16, (16, 16, 16)),
    ],
)
def test_minimal_matches_reference_on_divisible_shapes(m, n, k, blocks, dtype):
    seed = fresh_seed()
    a, b = rand((m, k), dtype), rand((k, n), dtype)
    c = mm.matmul_minimal(a, b, *blocks)
    assert c.shape == (m, n) and c.dtype == dtype
    assert_matches(c, a, b, msg=f"seed={seed} blocks={blocks}")


@requires_gpu
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_minimal_at_a_realistic_size(dtype):
    seed = fresh_seed()
    a, b = rand((1024, 512), dtype), rand((512, 768), dtype)
    assert_matches(mm.matmul_minimal(a, b), a, b, msg=f"seed={seed}")


def test_minimal_never_computes_a_ragged_edge_tile():
    """M = 70 on 64-row tiles: the grid holds 70 // 64 = 1 row of tiles, so rows 64..69 of
    c are never written (here they stay NaN). The kernel with masks computes them all."""
    seed = fresh_seed()
    a, b = rand((70, 32), torch.float16), rand((32, 64), torch.float16)
    c = torch.full((70, 64), float("nan"), dtype=torch.float16, device=DEVICE)
    mm.minimal_kernel[(1,)](a, b, c, 70, 64, 32, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    assert_matches(c[:64], a[:64], b, msg=f"seed={seed}")
    assert torch.isnan(c[64:]).all(), "the rows past the last whole tile were written"
    assert_matches(mm.matmul(a, b), a, b, msg=f"seed={seed}")


def test_minimal_reads_past_the_rows_on_a_ragged_k():
    """K = 40 on BLOCK_K = 32: the second step loads columns 32..63 of rows that have 40,
    i.e. 24 elements of the next row, and rows 40..63 of b that do not exist. No error, a
    wrong product. (a and b sit at the start of larger buffers, so that the reads past
    their ends stay in memory the test owns.) The kernel with masks gets it right."""
    seed = fresh_seed()
    m, n, k = 64, 64, 40
    a = rand(m * k + 64, torch.float16)[: m * k].view(m, k)
    b = rand(64 * n, torch.float16)[: k * n].view(k, n)
    c = mm.matmul_minimal(a, b, 64, 64, 32)
    ref = mm.reference(a.double(), b.double())
    assert (c.double() - ref).abs().max() > 1.0, f"seed={seed}: a ragged K came out right"
    assert_matches(mm.matmul(a, b), a, b, msg=f"seed={seed}")
