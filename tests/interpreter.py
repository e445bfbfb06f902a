"""One redundant step of the Triton interpreter skipped, for the test suite's speed.

Under the interpreter a launch first "patches" ``triton.language`` (every builtin of
``tl``, ``tl.core``, ``tl.tensor`` and ``tl.math`` swapped for its NumPy version, found
with ``inspect.getmembers``), runs every program, then restores the module. Each call of
a ``@triton.jit`` helper *inside* the kernel patches again, though the launch's patch is
still in place: the builtins it finds are already swapped (a swapped one is no longer a
builtin, so it is left alone) and the rest is set to the same functions once more. That
repeated walk of the language was a third of the interpreter's time on the attention
kernels, whose loops call helpers thousands of times per test.

``install()`` skips exactly that repeat. Within one launch nothing undoes a patch until
the launch ends (a helper's patch is never undone at all), so once a language module has
been patched in a launch (by the launch, or by a helper whose globals see a module the
launch's did not, e.g. ``tl.core`` for ``tl.standard``'s helpers) a later helper that sees
only patched modules would change nothing but swap functions for identical ones: its patch
is skipped. Every other call patches as before. The kernels, their programs and what they
compute are untouched: the same code runs on the same patched language.

``BOOK_STOCK_INTERPRETER=1`` leaves the interpreter as Triton ships it (to compare, or if a
Triton upgrade changes these internals: ``install`` checks the names it relies on and does
nothing when one is missing).
"""

from __future__ import annotations

import functools
import os
import threading

# .launching: a launch has started and not patched yet; .covered: the language modules
# patched so far in the running launch (None: no launch running)
_state = threading.local()


def _langs(fn, tl) -> frozenset[int]:
    """The language modules visible from ``fn``'s globals, as ``_patch_lang`` finds them."""
    core = tl.core
    return frozenset(id(v) for v in fn.__globals__.values() if v is tl or v is core)


def install() -> bool:
    """Skip the repeated patch of helpers inside a launch; False if left as shipped."""
    if os.environ.get("BOOK_STOCK_INTERPRETER") == "1":
        return False
    from triton.runtime import interpreter as ip

    needed = ("_patch_lang", "_LangPatchScope", "GridExecutor", "tl")
    if not all(hasattr(ip, name) for name in needed) or getattr(ip, "_book_fast", False):
        return False
    tl, patch_lang = ip.tl, ip._patch_lang

    def _patch_lang(fn):
        langs, covered = _langs(fn, tl), getattr(_state, "covered", None)
        if covered is None:  # no launch running, or the launch's own patch (its first)
            scope = patch_lang(fn)
            if getattr(_state, "launching", False):
                _state.launching, _state.covered = False, set(langs)
            return scope
        if langs <= covered:
            return ip._LangPatchScope()  # nothing to do: restoring it restores nothing
        scope = patch_lang(fn)  # a module the launch had not patched: patched from now on
        covered |= langs
        return scope

    launch = ip.GridExecutor.__call__

    @functools.wraps(launch)
    def call(self, *args, **kwargs):
        outer = getattr(_state, "launching", False), getattr(_state, "covered", None)
        _state.launching, _state.covered = True, None
        try:
            return launch(self, *args, **kwargs)
        finally:
            _state.launching, _state.covered = outer

    ip._patch_lang = _patch_lang
    ip.GridExecutor.__call__ = call
    ip._book_fast = True
    return True
