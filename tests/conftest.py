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
from pathlib import Path

import pytest

# The site tests run without torch (e.g. in the Pages workflow); only kernels need it.
if importlib.util.find_spec("torch") is not None:
    import torch

    if not torch.cuda.is_available():
        os.environ["TRITON_INTERPRET"] = "1"

        from tests import interpreter

        interpreter.install()


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """Under xdist, the controller starts the site's strict build (tests/site/support.py,
    ``start_shared_build``) as the run begins, when the run's paths include the site tests:
    it builds while the workers start and collect, instead of one worker building while
    the other waits once both reach the site tests."""
    config = session.config
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        return
    if config.getoption("collectonly", False):
        return
    site = Path(__file__).parent / "site"
    here = config.invocation_params.dir
    paths = [(here / str(arg).split("::")[0]).resolve() for arg in config.args]
    if not any(p == site or p in site.parents or site in p.parents for p in paths):
        return
    from tests.site.support import start_shared_build

    config._book_site_build = start_shared_build(config._tmp_path_factory.getbasetemp())


def pytest_unconfigure(config):
    thread = getattr(config, "_book_site_build", None)
    if thread is not None:
        thread.join()
