"""Flash Attention's forward for Hopper, written in Gluon: ``softmax(q @ k^T * scale) @ v``
per batch and head, as ``torch.nn.functional.scaled_dot_product_attention(q, k, v,
is_causal=causal, scale=scale)`` computes it, for inference (no gradient).

``kernels/attention_tma.py`` states the algorithm in ``triton.language`` and leaves the
schedule to the compiler. Gluon (``triton.experimental.gluon``, shipped with Triton) is
the layer under it: the program says where every tile lives and when every copy and
matrix multiply starts and ends.

- **Layouts.** The scores and the output live in the layout of Hopper's warp-group
  matrix multiply (``NVMMADistributedLayout``, version 3); the probabilities are handed
  to the second product from registers in its operand layout; the tiles in shared memory
  are in the swizzled layout both TMA and the tensor cores read.
- **A ring of key/value tiles.** ``STAGES`` slots of shared memory, each holding one tile
  of keys and one of values, each with an mbarrier that says "loaded" (the TMA unit
  counts the bytes in) and, with a loader partition, one that says "free again".
- **Asynchronous products, overlapped with the softmax.** ``warpgroup_mma(...,
  is_async=True)`` starts a product and returns at once: for each tile the program starts
  ``S = Q K^T``, then ``O += P V`` for the tile before, waits for the first only
  (``warpgroup_mma_wait(num_outstanding=1)``) and takes its softmax while the second may
  still run (FlashAttention-3's order within a warp group).
- **Warp specialisation.** ``gl.warp_specialize`` splits the program into partitions
  that run different code: one warp that only issues TMA copies, and the warps that
  multiply and take the softmax. ``plan`` picks the kind: ``"ws2"``, two consumer warp
  groups of 4 warps, each owning half of the block's queries (so one can be in its
  softmax while the other multiplies); ``"ws"``, one consumer partition; ``"pipelined"``,
  no loader, the same warps copying and computing (kept as a step of lesson 12's ladder).

Grouped-query attention (k and v with fewer heads than q) reads key/value head
h // (H / H_kv), never copied. Causal: ``True`` or ``"top_left"`` (query i sees keys
j <= i) and ``"bottom_right"`` (query i sees keys j <= i + n_k - n_q); a row that sees no
key gives zeros.

Gluon kernels compile for one GPU generation and have no interpreter: this file runs on a
CUDA GPU of compute capability 9.x (H100, H200) and nowhere else. It was written against
Triton 3.6, whose TMA copies are ``tma.async_copy_global_to_shared`` /
``async_copy_shared_to_global`` (renamed ``async_load`` / ``async_store`` later).
"""

import math

import torch
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_wait,
)
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

# Triton 3.6 names; newer Tritons renamed them (and keep the old names only to refuse them).
_tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared
_tma_store = getattr(tma, "async_store", None) or tma.async_copy_shared_to_global


# --8<-- [start:kernel]
@gluon.jit
def _load_q(q_desc, q_smem, bar, batch, head, m0, ROWS: gl.constexpr, HEAD_DIM: gl.constexpr):
    mbarrier.expect(bar, q_desc.block_type.nbytes)
    box: gl.constexpr = [1, 1, ROWS, HEAD_DIM]
    _tma_load(
        q_desc, [batch, head, m0, 0], bar, q_smem._reinterpret(q_desc.dtype, box, q_desc.layout)
    )


@gluon.jit
def _load_kv(k_desc, v_desc, k_bufs, v_bufs, ready, tile, batch, kv_head, pred,
             BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, STAGES: gl.constexpr):  # fmt: skip
    # Key/value tile `tile` into ring slot tile % STAGES: two TMA copies that count their
    # bytes into the slot's "ready" barrier. Rows past the end of the keys read as zeros.
    slot = tile % STAGES
    bar = ready.index(slot)
    mbarrier.expect(bar, 2 * k_desc.block_type.nbytes, pred=pred)
    box: gl.constexpr = [1, 1, BLOCK_N, HEAD_DIM]  # the 4-D box of the descriptors
    k_dst = k_bufs.index(slot)._reinterpret(k_desc.dtype, box, k_desc.layout)
    v_dst = v_bufs.index(slot)._reinterpret(v_desc.dtype, box, v_desc.layout)
    _tma_load(k_desc, [batch, kv_head, tile * BLOCK_N, 0], bar, k_dst, pred=pred)
    _tma_load(v_desc, [batch, kv_head, tile * BLOCK_N, 0], bar, v_dst, pred=pred)


@gluon.jit
def _tiles(m0, n_k, diag, ROWS: gl.constexpr, BLOCK_N: gl.constexpr, CAUSAL: gl.constexpr):
    # How many key tiles rows m0 .. m0+ROWS-1 visit, and how many of those every row sees
    # whole (no mask). At least one tile is visited: a block whose rows see no key at all
    # (bottom-right, n_q > n_k) masks everything in tile 0 and writes zeros.
    full = n_k // BLOCK_N
    hi = n_k
    if CAUSAL:
        full = gl.minimum(full, gl.maximum(m0 + diag + 1, 0) // BLOCK_N)
        hi = gl.minimum(m0 + ROWS + diag, n_k)
    return full, gl.maximum((hi + BLOCK_N - 1) // BLOCK_N, 1)


@gluon.jit
def _softmax(s, m_i, l_i, offs_m, offs_n, n_k, diag, qk_scale,
             MASKED: gl.constexpr, CAUSAL: gl.constexpr):  # fmt: skip
    # The online softmax of lesson 12, base 2, scale * log2(e) folded in: the tile's
    # probabilities p, the factor alpha that rescales what was summed before, the new
    # running sum and maximum. MASKED: the diagonal blocks (causal) and the ragged end.
    if MASKED:
        keep = offs_n[None, :] < n_k
        if CAUSAL:  # query i sees keys j <= i + diag
            keep = keep & (offs_n[None, :] <= offs_m[:, None] + diag)
        s = gl.where(keep, s * qk_scale, float("-inf"))
        m_new = gl.maximum(m_i, gl.max(s, 1))
        m_sub = gl.where(m_new == float("-inf"), 0.0, m_new)  # a row with no key yet
        s = s - m_sub[:, None]
    else:
        m_new = gl.maximum(m_i, gl.max(s, 1) * qk_scale)
        m_sub = m_new
        s = s * qk_scale - m_new[:, None]
    p = gl.exp2(s)
    alpha = gl.exp2(m_i - m_sub)
    return p, alpha, l_i * alpha + gl.sum(p, 1), m_new


@gluon.jit
def _release(tile, k_desc, v_desc, k_bufs, v_bufs, ready, empty, batch, kv_head, n_tiles,
             BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, STAGES: gl.constexpr,
             LOADER: gl.constexpr, WARPS: gl.constexpr):  # fmt: skip
    # Tile `tile` is used up. With a loader partition, say so on its slot's "empty"
    # barrier (one arrival per consumer group, once all its warps are past the tile);
    # without one, refill the slot here, once every warp is past it, with the tile
    # STAGES further on.
    if LOADER:
        if WARPS > 4:
            gl.thread_barrier()
        mbarrier.arrive(empty.index(tile % STAGES), count=1)
    else:
        gl.thread_barrier()
        _load_kv(k_desc, v_desc, k_bufs, v_bufs, ready, tile + STAGES, batch, kv_head,
                 tile + STAGES < n_tiles, BLOCK_N, HEAD_DIM, STAGES)  # fmt: skip


# --8<-- [start:steps]
@gluon.jit
def _steps(carry, q_smem, k_bufs, v_bufs, ready, empty, k_desc, v_desc, batch, kv_head,
           offs_m, lo, hi, n_tiles, n_k, diag, qk_scale, ROWS: gl.constexpr,
           BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, STAGES: gl.constexpr,
           MASKED: gl.constexpr, CAUSAL: gl.constexpr, LOADER: gl.constexpr,
           s_layout: gl.constexpr, p_layout: gl.constexpr, o_layout: gl.constexpr,
           WARPS: gl.constexpr):  # fmt: skip
    # Tiles lo .. hi-1. Step j starts S_j = Q K_j^T and then O += P_{j-1} V_{j-1} (both
    # asynchronous), waits for S_j only, takes its softmax while the second product runs,
    # then waits for it and rescales O for the new maximum.
    acc, p, m_i, l_i = carry
    s_zero = gl.zeros([ROWS, BLOCK_N], gl.float32, s_layout)
    for j in range(lo, hi):
        slot = j % STAGES
        mbarrier.wait(ready.index(slot), (j // STAGES) & 1)
        s_tok = warpgroup_mma(q_smem, k_bufs.index(slot).permute((1, 0)), s_zero,
                              use_acc=False, is_async=True)  # fmt: skip
        prev = (j - 1) % STAGES
        o_tok = warpgroup_mma(p, v_bufs.index(prev), acc, is_async=True)
        s = warpgroup_mma_wait(num_outstanding=1, deps=(s_tok,))
        offs_n = j * BLOCK_N + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, s_layout))
        p_new, alpha, l_i, m_i = _softmax(
            s, m_i, l_i, offs_m, offs_n, n_k, diag, qk_scale, MASKED, CAUSAL
        )
        p_new = p_new.to(q_smem.dtype)
        acc, p = warpgroup_mma_wait(num_outstanding=0, deps=(o_tok, p))
        alpha_o = gl.convert_layout(alpha, gl.SliceLayout(1, o_layout))
        acc = acc * alpha_o[:, None]
        p = gl.convert_layout(p_new, p_layout)
        _release(j - 1, k_desc, v_desc, k_bufs, v_bufs, ready, empty, batch, kv_head,
                 n_tiles, BLOCK_N, HEAD_DIM, STAGES, LOADER, WARPS)  # fmt: skip
    return acc, p, m_i, l_i


# --8<-- [end:steps]


@gluon.jit
def _walk(q_smem, k_bufs, v_bufs, ready, empty, k_desc, v_desc, batch, kv_head,
                   offs_m, m_i, l_i, acc, n_full, n_tiles, n_k, diag, qk_scale,
                   ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
                   STAGES: gl.constexpr, CAUSAL: gl.constexpr, LOADER: gl.constexpr,
                   s_layout: gl.constexpr, p_layout: gl.constexpr, o_layout: gl.constexpr,
                   WARPS: gl.constexpr):  # fmt: skip
    # Tile 0 by itself (masked: harmless where a mask is not needed): it has no tile
    # before it whose P V to overlap.
    mbarrier.wait(ready.index(0), 0)
    s = warpgroup_mma(q_smem, k_bufs.index(0).permute((1, 0)),
                      gl.zeros([ROWS, BLOCK_N], gl.float32, s_layout), use_acc=False)  # fmt: skip
    offs_n = gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, s_layout))
    p, alpha, l_i, m_i = _softmax(s, m_i, l_i, offs_m, offs_n, n_k, diag, qk_scale, True, CAUSAL)
    p = gl.convert_layout(p.to(q_smem.dtype), p_layout)
    carry = (acc, p, m_i, l_i)
    carry = _steps(carry, q_smem, k_bufs, v_bufs, ready, empty, k_desc, v_desc, batch,
                   kv_head, offs_m, 1, n_full, n_tiles, n_k, diag, qk_scale, ROWS, BLOCK_N,
                   HEAD_DIM, STAGES, False, CAUSAL, LOADER, s_layout, p_layout, o_layout,
                   WARPS)  # fmt: skip
    carry = _steps(carry, q_smem, k_bufs, v_bufs, ready, empty, k_desc, v_desc, batch,
                   kv_head, offs_m, gl.maximum(n_full, 1), n_tiles, n_tiles, n_k, diag,
                   qk_scale, ROWS, BLOCK_N, HEAD_DIM, STAGES, True, CAUSAL, LOADER, s_layout,
                   p_layout, o_layout, WARPS)  # fmt: skip
    acc, p, m_i, l_i = carry
    last = (n_tiles - 1) % STAGES  # the last P V
    acc = warpgroup_mma(p, v_bufs.index(last), acc)
    _release(n_tiles - 1, k_desc, v_desc, k_bufs, v_bufs, ready, empty, batch, kv_head,
             n_tiles, BLOCK_N, HEAD_DIM, STAGES, LOADER, WARPS)  # fmt: skip
    return _normalise(acc, l_i, o_layout)


@gluon.jit
def _normalise(acc, l_i, o_layout: gl.constexpr):
    l_i = gl.where(l_i > 0, l_i, 1.0)  # a row that saw no key: zeros, not NaN
    l_o = gl.convert_layout(l_i, gl.SliceLayout(1, o_layout))
    return acc / l_o[:, None]


@gluon.jit
def _store_o(acc, q_smem, o_desc, batch, head, m0, ROWS: gl.constexpr, HEAD_DIM: gl.constexpr):
    # Q is no longer read: its shared memory stages the output for one TMA store, which
    # clips the rows past the end of the sequence.
    q_smem.store(acc.to(q_smem.dtype))
    fence_async_shared()
    box: gl.constexpr = [1, 1, ROWS, HEAD_DIM]
    _tma_store(o_desc, [batch, head, m0, 0], q_smem._reinterpret(o_desc.dtype, box, o_desc.layout))
    tma.store_wait(0)


@gluon.jit
def _attend(q_smem, k_bufs, v_bufs, ready, empty, k_desc, v_desc, o_desc, batch, head,
            kv_head, m0, n_full, n_tiles, n_k, diag, qk_scale,
            ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
            STAGES: gl.constexpr, CAUSAL: gl.constexpr, LOADER: gl.constexpr,
            WARPS: gl.constexpr):  # fmt: skip
    # ROWS queries from m0 (in q_smem, already loaded) against key tiles 0 .. n_tiles-1,
    # the first n_full of them seen whole by every row; the result goes out by TMA.
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[WARPS, 1], instr_shape=[16, BLOCK_N, 16]
    )
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[WARPS, 1], instr_shape=[16, HEAD_DIM, 16]
    )
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    offs_m = m0 + gl.arange(0, ROWS, layout=gl.SliceLayout(1, s_layout))
    m_i = gl.full([ROWS], float("-inf"), gl.float32, gl.SliceLayout(1, s_layout))
    l_i = gl.zeros([ROWS], gl.float32, gl.SliceLayout(1, s_layout))
    acc = gl.zeros([ROWS, HEAD_DIM], gl.float32, o_layout)
    acc = _walk(q_smem, k_bufs, v_bufs, ready, empty, k_desc, v_desc, batch, kv_head,
                         offs_m, m_i, l_i, acc, n_full, n_tiles, n_k, diag, qk_scale, ROWS,
                         BLOCK_N, HEAD_DIM, STAGES, CAUSAL, LOADER, s_layout, p_layout,
                         o_layout, WARPS)  # fmt: skip
    _store_o(acc, q_smem, o_desc, batch, head, m0, ROWS, HEAD_DIM)


@gluon.jit(do_not_specialize=["n_q", "n_k", "diag"])
def attn_fwd_pipelined_kernel(
    q_desc, k_desc, v_desc, o_desc, n_q, n_k, diag, qk_scale, GROUP,
    HEAD_DIM: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
    STAGES: gl.constexpr, CAUSAL: gl.constexpr, SMEM: gl.constexpr, num_warps: gl.constexpr,
):  # fmt: skip
    # One partition: the same warps issue the copies and do the math (a rung of the ladder).
    pid = gl.program_id(0)
    if CAUSAL:  # the last query blocks have the most keys to visit: start them first
        pid = gl.num_programs(0) - 1 - pid
    head = gl.program_id(1)
    kv_head = head // GROUP
    batch = gl.program_id(2)
    m0 = pid * BLOCK_M
    dtype: gl.constexpr = q_desc.dtype
    q_smem = gl.allocate_shared_memory(dtype, [BLOCK_M, HEAD_DIM], SMEM)
    k_bufs = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, HEAD_DIM], SMEM)
    v_bufs = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, HEAD_DIM], SMEM)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(ready.index(i), count=1)
    mbarrier.init(q_bar, count=1)
    n_full, n_tiles = _tiles(m0, n_k, diag, BLOCK_M, BLOCK_N, CAUSAL)
    _load_q(q_desc, q_smem, q_bar, batch, head, m0, BLOCK_M, HEAD_DIM)
    for i in gl.static_range(STAGES):
        _load_kv(k_desc, v_desc, k_bufs, v_bufs, ready, i, batch, kv_head, i < n_tiles,
                 BLOCK_N, HEAD_DIM, STAGES)  # fmt: skip
    mbarrier.wait(q_bar, 0)
    _attend(q_smem, k_bufs, v_bufs, ready, ready, k_desc, v_desc, o_desc, batch, head,
            kv_head, m0, n_full, n_tiles, n_k, diag, qk_scale, BLOCK_M, BLOCK_N, HEAD_DIM,
            STAGES, CAUSAL, False, num_warps)  # fmt: skip


# --8<-- [start:partitions]
@gluon.jit
def _loader(shared, numbers, ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
            STAGES: gl.constexpr, CAUSAL: gl.constexpr, CONSUMERS: gl.constexpr):  # fmt: skip
    # The producer partition (one warp): every query tile, then the key/value tiles in
    # turn, each into its slot once the consumers have said it is free.
    q_desc, k_desc, v_desc, o_desc, q_smem, k_bufs, v_bufs, ready, empty, q_bar = shared
    batch, head, kv_head, m0, n_k, diag, qk_scale = numbers
    for c in gl.static_range(CONSUMERS):
        _load_q(q_desc, q_smem.index(c), q_bar.index(c), batch, head, m0 + c * ROWS, ROWS,
                HEAD_DIM)  # fmt: skip
    n_full, n_tiles = _tiles(m0, n_k, diag, CONSUMERS * ROWS, BLOCK_N, CAUSAL)
    for t in range(n_tiles):
        # A fresh mbarrier counts as having finished the phase before phase 0: the first
        # STAGES waits pass at once.
        mbarrier.wait(empty.index(t % STAGES), ((t // STAGES) & 1) ^ 1)
        _load_kv(k_desc, v_desc, k_bufs, v_bufs, ready, t, batch, kv_head, True, BLOCK_N,
                 HEAD_DIM, STAGES)  # fmt: skip


@gluon.jit
def _consumer(shared, numbers, ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
              STAGES: gl.constexpr, CAUSAL: gl.constexpr, CONSUMERS: gl.constexpr,
              WHICH: gl.constexpr, WARPS: gl.constexpr):  # fmt: skip
    # A consumer partition: queries m0 + WHICH * ROWS onwards. Every consumer walks the
    # tiles of the whole block (a tile past its own rows is masked away).
    q_desc, k_desc, v_desc, o_desc, q_smem, k_bufs, v_bufs, ready, empty, q_bar = shared
    batch, head, kv_head, m0, n_k, diag, qk_scale = numbers
    n_full, n_tiles = _tiles(m0, n_k, diag, CONSUMERS * ROWS, BLOCK_N, CAUSAL)
    mbarrier.wait(q_bar.index(WHICH), 0)
    _attend(q_smem.index(WHICH), k_bufs, v_bufs, ready, empty, k_desc, v_desc, o_desc,
            batch, head, kv_head, m0 + WHICH * ROWS, n_full, n_tiles, n_k, diag, qk_scale,
            ROWS, BLOCK_N, HEAD_DIM, STAGES, CAUSAL, True, WARPS)  # fmt: skip


@gluon.jit
def _consumer0(shared, numbers, ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
               STAGES: gl.constexpr, CAUSAL: gl.constexpr, CONSUMERS: gl.constexpr,
               WARPS: gl.constexpr):  # fmt: skip
    _consumer(shared, numbers, ROWS, BLOCK_N, HEAD_DIM, STAGES, CAUSAL, CONSUMERS, 0,
              WARPS)  # fmt: skip


@gluon.jit
def _consumer1(shared, numbers, ROWS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
               STAGES: gl.constexpr, CAUSAL: gl.constexpr,
               CONSUMERS: gl.constexpr):  # fmt: skip
    _consumer(shared, numbers, ROWS, BLOCK_N, HEAD_DIM, STAGES, CAUSAL, CONSUMERS, 1,
              4)  # fmt: skip


@gluon.jit(do_not_specialize=["n_q", "n_k", "diag"])
def attn_fwd_ws_kernel(
    q_desc, k_desc, v_desc, o_desc, n_q, n_k, diag, qk_scale, GROUP,
    HEAD_DIM: gl.constexpr, ROWS: gl.constexpr, BLOCK_N: gl.constexpr,
    STAGES: gl.constexpr, CAUSAL: gl.constexpr, SMEM: gl.constexpr,
    CONSUMERS: gl.constexpr, CONSUMER_REGS: gl.constexpr,
    LOADER_REGS: gl.constexpr, num_warps: gl.constexpr,
):  # fmt: skip
    # Warp-specialised: a loader warp and CONSUMERS consumer partitions. CONSUMERS 1: the
    # default partition (num_warps warps) takes all ROWS queries of the block; 2: the
    # default partition (4 warps) and a second one (4 warps) take ROWS queries each.
    pid = gl.program_id(0)
    if CAUSAL:
        pid = gl.num_programs(0) - 1 - pid
    head = gl.program_id(1)
    kv_head = head // GROUP
    batch = gl.program_id(2)
    m0 = pid * (CONSUMERS * ROWS)
    dtype: gl.constexpr = q_desc.dtype
    q_smem = gl.allocate_shared_memory(dtype, [CONSUMERS, ROWS, HEAD_DIM], SMEM)
    k_bufs = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, HEAD_DIM], SMEM)
    v_bufs = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, HEAD_DIM], SMEM)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    q_bar = gl.allocate_shared_memory(gl.int64, [CONSUMERS, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=CONSUMERS)  # free once every consumer is done
    for i in gl.static_range(CONSUMERS):
        mbarrier.init(q_bar.index(i), count=1)
    shared = (q_desc, k_desc, v_desc, o_desc, q_smem, k_bufs, v_bufs, ready, empty, q_bar)
    numbers = (batch, head, kv_head, m0, n_k, diag, qk_scale)
    if CONSUMERS == 1:
        gl.warp_specialize(
            [
                (_consumer0, (shared, numbers, ROWS, BLOCK_N, HEAD_DIM, STAGES, CAUSAL,
                              CONSUMERS, num_warps)),
                (_loader, (shared, numbers, ROWS, BLOCK_N, HEAD_DIM, STAGES, CAUSAL,
                              CONSUMERS)),
            ],
            [1],
            [LOADER_REGS],
        )  # fmt: skip
    else:
        gl.warp_specialize(
            [
                (_consumer0, (shared, numbers, ROWS, BLOCK_N, HEAD_DIM, STAGES, CAUSAL,
                              CONSUMERS, num_warps)),
                (_consumer1, (shared, numbers, ROWS, BLOCK_N, HEAD_DIM, STAGES, CAUSAL,
                              CONSUMERS)),
                (_loader, (shared, numbers, ROWS, BLOCK_N, HEAD_DIM, STAGES, CAUSAL,
                              CONSUMERS)),
            ],
            [4, 1],
            [CONSUMER_REGS, LOADER_REGS],
        )  # fmt: skip


# --8<-- [end:partitions]


# --8<-- [end:kernel]


# --8<-- [start:launch]
LOG2_E = 1.4426950408889634  # exp(x) = exp2(x * log2(e))
# (kind, BLOCK_M, BLOCK_N, STAGES, num_warps) per head dimension. kind "pipelined": one
# partition of num_warps warps; "ws": a loader warp and one consumer partition of
# num_warps warps; "ws2": a loader warp and two consumer partitions (warp groups) of
# num_warps = 4 warps, BLOCK_M / 2 queries each. The fastest of a sweep on an H100 (bf16,
# N = 4096, d = 64 and 128, full and causal): two consumer groups beat one partition of 8
# warps, and a third slot in the ring (the most that fits beside Q at d = 128) beat two;
# BLOCK_N = 64, or 128 queries per group, ran slower.
FORWARD_CONFIG = {64: ("ws2", 128, 128, 3, 4), 128: ("ws2", 128, 128, 3, 4)}


# Registers per thread: the launch asks for MAX_REGISTERS for each of its 12 warps (the 9
# it uses, rounded up to whole warp groups: 168 x 384 threads fill the SM's 64K), and the
# partitions move them at run time (setmaxnreg): the loader warp's group gives up to 24,
# each consumer group takes 240.
MAX_REGISTERS = 168
PARTITION_REGISTERS = (240, 24)  # (a consumer group, the loader)


def plan(head_dim: int) -> tuple:
    """The launch configuration for ``head_dim``: (kind, BLOCK_M, BLOCK_N, STAGES,
    num_warps)."""
    return FORWARD_CONFIG[head_dim]


def launch(q, k, v, causal: bool | str, scale: float, config=None):
    """o (B, H, n_q, d), contiguous, in q's dtype, for q (B, H, n_q, d) and k, v (B, H_kv,
    n_k, d) that descriptors can read, H a multiple of H_kv, n_q, n_k >= 1; no checks."""
    batch, heads, n_q, d = q.shape
    n_k = k.shape[2]
    o = torch.empty((batch, heads, n_q, d), dtype=q.dtype, device=q.device)
    kind, block_m, block_n, stages, warps = plan(d) if config is None else config
    rows = block_m // 2 if kind == "ws2" else block_m  # queries per consumer
    smem = gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)
    diag = n_k - n_q if causal == "bottom_right" else 0  # query i sees keys j <= i + diag
    grid = ((n_q + block_m - 1) // block_m, heads, batch)
    descs = (_desc(q, rows), _desc(k, block_n), _desc(v, block_n), _desc(o, rows))
    numbers = (n_q, n_k, diag, scale * LOG2_E, heads // k.shape[1])
    if kind == "pipelined":
        attn_fwd_pipelined_kernel[grid](
            *descs, *numbers, HEAD_DIM=d, BLOCK_M=block_m, BLOCK_N=block_n, STAGES=stages,
            CAUSAL=bool(causal), SMEM=smem, num_warps=warps,
        )  # fmt: skip
    else:
        attn_fwd_ws_kernel[grid](
            *descs, *numbers, HEAD_DIM=d, ROWS=rows, BLOCK_N=block_n, STAGES=stages,
            CAUSAL=bool(causal), SMEM=smem, CONSUMERS=1 if kind == "ws" else 2,
            CONSUMER_REGS=PARTITION_REGISTERS[0], LOADER_REGS=PARTITION_REGISTERS[1],
            num_warps=warps, maxnreg=MAX_REGISTERS,
        )  # fmt: skip
    return o


def _desc(t: torch.Tensor, rows: int) -> TensorDescriptor:
    # (batch, heads, sequence, head_dim) described to the TMA unit, one box = `rows` rows
    # of one head, in the 128-byte swizzle the tensor cores read. A dimension of length 1
    # is never stepped over, but its stride must still meet the 16-byte rule.
    strides = [
        s if n > 1 else 16 // t.element_size() for n, s in zip(t.shape, t.stride(), strict=True)
    ]
    layout = gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=4)
    return TensorDescriptor(t, list(t.shape), strides, [1, 1, rows, t.shape[3]], layout)


# --8<-- [end:launch]


# --8<-- [start:checks]
SUPPORTED_DTYPES = (torch.float16, torch.bfloat16)  # the warp-group MMA's 16-bit inputs
CAUSAL_ALIGNMENTS = ("top_left", "bottom_right")  # causal=True is "top_left", as in SDPA
HEAD_DIMS = tuple(FORWARD_CONFIG)  # the head dimensions plan has a configuration for
MAX_GRID_YZ = 65535  # heads and batch are the grid's 2nd and 3rd axes: CUDA's limit there
MAX_TMA_DIM = 2**31 - 1  # descriptor sizes and tile coordinates are 32-bit
TMA_ALIGN = 16  # bytes: TMA needs the base address and every stride a multiple of 16
MAX_FLOAT32 = 3.4e38  # about float32's largest: the kernel gets scale * log2(e) as a float32
_FORWARD_AD = torch.autograd.forward_ad
_CAPABILITIES: dict[int, tuple[int, int]] = {}


def _capability(device: int) -> tuple[int, int]:
    if device not in _CAPABILITIES:
        _CAPABILITIES[device] = tuple(torch.cuda.get_device_capability(device))
    return _CAPABILITIES[device]


def tma_readable(t: torch.Tensor) -> bool:
    """Whether a descriptor can address ``t`` (B, H, N, d) as it is: the last dimension
    contiguous, the base address and every other stride (of a dimension longer than 1) a
    positive multiple of 16 bytes. ``attention_gluon`` copies a tensor that is not."""
    if (t.stride(3) != 1 and t.shape[3] > 1) or t.data_ptr() % TMA_ALIGN:
        return False
    return all(
        size == 1 or (stride > 0 and stride * t.element_size() % TMA_ALIGN == 0)
        for size, stride in zip(t.shape[:3], t.stride()[:3], strict=True)
    )


def _check_tensor(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"attention_gluon: {name} must be a torch.Tensor, got {type(t).__name__}")
    if t.is_meta:
        raise ValueError(f"attention_gluon: {name} is a meta tensor (a shape with no data)")
    if not t.is_cuda:
        raise ValueError(
            f"attention_gluon: {name} must be on a CUDA device, got {t.device} (Gluon "
            "kernels have no interpreter: they run on Hopper GPUs only)"
        )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"attention_gluon: {name} must be a dense tensor, got {got}")
    if t.dtype not in SUPPORTED_DTYPES:
        raise TypeError(
            f"attention_gluon: {name} has dtype {t.dtype}; supported: {SUPPORTED_DTYPES}"
        )
    if t.dim() != 4:
        raise ValueError(
            f"attention_gluon: {name} must be 4-D (batch, heads, sequence, head_dim), "
            f"got shape {tuple(t.shape)}"
        )


def attention_gluon(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    causal: bool | str = False,
    scale: float | None = None,
) -> torch.Tensor:
    """``softmax(q @ k^T * scale) @ v``, as ``F.scaled_dot_product_attention(q, k, v,
    is_causal=causal, scale=scale)``, by the Gluon kernel: a forward for inference only,
    so inputs that require grad are refused while grad mode is on (``attention_tma``
    trains), as are dual tensors (forward-mode AD).

    ``q`` (B, H, n_q, d), ``k`` and ``v`` (B, H_kv, n_k, d) with H a multiple of H_kv
    (grouped-query attention: query head h reads key/value head h // (H / H_kv), never
    repeated in memory): dense, one dtype, float16 or bfloat16, one CUDA device of compute
    capability 9.x (Hopper: H100, H200; the kernel is built from Hopper's warp-group
    instructions, and Gluon has no interpreter, so CPU tensors are refused too), which
    need not be the current one; d 64 or 128; B and H at most 65535; n_q and n_k below
    2**31, and they may differ. A tensor a descriptor can address (``tma_readable``) is
    read in place; any other layout is copied once, contiguous. ``causal``: False, True or
    "top_left" (query i sees keys j <= i), or "bottom_right" (query i sees keys j <= i +
    n_k - n_q); a row that sees no key gives zeros. ``scale``: None for 1/sqrt(d), or a
    Python int or float, > 0 and with ``scale * log2(e)`` finite in float32. The result is
    contiguous, in q's dtype, rounded once from float32. Raises ``TypeError`` /
    ``ValueError`` naming the argument instead of launching on anything else.
    """
    for name, t in (("q", q), ("k", k), ("v", v)):
        _check_tensor(name, t)
    if not (k.dtype == v.dtype == q.dtype):
        raise TypeError(
            f"attention_gluon: q, k, v have dtypes {q.dtype}, {k.dtype}, {v.dtype}; one"
        )
    device = q.get_device()
    if k.get_device() != device or v.get_device() != device:
        raise ValueError(f"attention_gluon: q, k, v are on {q.device}, {k.device}, {v.device}; one")
    batch, heads, n_q, head_dim = q.shape
    if k.shape != v.shape:
        raise ValueError(
            f"attention_gluon: k has shape {tuple(k.shape)} and v {tuple(v.shape)}; they must match"
        )
    if k.shape[0] != batch:
        raise ValueError(
            f"attention_gluon: k and v have batch {k.shape[0]}; q has {batch} (no broadcasting)"
        )
    if (k.shape[1] == 0 and heads) or (k.shape[1] and heads % k.shape[1]):
        raise ValueError(
            f"attention_gluon: k and v have {k.shape[1]} heads and q has {heads}; q's heads "
            f"must be a multiple of k's (grouped-query attention: q's heads h read k's "
            f"head h // (q heads / k heads))"
        )
    if head_dim not in HEAD_DIMS or k.shape[3] != head_dim:
        raise ValueError(
            f"attention_gluon: head_dim (last dimension) of q is {head_dim} and of k, v is "
            f"{k.shape[3]}; it must be one of {HEAD_DIMS} for all three"
        )
    if batch > MAX_GRID_YZ or heads > MAX_GRID_YZ:
        raise ValueError(
            f"attention_gluon: q has batch {batch} and heads {heads}; each must be at most "
            f"{MAX_GRID_YZ} (they are axes 2 and 3 of the launch grid)"
        )
    if max(n_q, k.shape[2]) > MAX_TMA_DIM:
        raise ValueError(
            f"attention_gluon: q has {n_q} queries and k {k.shape[2]} keys; each must be at "
            f"most {MAX_TMA_DIM} (descriptor coordinates are 32-bit)"
        )
    if type(causal) is str:
        if causal not in CAUSAL_ALIGNMENTS:
            raise ValueError(
                "attention_gluon: causal must be a bool, 'top_left' or 'bottom_right', "
                f"got {causal!r}"
            )
    elif type(causal) is not bool:
        raise TypeError(
            f"attention_gluon: causal must be a bool or a str ('top_left', 'bottom_right'), "
            f"got {type(causal).__name__}"
        )
    if scale is None:
        scale = 1.0 / math.sqrt(head_dim)
    elif isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise TypeError(
            "attention_gluon: scale must be None or a Python float or int, "
            f"got {type(scale).__name__}"
        )
    if not 0 < scale <= MAX_FLOAT32 / LOG2_E:
        raise ValueError(f"attention_gluon: scale must be > 0 and finite in float32, got {scale}")
    if torch.is_grad_enabled():
        for name, t in (("q", q), ("k", k), ("v", v)):
            if t.requires_grad:
                raise ValueError(
                    f"attention_gluon: {name} requires grad, but this kernel is a forward for "
                    "inference with no backward; call it under torch.no_grad() or use "
                    "attention_tma to train"
                )
    if _FORWARD_AD._current_level >= 0:
        for name, t in (("q", q), ("k", k), ("v", v)):
            if _FORWARD_AD.unpack_dual(t).tangent is not None:
                raise ValueError(
                    f"attention_gluon: {name} is a dual tensor (forward-mode AD), but this "
                    f"kernel computes no tangent; pass forward_ad.unpack_dual({name}).primal"
                )
    if _capability(device)[0] != 9:
        major, minor = _capability(device)
        raise ValueError(
            f"attention_gluon: needs compute capability 9.x (Hopper: H100, H200), whose "
            f"warp-group MMA the kernel is written in; {q.device} has {major}.{minor}"
        )
    if q.numel() == 0 or k.shape[2] == 0:  # no query, or no key: a softmax over nothing
        return torch.zeros(q.shape, dtype=q.dtype, device=q.device)
    q, k, v = (_readable(t.resolve_neg() if t.is_neg() else t) for t in (q, k, v))
    if device == torch.cuda.current_device():
        return launch(q, k, v, causal, float(scale))
    with torch.cuda.device(device):
        return launch(q, k, v, causal, float(scale))


def _readable(t: torch.Tensor) -> torch.Tensor:
    return t if tma_readable(t) else t.clone(memory_format=torch.contiguous_format)


# --8<-- [end:checks]


# --8<-- [start:reference]
def reference(q, k, v, *, causal=False, scale=None):
    """Attention in float64 with the scores materialised, rounded once to q's dtype; k, v
    with fewer heads than q serve q's heads in consecutive groups."""
    q64, k64, v64 = q.double(), k.double(), v.double()
    if k.shape[-3] != q.shape[-3]:
        group = q.shape[-3] // k.shape[-3]
        k64, v64 = k64.repeat_interleave(group, -3), v64.repeat_interleave(group, -3)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    s = (q64 @ k64.transpose(-2, -1)) * scale
    n_q, n_k = s.shape[-2:]
    if not causal:
        return (torch.softmax(s, dim=-1) @ v64).to(q.dtype)
    diag = n_k - n_q if causal == "bottom_right" else 0
    keep = torch.ones(n_q, n_k, dtype=torch.bool, device=s.device).tril(diag)
    seen = keep.any(-1, keepdim=True)
    p = torch.softmax(s.masked_fill(~keep, float("-inf")).masked_fill(~seen, 0.0), dim=-1)
    return ((p * seen) @ v64).to(q.dtype)


# --8<-- [end:reference]
