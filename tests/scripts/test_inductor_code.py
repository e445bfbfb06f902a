"""The inductor_code benchmark finds the Triton kernels in Inductor's output code and the
launches of them, and its figure module trims a kernel to its @triton.jit function and
renders "not captured" before a GPU run (runs on a CPU: no compiling here).

The output code below is a made-up module in the shape Inductor writes (a kernel is a
string handed to ``async_compile.triton``, launched by ``name.run(...)`` in ``call``).
"""

from __future__ import annotations

from figures import inductor_code as fig
from scripts.bench.benchmarks import inductor_code as bench

FAKE_OUTPUT = """
from torch._inductor.async_compile import AsyncCompile
async_compile = AsyncCompile()

triton_poi_fused_add_mul_0 = async_compile.triton('triton_poi_fused_add_mul_0', '''
import triton
import triton.language as tl

@triton_heuristics.pointwise(
    size_hints={'x': 1024},
)
@triton.jit
def triton_poi_fused_add_mul_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK

    tmp0 = tl.load(in_ptr0 + (xoffset), None)
    tl.store(out_ptr0 + (xoffset), tmp0, None)
''', device_str='cuda')

triton_red_fused_sum_1 = async_compile.triton('triton_red_fused_sum_1', '''
@triton.jit
def triton_red_fused_sum_1(in_ptr0, out_ptr0, xnumel, r0_numel):
    pass
''', device_str='cuda')

def call(args):
    triton_poi_fused_add_mul_0.run(arg0_1, buf0, 1024, stream=stream0)
    triton_red_fused_sum_1.run(buf0, buf1, 4, 256, stream=stream0)
    triton_poi_fused_add_mul_0.run(buf1, buf2, 1024, stream=stream0)
"""


def test_kernels_are_found_with_their_source():
    found = bench.triton_kernels(FAKE_OUTPUT)
    assert [name for name, _ in found] == ["triton_poi_fused_add_mul_0", "triton_red_fused_sum_1"]
    assert "def triton_poi_fused_add_mul_0(" in found[0][1]
    assert "triton_red_fused_sum_1" not in found[0][1]  # each source stops at its own '''


def test_launches_are_counted_in_call():
    names = [name for name, _ in bench.triton_kernels(FAKE_OUTPUT)]
    assert bench.launches(FAKE_OUTPUT, names) == 3


def test_listing_starts_at_triton_jit_and_highlights_memory():
    src = bench.triton_kernels(FAKE_OUTPUT)[0][1]
    lines = fig.jit_function(src)
    assert lines[0] == "@triton.jit" and all(line.strip() for line in lines)
    docs = {"inductor_code": {"rows": [{"kind": "code", "peer": "rmsnorm", "text": src}]}}
    text = fig.kernel(docs, "rmsnorm")
    assert text.startswith('```python hl_lines="4 5"\n@triton.jit'), text


def test_long_kernels_are_cut_and_say_so():
    src = "@triton.jit\ndef k():\n" + "\n".join(f"    t{i} = {i}" for i in range(100))
    lines = fig.jit_function(src)
    assert len(lines) == fig.MAX_LINES + 1 and "57 more lines" in lines[-1]


def test_values_say_not_measured_without_data():
    kernel = fig.VALUES["inductor_code.kernel"]
    assert kernel.text(kernel.compute({}, peer="rmsnorm")).startswith("*Not captured yet")
    time = fig.VALUES["inductor_code.time"]
    assert time.text(time.compute({}, case="recompile")) == "not measured"
