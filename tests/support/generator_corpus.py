"""Icons of the kinds real sets hold, drawn for the generator tests (no third-party artwork).

The paper's generators were written for Twemoji-like icons (36-unit viewBox, flat ``fill``
colours). This corpus adds what breaks them:

* an outline set in the style of 24-unit UI icon sets: ``fill="none"`` and a 2-unit stroke
  set once on the root, no ``fill`` colour anywhere, several shapes symmetric under a
  vertical flip (circle, plus, minus, frame, arrow);
* a single-path logo in the style of brand-icon sets: one path, no ``fill`` attribute (the
  default black), a hole cut by ``fill-rule="evenodd"``;
* coordinates with two decimals (check, bell, logo), as exported icons have, which SVGO's
  released one-decimal rounding moves by a visible fraction of a 24-unit icon;
* an emoji-like multi-colour face on a 36-unit viewBox, named by its code point as Twemoji
  files are, that writes the same colours in different spellings (``#fff``, ``white``,
  ``#FFFFFF``; ``#F4ABBA``, ``#f4abba``).
"""

from __future__ import annotations

from pathlib import Path

_OUTLINE_ROOT = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" '
    'fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" '
    'stroke-linejoin="round">'
)

OUTLINE_ICONS: dict[str, str] = {
    "circle": '<circle cx="12" cy="12" r="9"/>',
    "check": '<path d="M4.85 12.45l4.55 4.55 9.75-9.75"/>',
    "house": '<path d="M4 11l8-7 8 7"/><path d="M6 9.5V20h12V9.5"/><path d="M10 20v-6h4v6"/>',
    "plus": '<path d="M12 5v14M5 12h14"/>',
    "minus": '<path d="M5 12h14"/>',
    "arrow-right": '<path d="M5 12h14M13 6l6 6-6 6"/>',
    "bell": (
        '<path d="M6.05 16.05v-4.95a5.95 5.95 0 0 1 11.9 0v4.95l2.05 1.95H3.95z"/>'
        '<path d="M10.05 20.55a1.95 1.95 0 0 0 3.9 0"/>'
    ),
    "frame": '<rect x="4" y="4" width="16" height="16" rx="2"/>',
}
"""Outline icon name -> body inside :data:`_OUTLINE_ROOT`."""
VERTICALLY_SYMMETRIC = ("arrow-right", "circle", "frame", "minus", "plus")
"""Outline icons that look the same upside down."""

LOGO = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill-rule="evenodd" '
    'd="M12 1.45C8.05 6.45 4.55 10.85 4.55 15.05a7.45 7.45 0 0 0 14.9 0c0-4.25-3.45-8.55-7.45'
    '-13.6zM12 11.05a3.95 3.95 0 1 0 0 7.9 3.95 3.95 0 0 0 0-7.9z"/></svg>'
)

EMOJI = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36">'
    '<circle fill="#FFCC4D" cx="18" cy="18" r="17"/>'
    '<ellipse fill="#664500" cx="12" cy="14" rx="2.5" ry="3.5"/>'
    '<ellipse fill="#664500" cx="24" cy="14" rx="2.5" ry="3.5"/>'
    '<path fill="#664500" d="M9 21h18c0 5-4 9-9 9s-9-4-9-9z"/>'
    '<path fill="#fff" d="M11 21h14v2.5H11z"/>'
    '<circle fill="white" cx="13" cy="12.5" r="1"/>'
    '<circle fill="#FFFFFF" cx="25" cy="12.5" r="1"/>'
    '<ellipse fill="#F4ABBA" cx="7.5" cy="21" rx="3" ry="2"/>'
    '<ellipse fill="#f4abba" cx="28.5" cy="21" rx="3" ry="2"/>'
    "</svg>"
)
EMOJI_STEM = "1f60a"
"""U+1F60A SMILING FACE WITH SMILING EYES, the Twemoji file name the face goes by."""

CORPUS: dict[str, str] = {
    **{f"{name}.svg": f"{_OUTLINE_ROOT}{body}</svg>" for name, body in OUTLINE_ICONS.items()},
    "droplet-logo.svg": LOGO,
    f"{EMOJI_STEM}.svg": EMOJI,
}
"""File name -> SVG code of every icon."""


def write_corpus(folder: Path) -> Path:
    """Write every icon of :data:`CORPUS` to ``folder``; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, svg in CORPUS.items():
        (folder / name).write_text(svg, encoding="utf-8")
    return folder
