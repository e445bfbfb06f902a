"""Set up the Triton interpreter before anything imports a kernel.

Without a CUDA GPU, kernels run under the Triton interpreter (on the CPU, with NumPy).
TRITON_INTERPRET must be set before any ``@triton.jit`` function is defined, i.e. before
any module under kernels/ is imported. This root conftest is imported by pytest before
every test module in every folder, so it is the one safe place to set it. There too, one
redundant step of the interpreter is skipped (tests/interpreter.py: each call of a
``@triton.jit`` helper re-patched the language its launch had already patched).
"""

import importlib.util
import os

# The site tests run without torch (e.g. in the Pages workflow); only kernels need it.
if importlib.util.find_spec("torch") is not None:
    import torch

    if not torch.cuda.is_available():
        os.environ["TRITON_INTERPRET"] = "1"

        from tests import interpreter

        interpreter.install()
