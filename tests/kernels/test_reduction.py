"""Row reduction (sum and max) against its torch reference: ragged shapes, every dtype,
padding with the identity, -inf and NaN rows, strided inputs, poisoned outputs, and what the
compiler makes of the final reduction."""

import json
import math

import pytest
import torch

from kernels import reduction as red
from tests.support import (
    DEVICE,
    big_gpu_memory,
    compiled_python,
    fresh_seed,
    rand,
    requires_gpu,
)

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
OPS = ["sum", "max"]
NAN, INF = float("nan"), float("inf")

# A row sum is checked against the exact (float64) sum s of the row, not bit for bit: any
# order of n - 1 fp32 additions is within (n - 1) * 2**-24 * sum|x| of s, and the one
# rounding to the output dtype adds at most one unit in its last place, 2**-(p - 1) * |s|
# relative (one whole unit, not a half: the interpreter's fp32 -> bf16 conversion truncates).
FP32_UNIT = 2.0**-24
LAST_PLACE = {torch.float32: 2.0**-23, torch.float16: 2.0**-10, torch.bfloat16: 2.0**-7}


def assert_sum_close(out, x, seed):
    assert out.dtype == x.dtype and out.shape == (x.shape[0],)
    x64 = x.double()
    exact = x64.sum(dim=1)
    n = x.shape[1]
    allowed = max(n - 1, 0) * FP32_UNIT * x64.abs().sum(dim=1) + LAST_PLACE[x.dtype] * exact.abs()
    # Where the exact sum is out of the dtype's range, the rounded one is inf, as torch's.
    finite = torch.isfinite(red.reference(x, "sum"))
    assert torch.equal(finite, torch.isfinite(out)), f"seed={seed}"
    err = (out.double() - exact).abs()
    worst = (err - allowed)[finite]
    assert not torch.isnan(err[finite]).any(), f"NaN in the output (unwritten?) seed={seed}"
    assert (worst <= 0).all(), f"row sums off by up to {err[finite].max().item():.3g}, seed={seed}"
    assert torch.equal(out[~finite], red.reference(x, "sum")[~finite]), f"seed={seed}"


def assert_max_exact(out, x, seed):
    """A maximum rounds nothing: it must be the reference's bits, NaN where torch's is."""
    torch.testing.assert_close(
        out, red.reference(x, "max"), rtol=0, atol=0, equal_nan=True, msg=lambda m: f"{m} {seed=}"
    )


def check(out, x, op, seed):
    if op == "sum":
        assert_sum_close(out, x, seed)
    else:
        assert_max_exact(out, x, seed)


def poisoned_out(x):
    return torch.full((x.shape[0],), NAN, dtype=x.dtype, device=x.device)


# Under the interpreter numpy warns where a sum meets inf - inf (NaN there is the answer)
# and where an fp32 sum past fp16's range rounds to inf (inf is the answer).
pytestmark = [
    pytest.mark.filterwarnings("ignore:invalid value encountered in add:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:invalid value encountered in reduce:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning"),
]


# ---- values -------------------------------------------------------------------------------


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize(
    "shape", [(1, 1), (1, 5), (7, 33), (37, 20), (3, 1000), (64, 16), (2, 4097)], ids=str
)
def test_matches_reference(shape, dtype, op):
    seed = fresh_seed()  # fresh random inputs every run
    x = rand(shape, dtype, scale=3.0)
    out = poisoned_out(x)  # NaN everywhere: an unwritten row fails
    assert red.row_reduce(x, op, out) is out
    check(out, x, op, seed)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize(
    "shape, block_m, block_n, num_warps",
    [
        ((5, 100), 1, 16, 1),  # seven column tiles, the last one 4 wide
        ((9, 33), 4, 16, 2),  # three row blocks, the last one a single row
        ((6, 64), 2, 32, 4),  # tiles that divide the row exactly
        ((3, 17), 8, 16, 1),  # one column past a tile; more rows per block than rows
        ((11, 300), 16, 64, 32),  # more threads than tile elements
    ],
    ids=["ragged-tail", "ragged-rows", "exact-tiles", "one-column-over", "tiny-tile"],
)
def test_every_tiling_covers_every_element(shape, block_m, block_n, num_warps, op):
    seed = fresh_seed()
    x = rand(shape, scale=3.0)
    out = poisoned_out(x)
    red.row_reduce(x, op, out, block_m=block_m, block_n=block_n, num_warps=num_warps)
    check(out, x, op, seed)


@pytest.mark.parametrize("op", OPS)
def test_launch_alone_matches_the_reference(op):
    """The launch section a lesson prints works on its own: the plan's tile, or the knobs."""
    seed = fresh_seed()
    x = rand((37, 300), scale=3.0)
    check(red.launch(x, op), x, op, seed)
    out = poisoned_out(x)
    assert red.launch(x, op, out, block_n=16) is out  # block_m and num_warps from the plan
    check(out, x, op, seed)


@pytest.mark.parametrize("block_n", [None, 16], ids=["one-tile", "tiled"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_max_of_all_negative_ragged_rows(dtype, block_n):
    """37 columns leave padding elements in the last tile. They load -inf; had they loaded 0.0
    (lesson 04's bug, kernels/_wrong.py:max-other-zero), every row's maximum would be 0."""
    seed = fresh_seed()
    x = (-100.0 - rand((6, 37)).abs()).to(dtype)
    out = red.row_reduce(x, "max", block_n=block_n)
    assert (out <= -100).all(), f"seed={seed}"  # not the 0.0 of a padding element
    assert_max_exact(out, x, seed)


@pytest.mark.parametrize("block_n", [None, 16], ids=["one-tile", "tiled"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_inf_and_nan_rows_give_what_torch_gives(dtype, block_n):
    seed = fresh_seed()
    x = rand((8, 40), dtype)
    x[0] = -INF  # sum -inf, max -inf
    x[1, 3] = NAN  # NaN in the first tile: NaN for both
    x[2, 39] = NAN  # NaN in the ragged last tile
    x[3, 7], x[3, 20] = INF, -INF  # sum inf - inf = NaN, max inf
    x[4, 33] = INF  # sum inf, max inf
    x[5, :] = -INF
    x[5, 38] = -2.0  # one finite value among -inf: the max finds it
    x[6, ::2] = NAN  # NaN everywhere but odd columns
    for op in OPS:
        out = poisoned_out(x)
        red.row_reduce(x, op, out, block_n=block_n)
        expected = red.reference(x, op)
        torch.testing.assert_close(
            out[:7], expected[:7], rtol=0, atol=0, equal_nan=True, msg=lambda m: f"{m} {seed=}"
        )
        check(out[7:], x[7:], op, seed)
    assert torch.isnan(red.row_reduce(x, "max")[[1, 2, 6]]).all()
    assert red.row_reduce(x, "max")[5] == -2.0


def test_fp16_sum_past_its_range_is_inf_as_torch():
    """fp32 accumulation does not overflow, but the rounded result can: 65504 is fp16's max."""
    seed = fresh_seed()
    x = torch.full((2, 300), 1000.0, dtype=torch.float16, device=DEVICE)
    x[1] = -x[1]
    out = red.row_reduce(x, "sum")
    assert out.tolist() == [INF, -INF] == x.sum(dim=1).tolist(), f"seed={seed}"


def test_sum_accumulates_in_fp32():
    """4096 values of 1 + 2**-10 sum to exactly 4100, which fp16 can hold. Added one by
    one in fp16, each step rounds once the total passes 2048 (where fp16 values are 2
    apart), and the total ends elsewhere; accumulated in fp32, it is exact."""
    v = torch.tensor(1 + 2**-10, dtype=torch.float16)
    total = torch.tensor(0.0, dtype=torch.float16)
    for _ in range(4096):
        total = total + v  # fp16 + fp16, rounded to fp16 at every step
    assert total.item() != 4100.0
    x = torch.full((3, 4096), v.item(), dtype=torch.float16, device=DEVICE)
    assert red.row_reduce(x, "sum", block_n=16).tolist() == [4100.0] * 3


# ---- layouts: strides honoured ------------------------------------------------------------


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize(
    "make_x",
    [
        lambda: rand((6, 50), scale=3.0)[:, :37],  # padded rows: row stride 50
        lambda: rand((40, 9), scale=3.0).t(),  # transposed: column stride 9
        lambda: rand((5, 60), scale=3.0)[:, ::3],  # every third column
        lambda: rand((1, 40), scale=3.0).expand(5, 40),  # row stride 0: one row, five times
        lambda: rand((7, 1), scale=3.0),  # one column
        lambda: rand((12, 30), scale=3.0)[2::3, 5:],  # rows and columns both sliced
    ],
    ids=["padded-rows", "transposed", "column-step-3", "expanded-rows", "one-column", "sliced"],
)
def test_strided_inputs_are_read_in_place(make_x, op):
    seed = fresh_seed()
    x = make_x()
    out = poisoned_out(x)
    red.row_reduce(x, op, out)
    check(out, x, op, seed)


# ---- the numbers lesson 06 works with --------------------------------------------------------


@pytest.mark.parametrize(
    "n_rows, n_cols, plan",
    [
        (2**19, 256, (16, 256, 4)),  # short rows: 16 to a program, a 16 x 256 tile
        (2**11, 65536, (1, 4096, 4)),  # long rows: one to a program, 16 tiles of 4096
        (1000, 1, (256, 16, 4)),  # one column: a tile 16 wide, 15 of them padding
        (5, 1, (8, 16, 4)),  # no more rows to a program than the next power of two
    ],
    ids=["256-columns", "65536-columns", "one-column", "few-rows"],
)
def test_default_plan_is_the_one_the_page_describes(n_rows, n_cols, plan):
    assert red.plan(n_rows, n_cols) == plan
    block_m, block_n, num_warps = plan
    assert block_m * block_n == red.TILE_ELEMENTS or n_rows < red.TILE_ELEMENTS // block_n
    assert block_m * block_n // (32 * num_warps) <= red.MAX_PER_THREAD


# What the compiler makes of the final reduction, read from the PTX it emits for an H100
# (sm_90). Compiling needs no GPU, but not the interpreter: it runs in a child process.
LOWERING = r"""
import json, re, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from kernels import reduction as red

SIG = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_rows": "i32", "n_cols": "i32",
       "stride_row": "i32", "stride_col": "i32", "IS_MAX": "constexpr",
       "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"}
# What a launch tells the compiler about 16-byte aligned tensors whose row length and row
# stride are multiples of 16 (every width the benchmark times): those four arguments are
# divisible by 16, and the column stride is 1.
ALIGNED = {(i,): [["tt.divisibility", 16]] for i in (0, 1, 3, 4)}
found = {}
for is_max in (False, True):
    for num_warps in (1, 4):
        src = ASTSource(fn=red.row_reduce_kernel, signature=SIG, attrs=ALIGNED, constexprs={
            "IS_MAX": is_max, "BLOCK_M": 1, "BLOCK_N": 4096, "stride_col": 1})
        ptx = triton.compile(src, target=GPUTarget("cuda", 90, 32),
                             options={"num_warps": num_warps}).asm["ptx"]
        ops = {}
        for op in re.findall(r"\b(shfl\.sync\.bfly|bar\.sync|st\.shared|ld\.global\.v4)", ptx):
            ops[op] = ops.get(op, 0) + 1
        found[f"{'max' if is_max else 'sum'} {num_warps}"] = ops
json.dump(found, sys.stdout)
"""


@pytest.fixture(scope="module")
def lowering():
    return json.loads(compiled_python(LOWERING, "the reduction kernel for sm_90"))


@pytest.mark.xdist_group("reduction-lowering")  # one worker compiles the PTX once
@pytest.mark.parametrize("op", OPS)
def test_one_warp_reduces_with_shuffles_alone(lowering, op):
    """One row of 4096 over one warp: each thread combines its own 128 values, then
    log2(32) = 5 butterfly shuffles combine the warp's 32 threads. No shared memory."""
    ops = lowering[f"{op} 1"]
    assert ops.get("shfl.sync.bfly") == int(math.log2(32))
    assert "st.shared" not in ops and "bar.sync" not in ops
    assert ops.get("ld.global.v4") == 4096 // 32 // 4  # 128 values a thread, 4 a load


@pytest.mark.xdist_group("reduction-lowering")  # one worker compiles the PTX once
@pytest.mark.parametrize("op", OPS)
def test_four_warps_add_a_round_through_shared_memory(lowering, op):
    """Over four warps each warp reduces as above; one value per warp goes through shared
    memory, behind a barrier, and log2(4) = 2 more shuffles combine the four. (How many
    stores and barriers that round takes depends on the Triton version: one of each from
    3.9, two from 3.6.)"""
    ops = lowering[f"{op} 4"]
    assert ops.get("shfl.sync.bfly") == int(math.log2(32)) + int(math.log2(4))
    assert ops.get("st.shared", 0) >= 1 and ops.get("bar.sync", 0) >= 1


# ---- on a GPU: the benchmark's widths, and offsets past 2**31 -------------------------------


@requires_gpu
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n_cols", [256, 1000, 4096, 16384, 65536, 65537, 131079])
def test_realistic_widths(n_cols, dtype, op):
    seed = fresh_seed()
    x = rand((300, n_cols), dtype, scale=3.0)
    out = poisoned_out(x)
    red.row_reduce(x, op, out)
    check(out, x, op, seed)


@requires_gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_gpu_sum_is_within_a_tighter_bound(dtype):
    """On a GPU the fp32 -> dtype conversion rounds to nearest: half a unit, not one."""
    seed = fresh_seed()
    x = rand((64, 20000), dtype)
    out = red.row_reduce(x, "sum")
    exact = x.double().sum(dim=1)
    allowed = 19999 * FP32_UNIT * x.double().abs().sum(dim=1) + LAST_PLACE[dtype] / 2 * exact.abs()
    assert ((out.double() - exact).abs() <= allowed).all(), f"seed={seed}"


@big_gpu_memory
@requires_gpu
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("n_cols", [1024, 65536], ids=["rows-per-program", "one-row"])
def test_offsets_past_int32(n_cols, op):
    """More than 2**31 elements (4.3 GB of bf16): with int32 offsets the last rows would
    wrap and read the first rows' memory."""
    n_rows = 2**31 // n_cols + 3
    x = torch.zeros(n_rows, n_cols, dtype=torch.bfloat16, device="cuda")
    rows = torch.arange(n_rows, device="cuda")
    peak = (rows % 7 + 1).to(torch.bfloat16)  # each row: one value of 1..7 among zeros
    x[rows, rows % n_cols] = peak
    out = red.row_reduce(x, op)
    assert torch.equal(out, peak)  # the sum and the maximum of such a row are its peak


# ---- lesson 06's smaller kernels: one row in one tile ------------------------------------------


def test_minimal_row_sum():
    # --8<-- [start:minimal]
    x = torch.randn(4, 100, device=DEVICE)
    out = torch.empty(4, device=DEVICE)
    red.row_sum_kernel[(4,)](x, out, 100, BLOCK_N=128)  # one program per row
    print(out)
    print(x.sum(dim=1))
    torch.testing.assert_close(out, x.sum(dim=1))
    # --8<-- [end:minimal]


@pytest.mark.parametrize("n_cols", [1, 37, 64, 100])
def test_argmax_finds_the_first_maximum(n_cols):
    """Rows with the maximum repeated (small integers make ties common), all-negative rows
    and rows of -inf: the value is torch's and the index the first one that holds it."""
    seed = fresh_seed()
    x = torch.randint(-4, 3, (64, n_cols), device=DEVICE).float()
    x[0] = -5.0  # all equal and negative: index 0
    x[1] = -INF  # as the padding: a real column still comes first
    values = torch.full((64,), NAN, device=DEVICE)
    index = torch.full((64,), -1, dtype=torch.int32, device=DEVICE)
    block = max(16, 1 << (n_cols - 1).bit_length())
    red.row_argmax_kernel[(64,)](x, values, index, n_cols, BLOCK_N=block)
    assert torch.equal(values, x.amax(dim=1)), f"seed={seed}"
    first = (x == x.amax(dim=1, keepdim=True)).int().argmax(dim=1)  # first True per row
    assert torch.equal(index.long(), first), f"seed={seed}"


@pytest.mark.parametrize("n_cols", [1, 37, 128])
def test_scans_are_running_sums_and_maxima(n_cols):
    seed = fresh_seed()
    x = rand((8, n_cols))
    sums, maxes = x.new_full(x.shape, NAN), x.new_full(x.shape, NAN)
    block = max(16, 1 << (n_cols - 1).bit_length())
    red.row_scans_kernel[(8,)](x, sums, maxes, n_cols, BLOCK_N=block)
    # Any order of fp32 additions of j + 1 values is within j 2**-24 sum|x| of the exact sum.
    exact = x.double().cumsum(dim=1)
    allowed = torch.arange(n_cols, device=DEVICE) * FP32_UNIT * x.double().abs().cumsum(dim=1)
    assert ((sums.double() - exact).abs() <= allowed + 1e-30).all(), f"seed={seed}"
    assert torch.equal(maxes, x.cummax(dim=1).values), f"seed={seed}"
