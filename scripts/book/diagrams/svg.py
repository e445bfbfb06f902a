"""A small SVG writer for the book's diagrams.

Every shape and text carries CSS classes and nothing else about colour: the colours live
in docs/assets/css/book.css ("Diagrams"), one set for the light palette and one for the
dark, so a diagram placed inline on a page follows the reader's scheme. Text stays text.

Sizes are in the drawing's own units. A drawing is WIDTH units wide and is shown at most
1.25 px per unit on a desktop; on a phone (a content column of about 350 px) a 400-unit
drawing shrinks to about 0.88 px per unit, so text of 12 units or more stays at 10.5 px
or more there. ``Drawing.text`` refuses text smaller than that, and text whose estimated
width does not fit the room it is given.
"""

from __future__ import annotations

import html
import math
import unicodedata

WIDTH = 400
MIN_TEXT = 12  # units: about 10.5 px on a 390 px phone
MAX_PX_PER_UNIT = 1.25  # on a wide screen: 13-unit text at about 16 px, the body text's size

# Advance widths of a Helvetica/Arial-like sans serif, in thousandths of an em (Liberation
# Sans, which the book's test browser uses, has the same metrics). Other system fonts run
# a little wider, hence the margin in ``text_width``.
_SANS = {
    " ": 278, "!": 278, '"': 355, "#": 556, "$": 556, "%": 889, "&": 667, "'": 191,
    "(": 333, ")": 333, "*": 389, "+": 584, ",": 278, "-": 333, ".": 278, "/": 278,
    ":": 278, ";": 278, "<": 584, "=": 584, ">": 584, "?": 556, "@": 1015, "[": 278,
    "\\": 278, "]": 278, "^": 469, "_": 556, "`": 333, "{": 334, "|": 260, "}": 334,
    "~": 584, "A": 667, "B": 667, "C": 722, "D": 722, "E": 667, "F": 611, "G": 778,
    "H": 722, "I": 278, "J": 500, "K": 667, "L": 556, "M": 833, "N": 722, "O": 778,
    "P": 667, "Q": 778, "R": 722, "S": 667, "T": 611, "U": 722, "V": 667, "W": 944,
    "X": 667, "Y": 667, "Z": 611, "a": 556, "b": 556, "c": 500, "d": 556, "e": 556,
    "f": 278, "g": 556, "h": 556, "i": 222, "j": 222, "k": 500, "l": 222, "m": 833,
    "n": 556, "o": 556, "p": 556, "q": 556, "r": 333, "s": 500, "t": 278, "u": 556,
    "v": 500, "w": 722, "x": 500, "y": 500, "z": 500,
}  # fmt: skip
_DIGIT = 556
_WIDE = 1000  # any other character (arrows, ellipses, Greek, math signs): counted wide
_MARGIN = 1.10  # SF Pro, Roboto and Segoe UI set a little wider than Arial
_MONO = 0.61  # em per character of a monospace font


def text_width(s: str, size: float, mono: bool = False, bold: bool = False) -> float:
    """Estimated width in units of ``s`` set at ``size`` units (with a safety margin)."""
    if mono:
        return len(s) * _MONO * size * 1.02
    units = sum(
        0 if unicodedata.combining(c) else _DIGIT if c.isdigit() else _SANS.get(c, _WIDE) for c in s
    )
    return units / 1000 * size * _MARGIN * (1.07 if bold else 1.0)


def _num(v: float) -> str:
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


class Drawing:
    """One diagram: a viewBox ``width`` x ``height`` units, a title and a description.

    ``name`` prefixes every id in the file, so that two diagrams on one page never share
    an id."""

    def __init__(self, name: str, height: float, title: str, desc: str, width: float = WIDTH):
        self.name, self.width, self.height = name, width, height
        self.title, self.desc = title, " ".join(desc.split())
        self.items: list[str] = []
        self.extents: list[tuple[float, float, float, float, str]] = []  # x0, y0, x1, y1, what

    # ---- shapes ---------------------------------------------------------------------
    def rect(self, x, y, w, h, cls="d-box", rx=3):
        r = f' rx="{_num(rx)}"' if rx else ""
        self.extents.append((x, y, x + w, y + h, f"rect at ({x:.0f}, {y:.0f})"))
        self.items.append(
            f'<rect class="{cls}" x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" '
            f'height="{_num(h)}"{r}/>'
        )

    def line(self, x1, y1, x2, y2, cls="d-ln"):
        self.items.append(
            f'<line class="{cls}" x1="{_num(x1)}" y1="{_num(y1)}" x2="{_num(x2)}" y2="{_num(y2)}"/>'
        )

    def path(self, d: str, cls="d-ln"):
        self.items.append(f'<path class="{cls}" d="{d}"/>')

    def poly(self, points, cls="d-head"):
        pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in points)
        self.items.append(f'<polygon class="{cls}" points="{pts}"/>')

    def circle(self, cx, cy, r, cls="d-box"):
        self.items.append(f'<circle class="{cls}" cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(r)}"/>')

    def head(self, x, y, angle, cls="d-head", size=7):
        """An arrowhead with its tip at (x, y), pointing along ``angle`` (radians)."""
        back, half = size, size * 0.45
        bx, by = x - back * math.cos(angle), y - back * math.sin(angle)
        nx, ny = -math.sin(angle) * half, math.cos(angle) * half
        self.poly([(x, y), (bx + nx, by + ny), (bx - nx, by - ny)], cls)

    def arrow(self, x1, y1, x2, y2, cls="d-ln", head="d-head", size=7, both=False):
        """A straight arrow from (x1, y1) to (x2, y2); the line stops where the head starts."""
        angle = math.atan2(y2 - y1, x2 - x1)
        dx, dy = math.cos(angle) * size * 0.8, math.sin(angle) * size * 0.8
        sx, sy = (x1 + dx, y1 + dy) if both else (x1, y1)
        self.line(sx, sy, x2 - dx, y2 - dy, cls)
        self.head(x2, y2, angle, head, size)
        if both:
            self.head(x1, y1, angle + math.pi, head, size)

    def elbow(self, points, cls="d-ln", head="d-head", size=7):
        """An arrow along a polyline, with its head at the last point."""
        *body, (x2, y2) = points
        x1, y1 = body[-1]
        angle = math.atan2(y2 - y1, x2 - x1)
        end = (x2 - math.cos(angle) * size * 0.8, y2 - math.sin(angle) * size * 0.8)
        d = "M" + " L".join(f"{_num(x)} {_num(y)}" for x, y in [*body, end])
        self.path(d, cls)
        self.head(x2, y2, angle, head, size)

    # ---- text -----------------------------------------------------------------------
    def text(
        self, x, y, content, size=13, cls="", anchor="start", room=None, mono=False, bold=False
    ):
        """Text with its baseline at y. ``content`` is a string or a list of pieces, each a
        string or (string, classes) for a <tspan>; a class ``d-mono`` sets a piece in the
        code font and ``d-b`` in bold. ``room``: the width it must fit in (default: what
        is left of the drawing from x, on the side the anchor grows)."""
        if size < MIN_TEXT:
            raise ValueError(f"{self.name}: text of {size} units is too small: {content!r}")
        pieces = [content] if isinstance(content, str) else list(content)
        width, parts = 0.0, []
        for piece in pieces:
            s, pcls = (piece, "") if isinstance(piece, str) else piece
            pm = mono or "d-mono" in pcls.split() or "d-mono" in cls.split()
            pb = bold or "d-b" in pcls.split() or "d-b" in cls.split()
            width += text_width(s, size, pm, pb)
            body = html.escape(s, quote=False)
            parts.append(f'<tspan class="{pcls}">{body}</tspan>' if pcls else body)
        if room is None:
            room = {
                "start": self.width - x,
                "end": x,
                "middle": 2 * min(x, self.width - x),
            }[anchor]
        if width > room + 0.5:
            raise ValueError(
                f"{self.name}: {''.join(p if isinstance(p, str) else p[0] for p in pieces)!r} "
                f"needs about {width:.0f} units, has {room:.0f}"
            )
        left = {"start": x, "end": x - width, "middle": x - width / 2}[anchor]
        what = "".join(p if isinstance(p, str) else p[0] for p in pieces)
        self.extents.append((left, y - 0.8 * size, left + width, y + 0.25 * size, repr(what)))
        classes = " ".join(c for c in [cls, "d-mono" if mono else "", "d-b" if bold else ""] if c)
        attrs = f' class="{classes}"' if classes else ""
        if anchor != "start":
            attrs += f' text-anchor="{anchor}"'
        at = f'x="{_num(x)}" y="{_num(y)}" font-size="{_num(size)}"'
        self.items.append(f"<text{attrs} {at}>{''.join(parts)}</text>")
        return width

    def label(self, x, y, content, size=12, cls="", anchor="middle", pad=3, **kw):
        """Text on a knock-out of the page's background: a label that sits on a line."""
        width = text_width(content, size, kw.get("mono", False), kw.get("bold", False))
        left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
        self.rect(left - pad, y - size * 0.82, width + 2 * pad, size * 1.06, "d-knock", rx=0)
        return self.text(x, y, content, size, cls, anchor, **kw)

    # ---- output ---------------------------------------------------------------------
    def svg(self) -> str:
        n = self.name
        for x0, y0, x1, y1, what in self.extents:
            if x0 < -0.5 or y0 < -0.5 or x1 > self.width + 0.5 or y1 > self.height + 0.5:
                raise ValueError(f"{n}: {what} reaches outside {self.width} x {self.height}")
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_num(self.width)} '
            f'{_num(self.height)}" style="max-width:{_num(self.width * MAX_PX_PER_UNIT)}px" '
            f'role="img" aria-labelledby="{n}-title {n}-desc">'
        )
        lines = [
            head,
            f'<title id="{n}-title">{html.escape(self.title, quote=False)}</title>',
            f'<desc id="{n}-desc">{html.escape(self.desc, quote=False)}</desc>',
            *self.items,
            "</svg>",
        ]
        return "\n".join(lines) + "\n"
