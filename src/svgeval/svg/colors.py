"""Read SVG colour values as colours, so that different spellings of one colour compare equal.

Generators pick a colour from an SVG and check that an edit really changes it. Comparing the
attribute strings gets this wrong: ``#5c9e31`` and ``#5C9E31``, or ``#fff``, ``#ffffff``,
``white`` and ``rgb(255, 255, 255)``, are the same colour, and a recolour from one spelling to
another changes nothing in the picture. :func:`parse_color` reads the forms CairoSVG (the
reference renderer) draws: ``#rgb``, ``#rrggbb``, ``rgb()``/``rgba()`` with numbers or
percentages, and the named colours of CairoSVG's own table (the CSS names). Anything else
(``none``, ``currentColor``, ``inherit``, ``url(#...)``, ``hsl()``, which CairoSVG does not
implement) is not a colour here.
"""

from __future__ import annotations

import functools
import re

Rgba = tuple[int, int, int, int]
"""Red, green, blue and alpha, each 0-255."""

_HEX = re.compile(r"#([0-9a-f]{3}|[0-9a-f]{6})")
_FUNCTION = re.compile(r"(rgba?)\(([^()]*)\)")


@functools.cache
def _named_colors() -> dict[str, tuple[float, float, float, float]]:
    """CairoSVG's table of named colours (imported on first use: cairosvg loads cairo)."""
    from cairosvg.colors import COLORS

    return dict(COLORS)


def _channel(text: str) -> int | None:
    """One ``rgb()`` argument as 0-255: a number or a percentage, clamped as CSS does."""
    text = text.strip()
    try:
        value = float(text[:-1]) * 2.55 if text.endswith("%") else float(text)
    except ValueError:
        return None
    return round(min(255.0, max(0.0, value)))


def _from_function(kind: str, arguments: str) -> Rgba | None:
    parts = arguments.split(",")
    if len(parts) != (4 if kind == "rgba" else 3):
        return None
    channels = [_channel(part) for part in parts[:3]]
    try:
        alpha = round(min(1.0, max(0.0, float(parts[3]))) * 255) if kind == "rgba" else 255
    except ValueError:
        return None
    if any(channel is None for channel in channels):
        return None
    red, green, blue = (int(channel or 0) for channel in channels)
    return red, green, blue, alpha


def parse_color(value: str | None) -> Rgba | None:
    """The colour ``value`` names, or None when it is no plain colour (see the module doc).

    Fully transparent values (``transparent``, ``rgba(..., 0)``) count as no colour: they
    draw nothing, so there is nothing to recolour.
    """
    text = (value or "").strip().lower()
    rgba: Rgba | None = None
    named = _named_colors()
    if text in named:
        red, green, blue, alpha = named[text]
        rgba = (round(red * 255), round(green * 255), round(blue * 255), round(alpha * 255))
    elif (found := _HEX.fullmatch(text)) is not None:
        digits = found.group(1)
        if len(digits) == 3:
            digits = "".join(2 * digit for digit in digits)
        rgba = (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16), 255)
    elif (function := _FUNCTION.fullmatch(text)) is not None:
        rgba = _from_function(function.group(1), function.group(2))
    return rgba if rgba is not None and rgba[3] > 0 else None


def same_color(a: str | None, b: str | None) -> bool:
    """True when both values are colours and name the same one (``#FFF`` = ``white``)."""
    first = parse_color(a)
    return first is not None and first == parse_color(b)
