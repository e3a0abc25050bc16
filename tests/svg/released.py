"""The SVG code of the official releases under ../shared/data, for the shared-data tests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

SVGENIUS_ANSWERS = frozenset({"ground_truth", "opti_svg", "modified", "answer", "code"})
"""Task-file fields holding a correct SVG (bug fix, optimization, style edit, generation)."""
SVGENIUS_INPUTS = frozenset({"origin_svg", "original"})
"""Task-file fields holding a well-formed input SVG (``bug_svg`` is broken on purpose)."""


def svgenius_task_svgs(root: Path, fields: frozenset[str]) -> Iterator[str]:
    """The SVGs in ``fields`` of every editing and generation task file, stripped."""
    tasks = root / "src" / "tasks"
    for path in sorted(tasks.glob("editing/*/*.json")) + sorted(tasks.glob("generation/*/*.json")):
        yield from _strings(json.loads(path.read_text(encoding="utf-8")), fields)


def svgenius_icons(root: Path) -> Iterator[str]:
    """The 300 source icons under ``src/data/<tier>/process``."""
    for path in sorted(root.glob("src/data/*/process/*.svg")):
        yield path.read_text(encoding="utf-8")


def _strings(value: object, fields: frozenset[str], key: str = "") -> Iterator[str]:
    if isinstance(value, dict):
        for name, item in value.items():
            yield from _strings(item, fields, name)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, fields, key)
    elif isinstance(value, str) and key in fields and "<svg" in value:
        yield value.strip()  # some style-editing answers end with a newline
