"""Checks of lesson 14's exercises."""

import re

import torch

from exercises.checking import Wrong, book_value, compare, jit, nearest_choice, ragged, rand


class _Counted:
    """Stands in for the reader's kernel inside their wrapper: counts launches, forwards."""

    def __init__(self, kernel):
        self.kernel, self.launches = kernel, 0

    def __getitem__(self, grid):
        self.launches += 1
        return self.kernel[grid]


def strides(module) -> str:
    kernel = jit(module, "scale_kernel")
    wrapper = getattr(module, "scale", None)
    if not callable(wrapper):
        raise Wrong("the file has no function scale: keep the starter's names")
    base = rand((24, 40))
    views = (
        ("a contiguous x", rand((30, 50))),
        ("a transposed x, x.t()", base.t()),
        ("a slice with a step, x[:, ::2]", base[:, ::2]),
        ("a slice of a wider row, x[:, 5:25]", base[:, 5:25]),
        ("an expanded x, x.expand(8, 40)", base[:1].expand(8, 40)),
    )
    refused = []
    for name, x in views:
        counted = _Counted(kernel)
        module.scale_kernel = counted  # the wrapper looks its kernel up when it is called
        try:
            try:
                out = wrapper(x, 1.5)
            except ValueError as exc:
                if name == "a contiguous x":
                    raise Wrong(f"scale refused {name}: {exc}", hint=1) from None
                if not re.search(r"\bx\b", str(exc)):
                    msg = f"scale refused {name} but its message does not name x: {exc}"
                    raise Wrong(msg, hint=2) from None
                refused.append(name.split(",")[0])
                continue
            except Exception as exc:  # noqa: BLE001 - whatever the reader's wrapper raises
                raise Wrong(f"scale raised {type(exc).__name__} on {name}: {exc}", hint=2) from None
        finally:
            module.scale_kernel = kernel
        if counted.launches == 0:
            raise Wrong(f"scale returned without launching scale_kernel on {name}")
        if not isinstance(out, torch.Tensor):
            raise Wrong(f"scale returned a {type(out).__name__} on {name}, not a tensor")
        try:
            compare(out, x.double() * 1.5, "out", hint=1)
        except Wrong as w:
            raise Wrong(f"on {name}: {w.message}", hint=w.hint) from None
    right = [name.split(",")[0] for name, _ in views if name.split(",")[0] not in refused]
    said = f"; refused, naming x: {', '.join(refused)}" if refused else ""
    return f"right on {', '.join(right)}{said}"


def version(module) -> str:
    kernel = jit(module, "scale_kernel")
    wrapper = getattr(module, "scale", None)
    if not callable(wrapper):
        raise Wrong("the file has no function scale: keep the starter's names")
    n = ragged(300, 900)
    x = rand((n,))
    counted = _Counted(kernel)
    module.scale_kernel = counted
    try:
        fresh = wrapper(x, 1.5)
        out = torch.empty_like(x)
        returned = wrapper(x, 2.0, out=out)
        # The case that matters: out is a tensor autograd saved (sigmoid saves its output).
        a = rand((n,)).requires_grad_()
        y = torch.sigmoid(a)
        with torch.no_grad():
            wrapper(x, 3.0, out=y)
    finally:
        module.scale_kernel = kernel
    if counted.launches < 3:
        raise Wrong("scale returned without launching scale_kernel")
    compare(fresh, x.double() * 1.5, "scale(x, 1.5)", hint=2)
    compare(out, x.double() * 2.0, "out", hint=2)
    if returned is not out:
        raise Wrong("scale(x, alpha, out=out) must return out itself, as torch's out= ops do")
    try:
        y.sum().backward()
    except RuntimeError as exc:
        if "modified by an inplace operation" in str(exc):
            return "right values, and a backward that saved out refuses to run once scale wrote it"
        raise
    raise Wrong(
        "scale wrote into a tensor that sigmoid saved for its backward, and the backward ran "
        "anyway, on the new values: its gradient is silently wrong (torch.mul(..., out=y) "
        "would have made it raise)",
        hint=1,
    )


RATIOS = (1, 1.25, 2, 3, 5)


def lean(module) -> str:
    ratio = book_value("h100", "launch_lean.ratio", of="lean", to="torch_add")
    wrong = (
        f"not {{guess}}: on our H100 a LeanAdd call took {ratio:.2f} times torch.add's host "
        "time, nearest to {want}"
    )
    nearest_choice(module, RATIOS, ratio, wrong)
    return f"on our H100 a LeanAdd call took {ratio:.2f} times torch.add's host time"
