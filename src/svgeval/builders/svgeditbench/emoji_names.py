"""Emoji names for SVGEditBench prompts, independent of the running Python's Unicode tables.

The paper names each Twemoji in its prompt by the Unicode name of the file's code points,
lower-cased, taken from Python 3.12's ``unicodedata`` (Unicode 15.0). Older Pythons know fewer
characters: Python 3.10 (Unicode 13.0) has no name for 5 of the 100 released emoji (wheel,
troll, x-ray, identification card, nest with eggs); Python 3.11 (Unicode 14.0) has all 100. So
the names of every code point the release uses are bundled here (:data:`RELEASE_NAMES`; Unicode
names never change once assigned), and the running Python's table serves the rest. A code
point neither knows gets no name (None), never the raw code point in its place: the builder
then leaves the icon out and says why.

Only file stems that look like Twemoji's (dash-separated hex code points of emoji, e.g.
``1f3a9`` or ``31-20e3``) are read as code points: ``cafe``, ``face``, ``404`` or ``2024``
are words or numbers, not U+CAFE, U+FACE, U+0404 or U+2024, and name themselves.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

RELEASE_NAMES: Mapping[int, str] = {
    0x231A: "watch",
    0x23E9: "black right-pointing double triangle",
    0x24C2: "circled latin capital letter m",
    0x2603: "snowman",
    0x2604: "comet",
    0x265F: "black chess pawn",
    0x2728: "sparkles",
    0x2754: "white question mark ornament",
    0x2B50: "white medium star",
    0x1F199: "squared up with exclamation mark",
    0x1F307: "sunset over buildings",
    0x1F314: "waxing gibbous moon symbol",
    0x1F324: "white sun with small cloud",
    0x1F37B: "clinking beer mugs",
    0x1F387: "firework sparkler",
    0x1F39E: "film frames",
    0x1F3A5: "movie camera",
    0x1F3A9: "top hat",
    0x1F3B1: "billiards",
    0x1F3BA: "trumpet",
    0x1F3BC: "musical score",
    0x1F3BD: "running shirt with sash",
    0x1F3DC: "desert",
    0x1F3EA: "convenience store",
    0x1F40F: "ram",
    0x1F416: "pig",
    0x1F418: "elephant",
    0x1F421: "blowfish",
    0x1F424: "baby chick",
    0x1F42A: "dromedary camel",
    0x1F436: "dog face",
    0x1F450: "open hands sign",
    0x1F46F: "woman with bunny ears",
    0x1F475: "older woman",
    0x1F477: "construction worker",
    0x1F49C: "purple heart",
    0x1F49D: "heart with ribbon",
    0x1F4A3: "bomb",
    0x1F4A9: "pile of poo",
    0x1F4CC: "pushpin",
    0x1F4CD: "round pushpin",
    0x1F4F8: "camera with flash",
    0x1F4FD: "film projector",
    0x1F500: "twisted rightwards arrows",
    0x1F521: "input symbol for latin small letters",
    0x1F536: "large orange diamond",
    0x1F556: "clock face seven oclock",
    0x1F55C: "clock face one-thirty",
    0x1F55D: "clock face two-thirty",
    0x1F575: "sleuth or spy",
    0x1F5BC: "frame with picture",
    0x1F5C2: "card index dividers",
    0x1F60A: "smiling face with smiling eyes",
    0x1F60C: "relieved face",
    0x1F60E: "smiling face with sunglasses",
    0x1F627: "anguished face",
    0x1F638: "grinning cat face with smiling eyes",
    0x1F63C: "cat face with wry smile",
    0x1F649: "hear-no-evil monkey",
    0x1F64E: "person with pouting face",
    0x1F681: "helicopter",
    0x1F6B0: "potable water symbol",
    0x1F6B6: "pedestrian",
    0x1F6DE: "wheel",
    0x1F6E4: "railway track",
    0x1F6F9: "skateboard",
    0x1F6FA: "auto rickshaw",
    0x1F7E0: "large orange circle",
    0x1F7E8: "large yellow square",
    0x1F915: "face with head-bandage",
    0x1F920: "face with cowboy hat",
    0x1F93F: "diving mask",
    0x1F95B: "glass of milk",
    0x1F968: "pretzel",
    0x1F96E: "moon cake",
    0x1F970: "smiling face with smiling eyes and three hearts",
    0x1F971: "yawning face",
    0x1F975: "overheated face",
    0x1F977: "ninja",
    0x1F97B: "sari",
    0x1F97D: "goggles",
    0x1F982: "scorpion",
    0x1F990: "shrimp",
    0x1F996: "t-rex",
    0x1F99C: "parrot",
    0x1F9B9: "supervillain",
    0x1F9C6: "falafel",
    0x1F9CC: "troll",
    0x1F9CD: "standing person",
    0x1F9DC: "merperson",
    0x1F9E1: "orange heart",
    0x1FA7B: "x-ray",
    0x1FA82: "parachute",
    0x1FA86: "nesting dolls",
    0x1FA91: "chair",
    0x1FAA3: "bucket",
    0x1FAA6: "headstone",
    0x1FAAA: "identification card",
    0x1FABA: "nest with eggs",
    0x1FAD0: "blueberries",
}
"""Lower-cased Unicode 15.0 names of the 100 code points of the SVGEditBench release."""

_EMOJI_RANGES = (
    (0x00A9, 0x00A9),
    (0x00AE, 0x00AE),
    (0x203C, 0x203C),
    (0x2049, 0x2049),
    (0x2122, 0x2BFF),
    (0x3030, 0x3030),
    (0x303D, 0x303D),
    (0x3297, 0x3299),
    (0x1F000, 0x1FAFF),
)
"""The blocks that hold emoji (the first code point of a Twemoji file name)."""
_JOINERS = (
    (0x200D, 0x200D),
    (0x20E3, 0x20E3),
    (0xFE0F, 0xFE0F),
    (0xE0020, 0xE007F),
)
"""Zero-width joiner, keycap, variation selector and tags: the glue inside emoji sequences."""
_KEYCAP_BASES = frozenset(b"#*0123456789")
_KEYCAP = 0x20E3
_HEX_PART = re.compile(r"[0-9a-f]{2,6}")
UNNAMED = (
    f"names emoji that neither the bundled table nor this Python's Unicode "
    f"{unicodedata.unidata_version} can name"
)
"""Why an icon is left out when :func:`emoji_name` returns None."""


def _within(code_point: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(low <= code_point <= high for low, high in ranges)


def emoji_code_points(stem: str) -> tuple[int, ...] | None:
    """The code points a Twemoji-style file stem names, or None when it names none.

    The first code point must be an emoji (or a keycap base ``#``, ``*``, ``0``-``9`` in a
    sequence holding the keycap U+20E3); the others emoji or sequence glue.
    """
    parts = stem.lower().split("-")
    if not all(_HEX_PART.fullmatch(part) for part in parts):
        return None
    points = tuple(int(part, 16) for part in parts)
    first_ok = _within(points[0], _EMOJI_RANGES) or (
        points[0] in _KEYCAP_BASES and _KEYCAP in points
    )
    rest_ok = all(_within(point, _EMOJI_RANGES + _JOINERS) for point in points[1:])
    return points if first_ok and rest_ok else None


def _name(code_point: int) -> str | None:
    known = RELEASE_NAMES.get(code_point)
    if known is not None:
        return known
    name = unicodedata.name(chr(code_point), "")
    return name.lower() or None


def emoji_name(stem: str) -> str | None:
    """The prompt name of a file stem: its emoji's Unicode name, or the stem as words.

    ``1f3a9`` -> ``top hat``; ``traffic-light`` -> ``traffic light``. None when the stem names
    emoji code points that neither :data:`RELEASE_NAMES` nor this Python's ``unicodedata``
    (Unicode :data:`unicodedata.unidata_version`) can name.
    """
    points = emoji_code_points(stem)
    if points is None:
        return re.sub(r"[-_]+", " ", stem).strip()
    names = [_name(point) for point in points]
    if any(name is None for name in names):
        return None
    return " ".join(str(name) for name in names)
