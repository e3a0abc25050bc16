"""SVGenius data helpers: tiers, the release layout, custom files and SVG folders."""

from __future__ import annotations

from pathlib import Path

import pytest
from svgenius_support import svgenius_root

from svgeval.tasks import all_tasks
from svgeval.tasks.base import TaskOptions
from svgeval.tasks.download import DataUnavailable
from svgeval.tasks.svgenius.data import (
    load_task_files,
    read_svg_folder,
    selected_tiers,
    svg_element_text,
    write_cases,
)

TASKS = ("svgenius-understanding", "svgenius-bugfix", "svgenius-optimize", "svgenius-style-edit")


def test_the_four_tasks_are_registered() -> None:
    assert set(TASKS) <= set(all_tasks())


def test_tiers() -> None:
    assert selected_tiers("all") == ("easy", "medium", "hard")
    assert selected_tiers("hard") == ("hard",)
    with pytest.raises(ValueError, match="unknown SVGenius tier"):
        selected_tiers("expert")


def test_data_path_must_hold_the_release(tmp_path: Path) -> None:
    with pytest.raises(DataUnavailable, match="src/tasks"):
        load_task_files(TaskOptions(data=tmp_path), "bugfix")


@pytest.mark.shared_data
def test_release_counts_per_tier() -> None:
    expected = {
        "understanding": [93, 78, 48],
        "bugfix": [100, 100, 100],
        "optimize": [100, 100, 99],
        "style_edit": [79, 79, 78],
    }
    for task, counts in expected.items():
        files = load_task_files(TaskOptions(data=svgenius_root()), task)
        assert [file.group for file in files] == ["easy", "medium", "hard"]
        assert [len(file.items) for file in files] == counts


def test_custom_file_is_grouped_by_tier(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"
    write_cases([{"a": 1}], path)
    custom = load_task_files(TaskOptions(extra={"file": str(path)}), "bugfix")
    assert [(file.group, file.items) for file in custom] == [("custom", [{"a": 1}])]
    hard = load_task_files(TaskOptions(tier="hard", extra={"file": str(path)}), "bugfix")
    assert hard[0].group == "hard"


def test_svg_element_text_drops_the_prolog() -> None:
    text = '<?xml version="1.0"?>\n<!-- made by hand -->\n<svg viewBox="0 0 1 1"><g/></svg>\n'
    assert svg_element_text(text) == '<svg viewBox="0 0 1 1"><g/></svg>'
    assert svg_element_text("<svg><svg/></svg>") is None
    assert svg_element_text("no svg") is None


def test_read_svg_folder_sorts_and_skips_unusable_files(tmp_path: Path) -> None:
    (tmp_path / "b.svg").write_text("<svg><rect/></svg>", encoding="utf-8")
    (tmp_path / "a.svg").write_text("<?xml version='1.0'?><svg><g/></svg>", encoding="utf-8")
    (tmp_path / "c.svg").write_bytes(b"\xff\xfe<svg></svg>")
    (tmp_path / "d.txt").write_text("<svg></svg>", encoding="utf-8")
    assert read_svg_folder(tmp_path) == {"a.svg": "<svg><g/></svg>", "b.svg": "<svg><rect/></svg>"}
