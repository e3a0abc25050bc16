"""The user-space rectangle an SVG draws in: its ``viewBox``, else its ``width`` and ``height``.

Edits that move, turn, scale, flip or crop an icon must be expressed in this rectangle: a fixed
number of units is a nudge on a 1024-unit icon and throws a 24-unit icon out of the picture,
and a rotation about the origin swings an icon drawn in ``0 0 W H`` off the canvas.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

_SEPARATORS = re.compile(r"[\s,]+")
_LENGTH = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(?:px)?\s*")


@dataclass(frozen=True)
class ViewBox:
    """``x``, ``y``, ``width``, ``height`` of the user space, in user units."""

    x: float
    y: float
    width: float
    height: float

    @property
    def centre(self) -> tuple[float, float]:
        """The middle of the box: the natural pivot for rotations and scalings."""
        return self.x + self.width / 2, self.y + self.height / 2

    @property
    def size(self) -> float:
        """The longer side: what a renderer fits into its square output (``meet``)."""
        return max(self.width, self.height)


def _length(value: str | None) -> float | None:
    """A plain or ``px`` length; None for percentages, other units or junk."""
    found = _LENGTH.fullmatch(value or "")
    return float(found.group(1)) if found else None


def view_box(root: etree._Element) -> ViewBox | None:
    """The root's ``viewBox``, else ``0 0 width height``; None when neither gives a positive box."""
    box = root.get("viewBox")
    if box is not None:
        try:
            numbers = [float(value) for value in _SEPARATORS.split(box.strip())]
        except ValueError:
            return None
        if len(numbers) != 4:
            return None
        found = ViewBox(*numbers)
    else:
        width, height = _length(root.get("width")), _length(root.get("height"))
        if width is None or height is None:
            return None
        found = ViewBox(0.0, 0.0, width, height)
    return found if found.width > 0 and found.height > 0 else None
