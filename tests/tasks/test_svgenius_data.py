"""SVGenius data helpers: tiers, the release layout and custom files."""

from __future__ import annotations

from pathlib import Path

import pytest
from svgenius_support import svgenius_root

from svgeval.builders.svg_files import write_cases
from svgeval.tasks import all_tasks, get_task
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import DataUnavailable
from svgeval.tasks.svgenius.bugfix import BugFixItem
from svgeval.tasks.svgenius.data import load_task_files
from svgeval.tasks.svgenius.optimize import OptimizeItem
from svgeval.tasks.svgenius.style_edit import StyleEdit
from svgeval.tasks.svgenius.understanding import UnderstandingItem

TASKS = ("svgenius-understanding", "svgenius-bugfix", "svgenius-optimize", "svgenius-style-edit")


def test_the_four_tasks_are_registered() -> None:
    assert set(TASKS) <= set(all_tasks())


def test_tiers_are_checked_by_the_task() -> None:
    task = get_task("svgenius-bugfix")
    assert task.tiers == ("easy", "medium", "hard")
    with pytest.raises(ValueError, match="unknown tier 'expert' for svgenius-bugfix"):
        task(CommonOptions(tier="expert"))


def test_data_path_must_hold_the_release(tmp_path: Path) -> None:
    with pytest.raises(DataUnavailable, match="src/tasks"):
        load_task_files(CommonOptions(data=tmp_path), None, "bugfix", BugFixItem)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[{"bug_svg": "<svg/>"', "not valid JSON"),
        ('{"bug_svg": "<svg/>"}', "should hold a JSON list of records"),
        ('[{"bug_svg": "<svg/>", "ground_truth": "<svg/>"}, {"ground_truth": "<svg/>"}]',
         "record 1, field 'bug_svg': Field required"),
        ('[{"bug_svg": null, "ground_truth": "<svg/>"}]',
         "record 0, field 'bug_svg': Input should be a valid string"),
        ('[["not", "an", "object"]]', "record 0: Input should be a valid dictionary"),
    ],
)
def test_malformed_task_files_name_the_file_record_and_field(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bugs.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(MalformedData) as caught:
        load_task_files(CommonOptions(), path, "bugfix", BugFixItem)
    assert str(caught.value).startswith(str(path)) and message in str(caught.value)


@pytest.mark.shared_data
def test_release_counts_per_tier() -> None:
    expected = {
        "understanding": ([93, 78, 48], UnderstandingItem),
        "bugfix": ([100, 100, 100], BugFixItem),
        "optimize": ([100, 100, 99], OptimizeItem),
        "style_edit": ([79, 79, 78], dict[str, StyleEdit]),
    }
    for task, (counts, schema) in expected.items():
        files = load_task_files(CommonOptions(data=svgenius_root()), None, task, schema)
        assert [file.group for file in files] == ["easy", "medium", "hard"]
        assert [len(file.items) for file in files] == counts


def test_custom_file_is_grouped_by_tier(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"
    item = {"bug_svg": "<svg/>", "ground_truth": "<svg></svg>"}
    write_cases([item], path)
    custom = load_task_files(CommonOptions(), path, "bugfix", BugFixItem)
    assert [(file.group, file.items) for file in custom] == [("custom", [BugFixItem(**item)])]
    hard = load_task_files(CommonOptions(tier="hard"), path, "bugfix", BugFixItem)
    assert hard[0].group == "hard"
