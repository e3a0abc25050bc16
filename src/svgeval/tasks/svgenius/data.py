"""Where the SVGenius task files are and how tiers are chosen.

The official release (github.com/ZJU-REAL/SVGenius at commit 528cbff) keeps its task files
under ``src/tasks/`` and the 600 source icons under ``src/data/{easy,medium,hard}/process/``.
``--data PATH`` points at the folder that holds ``src/``; without it the release is downloaded
into the cache. ``--set file=PATH`` evaluates a single task file in the released layout
instead (e.g. one made by our generators); its samples are grouped under ``--tier`` (or
``custom`` when the tier is ``all``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, Literal, TypeVar

from svgeval.tasks.base import CommonOptions, Task
from svgeval.tasks.data_files import read_json_items
from svgeval.tasks.download import GithubRelease, resolve_data
from svgeval.tasks.tables import GroupColumnsTable

Item = TypeVar("Item")

RELEASE = GithubRelease("ZJU-REAL/SVGenius", "528cbff", marker="src/tasks")
TIERS = ("easy", "medium", "hard")
CUSTOM_GROUP = "custom"


class SvgeniusTask(Task):
    """Base of every SVGenius task: the suite it is listed under."""

    suite = "SVGenius"
    suite_source = RELEASE.repo
    preset = "svgenius"


def tier_table(*metrics: tuple[str, str]) -> GroupColumnsTable:
    """An SVGenius per-tier table of ``metrics`` (key, the paper's name): a row per model and,
    under each metric, a column per tier, to two decimals as the paper prints them."""
    return GroupColumnsTable(metrics=metrics, group_order=TIERS)

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
    options: CommonOptions, file: Path | None, task: str, item_type: type[Item]
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
