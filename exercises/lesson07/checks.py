"""The checks of lesson 07's exercises: they call the reader's host code, and count the
launches of the kernel through it (checking.Spy)."""

from __future__ import annotations

import re

import torch

from exercises.checking import Spy, Wrong, call, compare, guarded, ragged, rand


def stride_guard(module) -> str:
    rows, cols = ragged(9, 30), ragged(20, 60)
    with Spy(module, "scale_kernel") as spy:
        x = rand((rows, cols))
        got = call(module.scale, x, 2.5, hint=2)
        if not spy.grids:
            raise Wrong("scale returned without launching scale_kernel", hint=2)
        compare(got, 2.5 * x.double(), "scale(x)", hint=2)
        views = {
            "x[:, :k]": rand((rows, 2 * cols))[:, :cols],  # last stride 1, rows 2k apart
            "x.t()": rand((cols, rows)).t(),
            "x[::2]": rand((2 * rows, cols))[::2],
        }
        for name, view in views.items():
            launched = len(spy.grids)
            try:
                got = module.scale(view, 2.5)
            except (ValueError, TypeError) as exc:
                if not re.search(r"\bx\b", str(exc)):
                    msg = f"scale refuses {name}, but its message does not name x: {exc}"
                    raise Wrong(msg, 2) from None
                if len(spy.grids) != launched:
                    raise Wrong(f"scale refuses {name} after launching the kernel", 2) from None
                continue
            except Exception as exc:  # noqa: BLE001
                raise Wrong(f"scale({name}) raised {type(exc).__name__}: {exc}", 2) from exc
            try:
                compare(got, 2.5 * view.double(), f"scale({name})", hint=1)
            except Wrong as w:
                raise Wrong(
                    f"silently wrong on {name}, strides {view.stride()}: {w.message}", w.hint
                ) from None
    return "right on a contiguous x; every strided view refused by name or computed right"


def launch_code(module) -> str:
    sizes = []
    with Spy(module, "add_kernel") as spy:
        for dtype in (torch.float32, torch.float16):
            for block in (64, 128):
                n = ragged(150, 900)
                x, y = rand((n,), dtype), rand((n,), dtype)
                out = guarded((n,), dtype)
                got = call(module.launch, x, y, out.out, block=block, hint=1)
                if got is not out.out:
                    raise Wrong("launch(x, y, out) must return the out it was given", 1)
                if spy.grids[-1:] != [((n + block - 1) // block,)]:
                    last = spy.grids[-1] if spy.grids else "none"
                    raise Wrong(
                        f"grid for n = {n}, block = {block}: {last}, want "
                        f"({(n + block - 1) // block},)",
                        hint=2,
                    )
                out.check()
                compare(out.out, (x.double() + y.double()).to(dtype), "out", hint=2)
                sizes.append(n)
        fresh = call(module.launch, x, y, block=128, hint=1)
        compare(fresh, (x.double() + y.double()).to(x.dtype), "launch(x, y)", hint=1)
    return f"n = {', '.join(map(str, sizes))}, blocks of 64 and 128, with and without out"
