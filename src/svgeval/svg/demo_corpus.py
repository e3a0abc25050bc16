"""A small corpus of icons drawn for svgeval, used by ``svgeval demo`` and the tests.

Twelve 36x36 icons in the style of Twemoji (a ``viewBox="0 0 36 36"`` root, flat ``fill``
colours, a mix of ``<path>`` and basic shapes), so the SVGEditBench rules apply to them. They are
original drawings of this project, free of third-party licences.
"""

from __future__ import annotations

from pathlib import Path

_HEAD = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36">'

DEMO_ICONS: dict[str, str] = {
    "sun": (
        '<circle fill="#FFAC33" cx="18" cy="18" r="8"/>'
        '<path fill="#FFCC4D" d="M17 2h2v6h-2zM17 28h2v6h-2zM2 17h6v2H2zM28 17h6v2h-6z"/>'
        '<path fill="#FFCC4D" d="M6 7.4L7.4 6l4.2 4.2-1.4 1.4zM24.4 25.8l1.4-1.4 4.2 4.2-1.4 1.4z"/>'
    ),
    "house": (
        '<path fill="#C1694F" d="M6 17h24v17H6z"/>'
        '<path fill="#DD2E44" d="M18 3L2 18h32z"/>'
        '<rect fill="#662113" x="15" y="24" width="6" height="10"/>'
        '<rect fill="#88C9F9" x="9" y="20" width="4" height="4"/>'
        '<rect fill="#88C9F9" x="23" y="20" width="4" height="4"/>'
    ),
    "tree": (
        '<rect fill="#8A4B38" x="16" y="24" width="4" height="10"/>'
        '<path fill="#77B255" d="M18 2L6 26h24z"/>'
        '<path fill="#5C913B" d="M18 10l-8 16h16z"/>'
    ),
    "heart": (
        '<path fill="#DD2E44" d="M18 33S3 23 3 13a7.5 7.5 0 0 1 15-2 7.5 7.5 0 0 1 15 2c0 10-15 20-15 20z"/>'
        '<ellipse fill="#F4ABBA" cx="10" cy="12" rx="2.5" ry="1.5"/>'
    ),
    "star": (
        '<path fill="#FFAC33" d="M18 2l4.9 10.5 11.1 1.3-8.2 7.7 2.2 11.2L18 27.1 8 32.7l2.2-11.2'
        '-8.2-7.7 11.1-1.3z"/>'
        '<circle fill="#FFD983" cx="18" cy="17" r="4"/>'
    ),
    "flag": (
        '<rect fill="#66757F" x="5" y="3" width="2" height="31"/>'
        '<path fill="#3B88C3" d="M7 4h24l-5 7 5 7H7z"/>'
        '<circle fill="#FFFFFF" cx="16" cy="11" r="3"/>'
    ),
    "moon": (
        '<circle fill="#292F33" cx="18" cy="18" r="17"/>'
        '<path fill="#FFD983" d="M22 6a12 12 0 1 0 8 18A10 10 0 0 1 22 6z"/>'
    ),
    "mushroom": (
        '<path fill="#E6E7E8" d="M13 20h10v12a2 2 0 0 1-2 2h-6a2 2 0 0 1-2-2z"/>'
        '<path fill="#DD2E44" d="M2 21C2 11 9 4 18 4s16 7 16 17z"/>'
        '<circle fill="#FFFFFF" cx="11" cy="13" r="3"/>'
        '<circle fill="#FFFFFF" cx="24" cy="11" r="2.5"/>'
    ),
    "cup": (
        '<path fill="#CCD6DD" d="M6 10h20v16a6 6 0 0 1-6 6h-8a6 6 0 0 1-6-6z"/>'
        '<path fill="none" stroke="#CCD6DD" stroke-width="3" d="M26 14h3a4 4 0 0 1 0 8h-3"/>'
        '<rect fill="#8A4B38" x="8" y="12" width="16" height="4"/>'
    ),
    "fish": (
        '<ellipse fill="#55ACEE" cx="16" cy="18" rx="12" ry="8"/>'
        '<path fill="#3B88C3" d="M26 18l8-7v14z"/>'
        '<circle fill="#292F33" cx="10" cy="16" r="1.5"/>'
    ),
    "traffic light": (
        '<rect fill="#31373D" x="11" y="2" width="14" height="32" rx="3"/>'
        '<circle fill="#DD2E44" cx="18" cy="9" r="4"/>'
        '<circle fill="#FFCC4D" cx="18" cy="18" r="4"/>'
        '<circle fill="#77B255" cx="18" cy="27" r="4"/>'
    ),
    "balloon": (
        '<path fill="#BE1931" d="M18 2c6.6 0 11 5 11 11 0 8-7 14-11 14S7 21 7 13C7 7 11.4 2 18 2z"/>'
        '<path fill="#FFFFFF" d="M12 10c0-2 2-4 4-4-1 2-2 3-4 4z"/>'
        '<path fill="none" stroke="#66757F" d="M18 27c-2 3 2 5 0 8"/>'
    ),
}
"""Icon name -> SVG body (without the root element)."""


def demo_svg(name: str) -> str:
    """The full SVG code of the demo icon ``name``."""
    return f"{_HEAD}{DEMO_ICONS[name]}</svg>"


def write_demo_corpus(folder: Path) -> dict[str, str]:
    """Write every demo icon to ``folder/<name>.svg`` (spaces become ``-``); returns stem -> name."""
    folder.mkdir(parents=True, exist_ok=True)
    names = {}
    for name in DEMO_ICONS:
        stem = name.replace(" ", "-")
        (folder / f"{stem}.svg").write_text(demo_svg(name), encoding="utf-8")
        names[stem] = name
    return names
