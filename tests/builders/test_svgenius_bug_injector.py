"""The seeded SVGenius error injector: each error type, reproducibility and visible damage."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

from svgeval.builders.svg_files import write_cases
from svgeval.builders.svgenius.bug_injector import ERROR_TYPES, build_bugfix_cases, inject_errors
from svgeval.builders.svgenius.svg_text import scan_tags
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import RenderFailure
from svgeval.svg.demo_corpus import DEMO_ICONS, demo_svg
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.svgenius.bugfix import SvgeniusBugFix

SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="100" height="100">'
    '<g fill="#336699"><path d="M10 10 L90 10 L90 90 Z" fill="#FF0000"/></g>'
    '<!-- <rect/> in a comment --><circle cx="50" cy="50" r="20"/></svg>'
)
SVGS = {f"{name}.svg": demo_svg(name) for name in DEMO_ICONS}


def test_scan_tags_pairs_end_tags_and_skips_comments() -> None:
    tags = scan_tags(SVG)
    assert [tag.name for tag in tags] == ["svg", "g", "path", "circle"]
    svg, group, path, circle = tags
    assert svg.closing is not None and SVG[svg.closing[0] : svg.closing[1]] == "</svg>"
    assert group.closing is not None and SVG[group.closing[0] : group.closing[1]] == "</g>"
    assert path.self_closing and circle.self_closing and path.closing is None
    d = path.attribute("d")
    assert d is not None and SVG[d.value_start : d.value_end] == "M10 10 L90 10 L90 90 Z"


def _inject(error_type: str, seed: int = 0) -> tuple[str, list[dict[str, object]]]:
    injected = inject_errors(SVG, error_type, 1, random.Random(seed))
    assert injected is not None
    return injected


def test_misspelled_tags_are_renamed_in_both_tags() -> None:
    for seed in range(20):
        bug, (detail,) = _inject("misspell_tag_name", seed)
        wrong = str(detail["misspelled_tag"])
        assert wrong != detail["original_tag"] and f"<{wrong}" in bug
        if detail["has_closing_tag"]:
            assert f"</{wrong}>" in bug


def test_each_error_type_makes_its_kind_of_change() -> None:
    for seed in range(20):
        bug, (detail,) = _inject("invalid_path_command", seed)
        assert re.search(r'd="[^"]*[BDFGIJKNOPRUWXYbdfgijknopruwxy]', bug)
        bug, (detail,) = _inject("attribute_name_error", seed)
        assert f' {detail["wrong_attribute"]}="' in bug
        bug, (detail,) = _inject("attribute_value_error", seed)
        assert f'="{detail["error_value"]}"' in bug
        bug, (detail,) = _inject("add_strange_chars", seed)
        assert len(bug) == len(SVG) + 1 and str(detail["added_chars"]) in "$#@%&!~^*"
        bug, (detail,) = _inject("remove_closing_tag", seed)
        assert len(bug) < len(SVG)
        bug, (detail,) = _inject("path_data_format_error", seed)
        assert detail["error_type"] in {"wrong_separator", "extra_comma", "scientific_notation"}
        assert detail["error_category"] == "path_command_error"


def test_count_sets_the_number_of_errors() -> None:
    bug, details = inject_errors(SVG, "attribute_name_error", 3, random.Random(1)) or ("", [])
    assert [detail["error_instance"] for detail in details] == [1, 2, 3]
    assert sum(bug.count(f' {d["wrong_attribute"]}="') > 0 for d in details) == 3


def test_no_target_means_no_injection() -> None:
    no_path = '<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>'
    assert inject_errors(no_path, "invalid_path_command", 1, random.Random(0)) is None


def test_cases_are_reproducible_and_visibly_broken(renderer: Renderer) -> None:
    first = build_bugfix_cases(SVGS, count=2, seed=3, renderer=renderer)
    again = build_bugfix_cases(SVGS, count=2, seed=3, renderer=renderer)
    other = build_bugfix_cases(SVGS, count=2, seed=4, renderer=renderer)
    assert json.dumps(first) == json.dumps(again) != json.dumps(other)
    assert len(first) >= len(SVGS) - 1
    spec = RenderSpec.square(224)
    for case in first:
        assert case["ground_truth"] == SVGS[case["svg_path"]]
        assert case["error_type"] in ERROR_TYPES and 1 <= len(case["error_details"]) <= 2
        original = renderer.render(case["ground_truth"], spec).floats  # type: ignore[union-attr]
        buggy = renderer.render(case["bug_svg"], spec)
        assert isinstance(buggy, RenderFailure) or np.abs(original - buggy.floats).max() > 0.1


def test_error_types_are_controllable(renderer: Renderer) -> None:
    cases = build_bugfix_cases(SVGS, error_types=["attribute_name_error"], renderer=renderer)
    assert cases and {case["error_type"] for case in cases} == {"attribute_name_error"}
    with pytest.raises(ValueError, match="error types"):
        build_bugfix_cases(SVGS, error_types=["typo"], renderer=renderer)


def test_generated_cases_run_as_a_task(tmp_path: Path, renderer: Renderer) -> None:
    out = tmp_path / "bugs.json"
    write_cases(build_bugfix_cases(SVGS, seed=0, renderer=renderer), out)
    task = SvgeniusBugFix(CommonOptions(extra={"file": str(out)}))
    samples = task.load()
    assert samples and {sample.group for sample in samples} == {"custom"}
    for sample in samples:
        assert task.score(sample, sample.reference, renderer).metrics["acc"] == 100.0
        assert sample.input_svg is not None
        assert task.score(sample, sample.input_svg, renderer).metrics["acc_all"] == 0.0
