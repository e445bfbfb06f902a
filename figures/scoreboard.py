"""The scoreboard appendix (docs/appendix/scoreboard.md): each kernel against each peer it
was measured with, one table per lesson (or part of one), a column per device.

Every cell compares two rows of one data file (one run, one GPU): the peer's time over ours
(above 1: ours is faster), or our share of the run's copy bandwidth, with the interval of
``render.speedup`` widened by ``render.tie_margin`` in brackets, and "faster", "slower" or
"ties" (``render.ties``). "host-bound" marks a comparison of launch paths, widened also by
``launch_drift``. A row a device has not measured shows "—".
"""

from collections.abc import Callable

from figures import dot, fused_activation, matmul, reduction, softmax, variation, vector_add
from scripts.book import render
from scripts.book.render import Docs, Table, Value

Label = tuple[str, str]  # (case, what it is compared against)
SHORT = render.SHORT_DTYPE


def launch_drift(docs: Docs) -> float:
    """How far a launch-bound time moved from run to run (figures/variation.py), or 0."""
    return variation.spread(docs, "small") or 0.0


def against(
    docs: Docs, bench: str, ours: dict | None, peer: dict | None, field: str = "time_s"
) -> str | None:
    """Our row against a peer's: "faster: 1.06× (1.03–1.09)", "ties: ..." or "slower: ..."."""
    if ours is None or peer is None:
        return None
    bound = any(render.graph_host_bound(r) or render.host_bound(r) for r in (ours, peer))
    margin = render.tie_margin(render.doc(docs, bench))
    if bound or field == "host_s":
        margin = max(margin, launch_drift(docs))
    mid, low, high = render.speedup(ours[field], peer[field], margin)
    tie = render.ties(low, high)
    word = "ties" if tie else ("faster" if low > 1 else "slower")
    stale = render.reading_stale()  # measured with older code: the ratio, no word
    text = ("" if stale else f"{word}: ") + render.ratio_span(mid, low, high)
    return text + (" · host-bound" if bound else "")


def of_copy(docs: Docs, bench: str, row: dict | None) -> str | None:
    """A row's share of its run's copy bandwidth: "97% (96–98%)", "ties: 100% (99–101%)"."""
    if row is None:
        return None
    d = render.doc(docs, bench)
    ceiling = d["ceilings"]["copy"]
    scale = row["bytes"] / ceiling["bytes"]
    mid, low, high = (
        scale * v for v in render.speedup(row["time_s"], ceiling["time_s"], render.tie_margin(d))
    )
    tie = render.ties(low, high)
    stale = render.reading_stale()
    return ("ties: " if tie and not stale else "") + render.ratio_span(mid, low, high, percent=True)


def launch_note(docs: Docs) -> str:
    """The run line's note for host times: the margin ``launch_drift`` adds, if any."""
    drift = launch_drift(docs)
    if drift:
        return f"a launch-bound time moved by up to {drift:.1%} from run to run on this GPU"
    return "no run-to-run measurement on this GPU: intervals widened by 1% only"


def drift_note(*benches: str) -> Callable[[Docs], str]:
    """The run line's note: how far apart the run timed the same cuBLAS product twice."""

    def note(docs: Docs) -> str:
        drifts = [render.repeat_drift(docs[b]) for b in benches if b in docs]
        worst = max(drifts, default=0.0)
        return f"cuBLAS 8192³ timed twice in the run, {worst:.1%} apart" if worst else ""

    return note


def power_of_two(n: int) -> str:
    """2²⁸ for a power of two, else the number with thousands separators."""
    return render.powers(f"2^{n.bit_length() - 1}") if n & (n - 1) == 0 else f"{n:,}"


def get(lookup: Callable[..., dict], *args) -> dict | None:
    """A family helper's row (``lookup(docs, ...)``), or None where not measured."""
    try:
        return lookup(*args)
    except (render.RenderError, IndexError):
        return None


class Cells(dict):
    """{(case, against): text}, in the order set; a cell that is None is not set."""

    def put(self, case: str, what: str, text: str | None) -> None:
        if text is not None:
            self[(case, what)] = text

    def versus(self, docs: Docs, bench: str, case: str, ours, peers, copy=False, field="time_s"):
        """The case's cells: ``ours`` against copy (with ``copy``), then each peer."""
        if copy:
            self.put(case, "copy", of_copy(docs, bench, ours))
        for name, peer in peers:
            self.put(case, name, against(docs, bench, ours, peer, field))


def paired(bench: str, mine: dict, order, label, same, peers, copy=False):
    """Cells for each timed row matching ``mine`` against each peer's row equal in ``same``."""

    def cells_of(docs: Docs) -> Cells:
        cells = Cells()
        for r in sorted(render.rows(docs, bench, **mine), key=order):
            if "time_s" in r:
                match = {k: r[k] for k in same}
                found = [(name, render.ran(docs, bench, impl=p, **match)) for p, name in peers]
                cells.versus(docs, bench, label(r), r, found, copy)
        return cells

    return cells_of


DOT_SIZES = (4096, 8192)  # the squares the lesson reads; 2048³ is over in tens of µs
DOT_PRECISION = {"ieee": "fp32", "tf32": "tf32", "fp16": "fp16", "bf16": "bf16", "fp8": "fp8"}


def dot_cells(docs: Docs) -> Cells:
    cells = Cells()
    for precision, short in DOT_PRECISION.items():
        for n in DOT_SIZES:  # the kernel's row is the fastest of its block configs
            peers = [("cuBLAS", dot.best(docs, "cublas", precision, n))]
            cells.versus(
                docs, dot.BENCH, f"{short}, {n}³", dot.best(docs, "triton", precision, n), peers
            )
    return cells


REDUCTION_WIDTHS = (4096, 65536)  # a row one tile holds, and the widest, walked in tiles


def reduction_cells(docs: Docs) -> Cells:
    cells, bench = Cells(), reduction.BENCH
    for op, _ in reduction.OPS:
        for dtype in reduction.DTYPES:
            for cols in REDUCTION_WIDTHS:
                ours, torch = (render.ran(docs, bench, impl=i, op=op, dtype=dtype, cols=cols)
                               for i in ("triton", "torch"))  # fmt: skip
                peers = [(f"torch.{'amax' if op == 'max' else op}", torch)]
                cells.versus(
                    docs, bench, f"{op}, {SHORT[dtype]}, {cols:,} columns", ours, peers, True
                )
    return cells


def vector_add_cells(docs: Docs) -> Cells:
    cells, bench = Cells(), vector_add.BENCH
    for dtype in vector_add.DTYPES:
        ours = vector_add.largest(docs, "triton", dtype)
        case = f"{SHORT[dtype]}, {power_of_two(ours['n'])} elements"
        peers = [("torch.add", get(vector_add.largest, docs, "torch", dtype))]
        cells.versus(docs, bench, case, ours, peers, copy=True)
    return cells


FUSED_PEERS = (("eager", "eager PyTorch (3 kernels)"), ("compile", "torch.compile"))


def fused_activation_cells(docs: Docs) -> Cells:
    cells, bench = Cells(), fused_activation.BENCH
    for case, (_, words) in fused_activation.CASES.items():
        ours = get(fused_activation.pick, docs, "triton", case)
        peers = [(name, get(fused_activation.pick, docs, p, case)) for p, name in FUSED_PEERS]
        cells.versus(docs, bench, words, ours, peers, copy=True)
    return cells


SQUARE_SIZES = (4096, 8192)  # smaller squares time the wrapper's host path (lesson 09)
SQUARE_PEERS = (("cublas", "cuBLAS"), ("compile", "torch.compile"))
EPILOGUE_PEERS = (
    ("cublas_eager", "cuBLAS, then bias add and GELU"),
    ("cublas_addmm", "addmm, then GELU"),
)


def matmul_square_cells(docs: Docs) -> Cells:
    cells, bench = Cells(), matmul.SQUARES
    for dtype, short in matmul.DTYPES:
        for n in SQUARE_SIZES:
            ours = get(matmul.square, docs, "triton", dtype, n)
            peers = [(name, get(matmul.square, docs, p, dtype, n)) for p, name in SQUARE_PEERS]
            cells.versus(docs, bench, f"{short}, {n}³", ours, peers)
    return cells


def matmul_epilogue_cells(docs: Docs) -> Cells:
    cells, bench = Cells(), matmul.EPILOGUE
    for n in SQUARE_SIZES:
        peers = [(name, render.ran(docs, bench, impl=p, m=n)) for p, name in EPILOGUE_PEERS]
        cells.versus(
            docs, bench, f"bf16, {n}³", render.ran(docs, bench, impl="triton_fused", m=n), peers
        )
    return cells


SOFTMAX_PEERS = (("torch", "torch.softmax"), ("compile", "torch.compile"), ("liger", "Liger"))


RMSNORM = "rmsnorm"
RMSNORM_PEERS = (
    ("compile", "torch.compile"),
    ("rms_norm", "F.rms_norm"),
    ("liger", "Liger"),
    ("eager", "eager formula"),
)


ATTENTION = "attention"
ATTENTION_N = 4096  # the sequence length at which every peer runs
ATTENTION_PEERS = (
    ("sdpa_cudnn", "SDPA, cuDNN"),
    ("flex", "FlexAttention"),
    ("sdpa_flash", "SDPA, flash"),
)
SAME_SHAPE = ("direction", "dtype", "batch", "heads", "n", "head_dim", "causal")


def attention_case(r: dict) -> str:
    shape = f"{SHORT[r['dtype']]}, {r['batch']} × {r['heads']} heads × {r['n']:,}"
    return f"d = {r['head_dim']}, {'causal' if r['causal'] else 'full'} ({shape})"


TMA, TMA_EPILOGUE = "matmul_tma", "matmul_tma_epilogue"
TMA_KERNELS = (("tma", "TMA"), ("tma_ws", "TMA, warp-specialized"))


def matmul_tma_cells(docs: Docs) -> Cells:
    cells = Cells()
    for impl, name in TMA_KERNELS:
        for dtype, short in matmul.DTYPES:
            for n in SQUARE_SIZES:
                ours, cublas = (render.ran(docs, TMA, impl=i, dtype=dtype, m=n, n=n, k=n)
                                for i in (impl, "cublas"))  # fmt: skip
                cells.versus(docs, TMA, f"{name}, {short}, {n}³", ours, [("cuBLAS", cublas)])
    for n in SQUARE_SIZES:
        fused, eager = (
            render.ran(docs, TMA_EPILOGUE, impl=i, m=n) for i in ("tma_fused", "cublas_eager")
        )
        peers = [("cuBLAS, then bias add and GELU", eager)]
        cells.versus(docs, TMA_EPILOGUE, f"TMA + bias + GELU, bf16, {n}³", fused, peers)
    return cells


LCE = "linear_cross_entropy"
LCE_PEERS = (("eager", "eager PyTorch"), ("compile", "torch.compile"), ("liger", "Liger"))


FP8 = "fp8_matmul"
FP8_MODES = {"tensor": "per-tensor", "row": "per-row", "block": "128×128 blocks"}


def fp8_cells(docs: Docs) -> Cells:
    """Each scaling and sum of the FP8 kernel against ``torch._scaled_mm`` with the same
    (block scales: its only mode) and the bf16 cuBLAS product, per shape."""
    cells = Cells()
    for r in sorted(render.rows(docs, FP8, impl="triton"), key=lambda r: r["m"] * r["n"] * r["k"]):
        shape = {k: r[k] for k in ("m", "n", "k")}
        mode = r["scaling"]
        accum = None if mode == "block" else r["fast_accum"]
        sums = "" if mode == "block" else (", fast sums" if accum else ", promoted sums")
        peers = [
            (
                "_scaled_mm",
                render.ran(docs, FP8, impl="scaled_mm", scaling=mode, fast_accum=accum, **shape),
            ),
            ("bf16 cuBLAS", render.ran(docs, FP8, impl="cublas_bf16", **shape)),
        ]
        case = f"{FP8_MODES[mode]}{sums}, {r['m']:,}×{r['n']:,}×{r['k']:,}"
        cells.versus(docs, FP8, case, r, peers)
    return cells


DECODE = "decode_attention"
DECODE_PEERS = (
    ("sdpa", "SDPA"),
    ("flex", "FlexAttention"),
    ("attention", "lesson 12's kernel"),
)
ALL_REDUCE = "all_reduce"


def message_size(n: int) -> str:
    """An all-reduce's message in KiB below 1 MiB, else in MiB, as lesson 18 writes them."""
    return render.kib(n) if n < 2**20 else render.mib(n)


LAUNCH_LEAN = "launch_lean"
HOST_CALLS = (
    ("lean", "the lean path (LeanAdd)"),
    ("wrapper", "the checked wrapper (vector_add)"),
    ("launcher", "the bare launcher, no checks"),
)


def host_cost_cells(docs: Docs) -> Cells:
    cells, torch_add = Cells(), render.one(docs, LAUNCH_LEAN, key="torch_add")
    for key, name in HOST_CALLS:
        ours = render.maybe_one(docs, LAUNCH_LEAN, absent_ok=True, key=key)
        cells.versus(
            docs, LAUNCH_LEAN, name, ours, [("torch.add(out=)", torch_add)], field="host_s"
        )
    return cells


TABLES = {
    "scoreboard-05": Table(
        (dot.BENCH,), dot_cells, ("precision, square", "against"), drift_note(dot.BENCH)
    ),  # fmt: skip
    "scoreboard-06": Table((reduction.BENCH,), reduction_cells, ("op, dtype, width", "against")),
    "scoreboard-07": Table((vector_add.BENCH,), vector_add_cells, ("vector add", "against")),
    "scoreboard-08": Table((fused_activation.BENCH,), fused_activation_cells, ("case", "against")),
    "scoreboard-09-squares": Table(
        (matmul.SQUARES,), matmul_square_cells, ("square", "against"), drift_note(matmul.SQUARES)
    ),
    "scoreboard-09-llm": Table(
        (matmul.LLM,),
        paired(
            matmul.LLM,
            {"impl": "triton"},
            lambda r: r["m"],
            lambda r: f"{SHORT[r['dtype']]}, M = {r['m']:,} (N = {r['n']:,}, K = {r['k']:,})",
            ("dtype", "m", "n", "k"),
            (("cublas", "cuBLAS"),),
        ),
        ("shape", "against"),
        launch_note,
    ),
    "scoreboard-09-epilogue": Table(
        (matmul.EPILOGUE,),
        matmul_epilogue_cells,
        ("fused bias + GELU", "against"),
        drift_note(matmul.EPILOGUE),
    ),
    **{
        f"scoreboard-10-{direction}-{SHORT[dtype]}": Table(
            (softmax.BENCH,),
            paired(
                softmax.BENCH,
                {"impl": "triton", "direction": direction, "dtype": dtype},
                lambda r: r["cols"],
                lambda r: f"{r['cols']:,} columns",
                ("direction", "dtype", "cols"),
                SOFTMAX_PEERS,
                copy=True,
            ),
            ("row width", "against"),
        )
        for direction in ("forward", "backward")
        for dtype in softmax.DTYPES
    },
    **{
        f"scoreboard-11-{direction}": Table(
            (RMSNORM,),
            paired(
                RMSNORM,
                {"impl": "triton", "direction": direction},
                lambda r: (r["dtype"] != "bfloat16", r["hidden"]),
                lambda r: f"{SHORT[r['dtype']]}, H = {r['hidden']:,}",
                ("direction", "dtype", "hidden", "rows"),
                RMSNORM_PEERS,
                copy=True,
            ),
            ("hidden size", "against"),
        )
        for direction in ("forward", "backward")
    },
    **{
        f"scoreboard-12-{direction}": Table(
            (ATTENTION,),
            paired(
                ATTENTION,
                {"impl": "triton", "direction": direction, "n": ATTENTION_N},
                lambda r: (r["head_dim"], r["causal"]),
                attention_case,
                SAME_SHAPE,
                ATTENTION_PEERS,
            ),
            ("head size, mask", "against"),
        )
        for direction in ("forward", "backward")
    },
    "scoreboard-13": Table(
        (TMA, TMA_EPILOGUE),
        matmul_tma_cells,
        ("kernel, square", "against"),
        drift_note(TMA, TMA_EPILOGUE),
    ),
    "scoreboard-14": Table(
        (LAUNCH_LEAN,), host_cost_cells, ("call, 128 floats", "against"), launch_note
    ),
    "scoreboard-15": Table(
        (LCE,),
        paired(
            LCE,
            {"impl": "triton"},
            lambda r: r["tokens"],
            lambda r: f"{SHORT[r['dtype']]}, N = {r['tokens']:,} tokens",
            ("dtype", "tokens", "hidden", "vocab"),
            LCE_PEERS,
        ),
        ("training step", "against"),
    ),
    "scoreboard-16": Table((FP8,), fp8_cells, ("product", "against")),
    "scoreboard-17": Table(
        (DECODE,),
        paired(
            DECODE,
            {"impl": "triton"},
            lambda r: (r["batch"], r["n"]),
            lambda r: f"batch {r['batch']}, N = {r['n']:,}",
            ("dtype", "batch", "n", "n_q", "head_dim", "heads", "kv_heads"),
            DECODE_PEERS,
            copy=True,
        ),
        ("cache read", "against"),
    ),
    "scoreboard-18": Table(
        (ALL_REDUCE,),
        paired(
            ALL_REDUCE,
            {"impl": "triton"},
            lambda r: r["bytes"],
            lambda r: f"{SHORT[r['dtype']]}, {message_size(r['bytes'])}",
            ("dtype", "bytes"),
            (("nccl", "NCCL"),),
        ),
        ("all-reduce, 2 GPUs", "against"),
    ),
}


def drift(docs: Docs, bench: str) -> float:
    """How far apart the run of ``bench`` timed cuBLAS on 8192³ twice, a fraction."""
    return render.repeat_drift(render.doc(docs, bench))


VALUES = {"scoreboard.drift": Value(drift, render.percent1)}
