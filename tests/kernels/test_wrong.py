"""The wrong kernels of kernels/_wrong.py fail exactly the way the lessons say they fail.

Each mistake has two tests on the same inputs and the same checks: one shows the wrong
kernel's failure, element by element, and one shows that the correct kernel it was made
from passes, so the checks tell the two apart. Out-of-bounds accesses are aimed at memory
the test owns: the tensors are views into larger poisoned buffers, and the test reads the
buffer around them to see where the stray writes landed.
"""

import os
import subprocess
import sys
from pathlib import Path

import torch

from kernels import _wrong as wrong
from kernels import vector_add as va
from tests.support import DEVICE, big_gpu_memory, fresh_seed, poisoned_like, requires_gpu

NAN = float("nan")


def rand(shape, device=DEVICE):
    return torch.randn(shape, dtype=torch.float32, device=device)


# ---- no-pid (lesson 02): every program computes tile 0 ---------------------------------


def run_add(kernel, n, block):
    """x + y for n elements launched with one program per tile; out starts as NaN."""
    x, y = rand(n), rand(n)
    out = poisoned_like(x)
    programs = (n + block - 1) // block
    kernel[(programs,)](x, y, out, n, BLOCK=block)
    return x, y, out


def test_no_pid_every_program_writes_tile_0():
    seed = fresh_seed()
    n, block = 1000, 128  # 8 programs, the last tile ragged
    x, y, out = run_add(wrong.add_kernel_no_pid, n, block)
    # Tile 0 is right: eight programs wrote it, each with the same values.
    assert torch.equal(out[:block], va.reference(x[:block], y[:block])), f"seed={seed}"
    # No program wrote anything else: the other seven tiles are still poison.
    assert torch.isnan(out[block:]).all(), f"seed={seed}"


def test_with_pid_every_tile_is_written():
    seed = fresh_seed()
    n, block = 1000, 128
    x, y, out = run_add(va.add_kernel, n, block)
    assert torch.equal(out, va.reference(x, y)), f"seed={seed}"


# ---- max-other-zero (lesson 04): padding with 0.0 wins the max of a negative row -------


def run_row_max(kernel, x, block):
    """The maximum of each row of x (rows, n_cols), one program per row padded to block."""
    out = torch.full((x.shape[0],), NAN, device=x.device)
    kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=block)
    return out


def rows_with_and_without_a_positive(n_cols):
    """8 rows: even rows all negative, odd rows with one positive value at a random place."""
    x = -rand((8, n_cols)).abs() - 0.5  # every value at most -0.5
    for r in range(1, 8, 2):
        x[r, torch.randint(n_cols, ())] = 3.0 + r
    return x


def test_max_other_zero_gives_0_for_all_negative_ragged_rows():
    seed = fresh_seed()
    x = rows_with_and_without_a_positive(37)  # 37 columns in 64 lanes: 27 padding lanes
    out = run_row_max(wrong.row_max_other_zero_kernel, x, block=64)
    expected = x.amax(dim=1)
    negative = expected < 0
    assert negative.tolist() == [True, False] * 4
    # All-negative rows: a padding lane's 0.0 wins instead of the true (negative) maximum.
    assert torch.equal(out[negative], torch.zeros(4, device=x.device)), f"seed={seed}"
    # Rows with a positive value: that value beats the padding, and the result is right.
    assert torch.equal(out[~negative], expected[~negative]), f"seed={seed}"


def test_max_other_zero_is_right_when_no_lane_is_padding():
    """The padding is the culprit: with n_cols == BLOCK no lane is masked, and even the
    all-negative rows come out right."""
    seed = fresh_seed()
    x = rows_with_and_without_a_positive(64)
    out = run_row_max(wrong.row_max_other_zero_kernel, x, block=64)
    assert torch.equal(out, x.amax(dim=1)), f"seed={seed}"


def test_max_other_minus_inf_is_right_on_every_row():
    seed = fresh_seed()
    x = rows_with_and_without_a_positive(37)
    out = run_row_max(wrong.row_max_kernel, x, block=64)
    assert torch.equal(out, x.amax(dim=1)), f"seed={seed}"


# ---- no-mask (lesson 04): the ragged last tile writes into the neighbour ---------------

N, BLOCK, ROOM = 1000, 128, 100  # the last tile covers [896, 1024): 24 lanes past N


def run_add_in_room(kernel):
    """x + y on N elements, each tensor the first N elements of a buffer of N + ROOM.

    What lies past x and y reads 1000 and 2000; past out, a NaN-filled neighbour. The lanes
    of the last tile past N touch only those buffers, which the test owns.
    """
    bx, by = rand(N + ROOM), rand(N + ROOM)
    bx[N:], by[N:] = 1000.0, 2000.0
    bo = torch.full((N + ROOM,), NAN, device=DEVICE)
    x, y, out, neighbour = bx[:N], by[:N], bo[:N], bo[N:]
    kernel[((N + BLOCK - 1) // BLOCK,)](x, y, out, N, BLOCK=BLOCK)
    return x, y, out, neighbour


def test_no_mask_last_tile_overwrites_the_neighbour():
    seed = fresh_seed()
    x, y, out, neighbour = run_add_in_room(wrong.add_kernel_no_mask)
    past = -N % BLOCK  # lanes of the last tile past the end: 24
    # Inside the tensor the sum is right ...
    assert torch.equal(out, va.reference(x, y)), f"seed={seed}"
    # ... but the last tile read past the end of x and y (1000 + 2000) and wrote the sum
    # over the first 24 elements of whatever follows out,
    assert torch.equal(neighbour[:past], torch.full((past,), 3000.0, device=DEVICE)), f"seed={seed}"
    # and exactly those: the rest of the neighbour is untouched.
    assert torch.isnan(neighbour[past:]).all(), f"seed={seed}"


def test_with_mask_the_neighbour_is_untouched():
    seed = fresh_seed()
    x, y, out, neighbour = run_add_in_room(va.add_kernel)
    assert torch.equal(out, va.reference(x, y)), f"seed={seed}"
    assert torch.isnan(neighbour).all(), f"seed={seed}"


# ---- int32-offsets (lesson 04): past 2**31 elements the offsets wrap negative ----------

# n = 2**31 + 4096 int8 elements, BLOCK = 1024: programs 0 .. 2**21 - 1 start below 2**31,
# and element 2**31 + j (j < 4096), in one of the last four tiles, gets the int32 offset
# j - 2**31. So each tensor sits GUARD = 2**31 elements into a buffer: the wrapped offsets
# then land inside it, reads at x[j - 2**31] = (x's guard)[j] and writes likewise. int8
# keeps this at two buffers of 4 GiB.
BOUNDARY = 2**31  # the first offset int32 cannot hold
GUARD, TAIL, BIG_BLOCK = BOUNDARY, 4096, 1024
POISON = -1


def run_add_past_int32(kernel):
    """out = x + x on BOUNDARY + TAIL int8 elements; returns (out's guard, out)."""
    n = BOUNDARY + TAIL
    bx = torch.full((GUARD + n,), 7, dtype=torch.int8, device="cuda")  # the guard reads 7
    x = bx[GUARD:]
    x[:BOUNDARY].fill_(1)  # values differ either side of element 2**31
    x[BOUNDARY:].fill_(2)
    bo = torch.full((GUARD + n,), POISON, dtype=torch.int8, device="cuda")
    out = bo[GUARD:]
    kernel[(n // BIG_BLOCK,)](x, x, out, n, BLOCK=BIG_BLOCK)
    torch.cuda.synchronize()
    return bo[:GUARD], out


@big_gpu_memory
@requires_gpu
def test_int32_offsets_wrap_and_write_before_the_tensor():
    guard, out = run_add_past_int32(wrong.add_kernel_int32_offsets)
    # The first 2**31 elements are right: their offsets fit in int32.
    assert (out[:BOUNDARY] == 2).all()
    # The last 4096 were never written: their programs' offsets wrapped negative ...
    assert (out[BOUNDARY:] == POISON).all()
    # ... and those programs read x's guard (7 + 7) and wrote element 2**31 + j at
    # out[j - 2**31], 2**32 elements early: the first 4096 elements of out's guard,
    assert (guard[:TAIL] == 14).all()
    # and nowhere else.
    assert (guard[TAIL:] == POISON).all()


@big_gpu_memory
@requires_gpu
def test_int64_offsets_reach_past_2_31():
    guard, out = run_add_past_int32(va.add_kernel)
    assert (out[:BOUNDARY] == 2).all()
    assert (out[BOUNDARY:] == 4).all()
    assert (guard == POISON).all()


# ---- catching the int32 wrap with Triton's debug mode (lesson 04) -------------------------

ROOT = Path(__file__).resolve().parents[2]
# Compiles both kernels for an H100 (sm_90) with debug on, without a GPU: Triton ships the
# assembler. Run without TRITON_INTERPRET, which would turn the kernels into Python.
COMPILE_WITH_DEBUG = """
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from kernels import _wrong, vector_add

signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32",
             "BLOCK": "constexpr"}
for kernel in (_wrong.add_kernel_int32_offsets, vector_add.add_kernel):
    source = ASTSource(fn=kernel, signature=signature, constexprs={"BLOCK": 1024})
    compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"debug": True})
    checks = [l for l in compiled.asm["ttir"].splitlines() if "tt.assert" in l]
    print(kernel.__name__, sorted(l.split('"')[1] for l in checks))
"""


def outside_the_interpreter(script: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    """Run ``script`` in a fresh Python at the repository's root, compiled kernels (no
    TRITON_INTERPRET), with ``env`` added to the environment."""
    environ = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        env={**environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_debug_mode_checks_the_int32_products_and_nothing_in_the_int64_kernel():
    done = outside_the_interpreter(COMPILE_WITH_DEBUG)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert lines["add_kernel_int32_offsets"] == str(
        [
            "int32 overflow detected for operation add",
            "int32 overflow detected for operation mul",
        ]
    )
    assert lines["add_kernel"] == "[]"


# 2**21 + 1 programs of 1024 over 16 elements: the last program's pid * BLOCK is 2**31.
LAUNCH_PAST_INT32 = """
import sys, torch
from kernels import _wrong, vector_add
kernel = {"int32": _wrong.add_kernel_int32_offsets, "int64": vector_add.add_kernel}[sys.argv[1]]
x = torch.ones(16, device="cuda")
out = torch.empty_like(x)
kernel[(2**21 + 1,)](x, x, out, 16, BLOCK=1024)
torch.cuda.synchronize()
assert torch.equal(out, x + x)
print("ok")
"""


@requires_gpu
def test_debug_mode_stops_the_wrap_on_a_tiny_tensor():
    # In its own process: a failed device assertion leaves the CUDA context unusable.
    wrapped = outside_the_interpreter(LAUNCH_PAST_INT32, "int32", TRITON_DEBUG="1")
    assert wrapped.returncode != 0
    assert "int32 overflow detected for operation mul" in wrapped.stdout + wrapped.stderr
    fixed = outside_the_interpreter(LAUNCH_PAST_INT32, "int64", TRITON_DEBUG="1")
    assert fixed.returncode == 0 and fixed.stdout.strip() == "ok", fixed.stderr[-2000:]
