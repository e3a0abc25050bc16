"""Tiny SVGEditBench V2 triplet folders in the released layout (``src/restore_dataset.py``)."""

from __future__ import annotations

from pathlib import Path

from svgeval.builders.svgeditbench_v2.builtin import write_triplet

SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36">{}</svg>'
RED_CIRCLE = SVG.format('<circle cx="18" cy="18" r="12" fill="#d22"/>')
BLUE_CIRCLE = SVG.format('<circle cx="18" cy="18" r="12" fill="#22d"/>')
RED_SQUARE = SVG.format('<rect x="6" y="6" width="24" height="24" fill="#d22"/>')
GREEN_CLOCK = SVG.format('<g transform="translate(2 0)"><circle cx="16" cy="18" r="14" '
                         'fill="#2a2"/><path d="M16 18 L16 8 M16 18 L24 18" stroke="#000"/></g>')

TRIPLETS = {
    "0000": (RED_CIRCLE, BLUE_CIRCLE, "Make the circle blue.", "twemoji_1f535.png"),
    "0001": (RED_CIRCLE, RED_SQUARE, "Turn the circle into a square.",
             "fluentui_flat_red_square_flat.png"),
    "0002": (RED_SQUARE, GREEN_CLOCK, "Draw a green clock at three.",
             "noto-emoji_emoji_u1f552.png"),
}

SHAPE_MARKUP = {
    "star": ('<circle fill="#FFCC4D" cx="18" cy="18" r="17"/><polygon fill="#F4900C" '
             'points="18,4 22,14 33,14 24,21 27,32 18,25 9,32 12,21 3,14 14,14"/>'),
    "chart": ('<rect fill="#CCD6DD" x="2" y="2" width="32" height="32" rx="4"/><polyline '
              'fill="none" stroke="#DD2E44" stroke-width="2" '
              'points="5,28 12,18 19,22 26,9 31,12"/>'),
    "flag": ('<rect fill="#55ACEE" x="4" y="6" width="28" height="20" rx="3" ry="3"/><rect '
             'fill="#FFFFFF" x="8" y="10" width="20" height="12"/><circle fill="#DD2E44" '
             'cx="18" cy="16" r="4"/>'),
}
SHAPE_TARGETS = {name: SVG.format(markup) for name, markup in SHAPE_MARKUP.items()}
"""Emoji-like targets drawn with ``<polygon>``, ``<polyline>`` + ``<rect rx>`` and
``<rect rx ry>`` (issue 27's triplets 0017, 0020 and 0023), each answered moved by
:func:`shifted_shape`."""


def shifted_shape(name: str) -> str:
    """The answer to ``SHAPE_TARGETS[name]``: its drawing moved by ``translate(5.4 3.6)``."""
    return SVG.format(f'<g transform="translate(5.4 3.6)">{SHAPE_MARKUP[name]}</g>')


def write_triplets(root: Path) -> Path:
    """The folders ``<root>/<id>/{before,after}.svg, instruction.txt, metadata.json``."""
    for triplet_id, (before, after, instruction, after_file) in TRIPLETS.items():
        write_triplet(root / triplet_id, before, after, instruction,
                      ("twemoji_1f534.png", after_file), 0.1)
    return root
