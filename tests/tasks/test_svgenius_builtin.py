"""SVGenius' built-in sample: every task reads it as the release, and its cases make sense."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from svgeval.builders.svgenius import builtin
from svgeval.metrics._pss_svg import parse_valid
from svgeval.render.isolated import Renderer
from svgeval.tasks import get_task
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.svgenius.data import TASK_FILES, TIERS

PER_TIER = {
    "svgenius-bugfix": 4, "svgenius-optimize": 4, "svgenius-style-edit": 4,
    "svgenius-style-transfer": 4, "svgenius-understanding": 4, "svgenius-text2svg": 2,
    "svgenius-img2svg": 2,
}


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("svgenius-builtin")
    builtin.write(folder)
    return folder


def task_file(release: Path, task: str, tier: str) -> list[Any]:
    items: list[Any] = json.loads(
        (release / "src" / "tasks" / TASK_FILES[task][tier]).read_text(encoding="utf-8"))
    return items


@pytest.mark.parametrize("task", sorted(PER_TIER))
def test_every_task_reads_every_tier(release: Path, task: str) -> None:
    samples = get_task(task)(CommonOptions(data=release)).load()
    assert Counter(sample.group for sample in samples) == dict.fromkeys(TIERS, PER_TIER[task])


def test_understanding_asks_the_design_question_on_request(release: Path) -> None:
    options = CommonOptions(data=release, extra={"questions": "all"})
    samples = get_task("svgenius-understanding")(options).load()
    assert Counter(sample.target.category for sample in samples) == dict.fromkeys(
        ("perceptual", "semantic", "design"), 6)
    assert {sample.expected for sample in samples} == set("ABCD")


def test_editing_cases_change_the_icon(release: Path) -> None:
    for tier in TIERS:
        icons = {path.name: path.read_text(encoding="utf-8")
                 for path in (release / "src" / "data" / tier / "process").glob("*.svg")}
        for case in task_file(release, "bugfix", tier):
            assert case["ground_truth"] == icons[Path(case["svg_path"]).name]
            assert case["bug_svg"] != case["ground_truth"]
        for case in task_file(release, "optimize", tier):
            assert 0 < case["opti_ratio"] and case["render_mse"] <= 1e-4
        for record in task_file(release, "style_edit", tier):
            ((name, edit),) = record.items()
            assert edit["original"] == icons[name] != edit["modified"]
    families = {case["error_details"][0]["error_category"]
                for tier in TIERS for case in task_file(release, "bugfix", tier)}
    assert families == {"tag_error", "attribute_error", "path_command_error"}


def test_generation_answers_are_path_only_icons_with_their_png(release: Path) -> None:
    for tier in TIERS:
        for item in task_file(release, "img2svg", tier):
            parse_valid(item["answer"])  # PSS' rules: <path> elements only
            png = release / "src" / "data" / tier / "process" / Path(item["image"]).name
            assert png.read_bytes().startswith(b"\x89PNG")


def test_the_path_only_icons_draw_the_demo_icons(renderer: Renderer) -> None:
    from svgeval.builders.render_checks import render, visibly_different
    from svgeval.svg.demo_corpus import DEMO_ICONS, demo_svg

    for name in DEMO_ICONS:
        ours, theirs = render(builtin.source_svg(name), renderer), render(demo_svg(name), renderer)
        assert ours is not None and theirs is not None
        assert not visibly_different(ours, theirs), name
        assert f"{name} icon" in builtin.CAPTIONS[name]
