"""Exercise 08.2 · bug hunt: GELU's tanh form, NaN for large inputs.

``gelu_tanh_kernel`` computes the tanh approximation of GELU,
``0.5 * v * (1 + tanh(u))`` with ``u = sqrt(2/pi) * (v + 0.044715 v^3)``, and writes tanh
the way a textbook does: ``(e^(2u) - 1) / (e^(2u) + 1)``. It agrees with
``torch.nn.functional.gelu(x, approximate="tanh")`` on ordinary inputs, and returns NaN on
some others. Find which, why, and fix it so that it is right for every finite float32
input, without changing what it computes for ordinary ones.

The same bug shipped in GPU kernels that ran real models: a GELU shader in PyTorch's
ExecuTorch Vulkan backend (pytorch/executorch#22323) and PyTorch's MPS tanh
(pytorch/pytorch#186278) both turned large activations (about 10 in size) into NaN.

Check it:  python -m exercises check 08.2
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def gelu_tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    u = 0.7978845608028654 * (v + 0.044715 * v * v * v)  # sqrt(2/pi) * (v + 0.044715 v^3)
    e = tl.exp(2.0 * u)
    t = (e - 1.0) / (e + 1.0)  # tanh(u)
    y = 0.5 * v * (1.0 + t)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:starter]
