"""The (input SVG, answer SVG) pairs of an SVGEditBench release, read with the standard library
only, so that a process timing something else (``render_floor.py``) does not pay for importing
CairoSVG and Pillow, which the plain loop (``plain_loop.py``) needs."""

from __future__ import annotations

import re
from pathlib import Path

INPUT_SVG = re.compile(r"```svg\n(.*?)\n```", re.DOTALL)


def release_pairs(root: Path) -> dict[str, tuple[str, str]]:
    """``<n>_<Task>/<id>`` -> (input SVG, answer SVG) of every case under ``root``."""
    pairs = {}
    for query in sorted(root.glob("*_*/query/*.txt")):
        answer = query.parent.parent / "answer" / f"{query.stem}.svg"
        found = INPUT_SVG.search(query.read_text(encoding="utf-8"))
        if found is not None and answer.is_file():
            key = f"{query.parent.parent.name}/{query.stem}"
            pairs[key] = (found.group(1).strip(), answer.read_text(encoding="utf-8").strip())
    return pairs
