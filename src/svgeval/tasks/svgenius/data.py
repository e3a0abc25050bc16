"""Where the SVGenius task files are, how tiers are chosen, and SVG folders for the generators.

The official release (github.com/ZJU-REAL/SVGenius at commit 528cbff) keeps its task files
under ``src/tasks/`` and the 600 source icons under ``src/data/{easy,medium,hard}/process/``.
``--data PATH`` points at the folder that holds ``src/``; without it the release is downloaded
into the cache. ``--set file=PATH`` evaluates a single task file in the released layout
instead (e.g. one made by our generators); its samples are grouped under ``--tier`` (or
``custom`` when the tier is ``all``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

from svgeval.tasks.base import Task, TaskOptions
from svgeval.tasks.data_files import read_json_items
from svgeval.tasks.download import GithubRelease, resolve_data

Item = TypeVar("Item")

RELEASE = GithubRelease("ZJU-REAL/SVGenius", "528cbff", marker="src/tasks")
TIERS = ("easy", "medium", "hard")
CUSTOM_GROUP = "custom"


class SvgeniusTask(Task):
    """Base of every SVGenius task: the suite it is listed under."""

    suite = "SVGenius"
    suite_source = RELEASE.repo
    preset = "svgenius"

TASK_FILES: Mapping[str, Mapping[str, str]] = {
    "understanding": {tier: f"understanding/{tier}_generation_results.json" for tier in TIERS},
    "bugfix": {
        "easy": "editing/bug_fixion/easy_svg_errors_dataset.json",
        "medium": "editing/bug_fixion/medium_svg_errors_dataset.json",
        "hard": "editing/bug_fixion/hard_errors_dataset.json",
    },
    "optimize": {
        tier: f"editing/code_optimization/{tier}_svg_optimization_results.json" for tier in TIERS
    },
    "style_edit": {tier: f"editing/style_editing/{tier}_results.json" for tier in TIERS},
    "text2svg": {tier: f"generation/text_svg/{tier}_svg_captions.json" for tier in TIERS},
    "img2svg": {tier: f"generation/multimodel_svg/{tier}_svg_captions.json" for tier in TIERS},
    "style_transfer": {tier: f"generation/style_trans/{tier}.json" for tier in TIERS},
}
"""Task file of each tier, relative to ``src/tasks/`` of the release."""


@dataclass(frozen=True)
class SvgeniusOptions:
    """``--set`` options every SVGenius task takes."""

    file: Path | None = field(
        default=None,
        metadata={
            "help": "evaluate this task file (released layout, e.g. from `svgeval svgenius "
            "build-*`) instead of the release; grouped under --tier, or 'custom'"
        },
    )


@dataclass(frozen=True)
class SvgeniusEditingOptions(SvgeniusOptions):
    """``--set`` options of the SVGenius tasks whose answer is SVG code."""

    extract: Literal["svgenius", "auto"] = field(
        default="svgenius",
        metadata={
            "help": "svgenius: the released extractor (the last <svg>...</svg>, closing tag "
            "required); auto: also fenced blocks, self-closing <svg/> and repairs of broken code"
        },
    )


@dataclass(frozen=True)
class TaskFile(Generic[Item]):
    """The items of one task file: ``group`` is the tier they are reported under."""

    group: str
    path: Path
    items: list[Item]
    icons: Path | None
    """``src/data/<tier>/process`` of the release, None for a custom file."""


def load_task_files(
    options: TaskOptions, file: Path | None, task: str, item_type: type[Item]
) -> list[TaskFile[Item]]:
    """The task files of ``task`` (a key of :data:`TASK_FILES`) that ``options`` selects, or
    the one custom ``file``; each record is checked against ``item_type``."""
    if file is not None:
        group = options.tier if options.tier != "all" else CUSTOM_GROUP
        return [TaskFile(group, file, read_json_items(file, item_type), None)]
    root = resolve_data(RELEASE, options.data) / "src"
    tiers = TIERS if options.tier == "all" else (options.tier,)
    return [
        TaskFile(
            tier,
            root / "tasks" / TASK_FILES[task][tier],
            read_json_items(root / "tasks" / TASK_FILES[task][tier], item_type),
            root / "data" / tier / "process",
        )
        for tier in tiers
    ]


_SVG_ROOT = re.compile(r"<svg\b.*</svg\s*>", re.DOTALL | re.IGNORECASE)


def svg_element_text(text: str) -> str | None:
    """The ``<svg>...</svg>`` part of a file: XML prolog, DOCTYPE and outer comments dropped.

    Returns None when the file has no such element or holds nested ``<svg>`` elements (which
    the answer extraction could not recover intact).
    """
    match = _SVG_ROOT.search(text)
    if match is None or match.group(0).lower().count("<svg") != 1:
        return None
    return match.group(0)


def read_svg_folder(folder: Path) -> dict[str, str]:
    """Every ``*.svg`` directly in ``folder`` by file name (sorted), as ``<svg>`` element text.

    Files that are not UTF-8 or have no single ``<svg>`` element are left out.
    """
    svgs: dict[str, str] = {}
    for path in sorted(Path(folder).glob("*.svg")):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        element = svg_element_text(text)
        if element is not None:
            svgs[path.name] = element
    return svgs


def write_cases(cases: Sequence[Any], out: Path) -> None:
    """Write generated items as a JSON list (UTF-8, stable formatting) to ``out``."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(list(cases), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def seeded_key(seed: int, *parts: object) -> str:
    """A string seed for ``random.Random`` that is stable across runs and Python versions."""
    return ":".join(str(part) for part in (seed, *parts))


def checked_choices(names: Iterable[str], allowed: Iterable[str], what: str) -> list[str]:
    """``names`` as a list, checked against ``allowed``; raises ValueError naming ``what``."""
    chosen = list(names)
    known = set(allowed)
    unknown = [name for name in chosen if name not in known]
    if unknown or not chosen:
        raise ValueError(f"unknown or no {what}: {unknown}; choose from {sorted(known)}")
    return chosen
