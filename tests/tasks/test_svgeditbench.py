"""SVGEditBench: the paper's No-Edit numbers, the oracle, and the case builder's rules."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path

import numpy as np
import pytest
from support.shared_paths import shared_release

from svgeval.builders.svgeditbench.builder import answer_for, build_cases, write_release
from svgeval.models.base import Model
from svgeval.models.baselines import IdentityModel, OracleModel
from svgeval.render.isolated import Renderer
from svgeval.runner import RunDir, Runner, RunSettings
from svgeval.svg.demo_corpus import DEMO_ICONS, write_demo_corpus
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.svgeditbench import SvgEditBench
from svgeval.tasks.svgeditbench.data import load_release
from svgeval.tasks.svgeditbench.prompts import SUBTASKS
from svgeval.tasks.svgeditbench.task import svg_blocks

# Table 1 of Nishina & Matsui (CVPRW 2024), "No Edit" column.
NO_EDIT = {
    "change_color/mse": 0.0702,
    "set_contour/mse": 0.0286,
    "compression/mse": 0.0,
    "compression/ratio": 1.0,
    "upside_down/mse": 0.0878,
    "transparency/mse": 0.0402,
    "crop_to_half/mse": 0.1174,
}


def run(data: Path, model: Model, out: Path) -> dict[str, object]:
    runner = Runner(SvgEditBench(CommonOptions(data=data)), model, RunDir(out), RunSettings())
    return asyncio.run(runner.run(runner.prepare(resume=False))).model_dump(mode="json")


@pytest.mark.shared_data
def test_no_edit_reproduces_table_1(tmp_path: Path) -> None:
    results = run(shared_release("svgeditbench"), IdentityModel(), tmp_path / "run")
    metrics = results["metrics"]
    assert isinstance(metrics, dict)
    assert {key: round(metrics[key], 4) for key in NO_EDIT} == NO_EDIT
    assert results["n"] == 600 and results["n_valid"] == 600


@pytest.mark.shared_data
def test_oracle_scores_zero_everywhere(tmp_path: Path) -> None:
    metrics = run(shared_release("svgeditbench"), OracleModel(), tmp_path / "run")["metrics"]
    assert isinstance(metrics, dict)
    assert all(value == 0.0 for key, value in metrics.items() if "mse" in key)


@pytest.mark.shared_data
def test_answer_rules_reproduce_the_release(renderer: Renderer) -> None:
    """Our answer for the release's own colour draws renders exactly like the released answer."""
    from svgeval.render.cairo import RenderSpec
    from svgeval.render.picture import Picture

    spec = RenderSpec.square(72)
    samples = load_release(shared_release("svgeditbench"))
    ours: list[str] = []
    for sample in samples:
        query = sample.messages[0]["content"]
        found = re.search(r"with a (\S+) color(?: to (\w+))?", query)
        color, target = (found.group(1), found.group(2)) if found else (None, None)
        answer = answer_for(sample.input_svg or "", sample.group, color, target)
        assert answer is not None
        ours.append(answer)
    # every render asked for at once: the pool's workers draw them side by side
    drawn = renderer.draw_all([*ours, *(sample.target.answer_svg for sample in samples)], spec)
    for sample, mine, theirs in zip(samples, drawn, drawn[len(samples):]):
        assert isinstance(mine, Picture) and isinstance(theirs, Picture), sample.id
        assert np.array_equal(mine.pixels, theirs.pixels), sample.id


def test_builder_is_seeded_and_follows_the_paper(tmp_path: Path) -> None:
    names = write_demo_corpus(tmp_path / "icons")
    files = sorted((tmp_path / "icons").glob("*.svg"))
    first = build_cases(files, seed=3, names=names)
    assert first == build_cases(files, seed=3, names=names)
    assert first != build_cases(files, seed=4, names=names)
    assert len(first) == 6 * len(DEMO_ICONS)
    for case in first:
        if case.subtask == "change_color":
            color, target = re.search(r"with a (\S+) color to (\w+)\.", case.query).groups()  # type: ignore[union-attr]
            assert f'fill="{color}"' in case.query and f'fill="{target}"' in case.answer
        if case.subtask == "transparency":
            assert 'opacity="0.5"' in case.answer
        if case.subtask == "crop_to_half":
            assert 'viewBox="0 0 18 36"' in case.answer
    count = write_release(first, tmp_path / "data")
    assert count == len(first)
    assert len(load_release(tmp_path / "data")) == count
    assert {p.name for p in (tmp_path / "data").iterdir()} == set(SUBTASKS.values())


def test_paper_colors_use_the_papers_hex_values(tmp_path: Path) -> None:
    names = write_demo_corpus(tmp_path / "icons")
    files = sorted((tmp_path / "icons").glob("*.svg"))
    greens = [
        case
        for seed in range(10)
        for case in build_cases(files, seed=seed, names=names, colors="paper")
        if case.subtask == "change_color" and "to green." in case.query
    ]
    assert greens, "ten seeds should draw green at least once"
    assert all('fill="#00FF00"' in case.answer for case in greens)


def test_broken_outputs_are_counted_and_scored_as_no_edit(tmp_path: Path) -> None:
    names = write_demo_corpus(tmp_path / "icons")
    write_release(build_cases(sorted((tmp_path / "icons").glob("*.svg")), names=names), tmp_path / "d")

    class Broken(Model):
        spec = "broken"

        async def generate(self, request):  # type: ignore[no-untyped-def]
            from svgeval.models.base import Generation

            if request.sample_id.endswith("sun"):
                return Generation("I cannot do that.")
            return Generation(request.reference or "")

    results = run(tmp_path / "d", Broken(), tmp_path / "run")
    metrics, counts = results["metrics"], results["counts"]
    assert isinstance(metrics, dict) and isinstance(counts, dict)
    assert counts["upside_down"]["n_invalid"] == 1
    assert counts["upside_down"]["failures"] == {"extract": 1}
    assert metrics["upside_down/mse"] == 0.0  # paper: failures left out
    assert metrics["upside_down/mse_all"] > 0.0  # ours: the failure counts as No Edit


PAPERS_RULE = re.compile(r"```svg[ \t]*\n(.*?)```", re.DOTALL)
"""The paper's answer rule (Sec. 3.1) as the one regex svgeval read it with before: every
```svg block, found with findall."""


def test_the_block_search_finds_what_the_papers_regex_finds() -> None:
    pieces = ["```svg", "```svg\n", "```SVG\n", "```", "``", "`", "svg", " ", "\t", "\n", "\r\n",
              "<svg/>", "é"]
    rng = random.Random(5)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 16)))
             for _ in range(20_000)]
    texts += ["```svg \t \n<svg/>\n```", "```svg\n```svg\n```", "```svg x\n```svg\n<a/>```",
              "```svg\n" * 3, "```svg\n<svg/>```\n```svg\n<g/>\n```"]
    assert sum(len(PAPERS_RULE.findall(text)) == 1 for text in texts) > 1_000
    assert sum(len(PAPERS_RULE.findall(text)) > 1 for text in texts) > 1_000
    for text in texts:
        assert svg_blocks(text) == PAPERS_RULE.findall(text), repr(text)
