"""SVGenius style transfer: the paper's prompts, the release, what the judge is shown, the
paper's 0 for invalid answers, the Table 10 columns and the pairwise comparison."""

from __future__ import annotations

import asyncio
import base64
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from support.shared_paths import REPO
from support.style_transfer_data import cairo_render, style_transfer_items, write_items
from svgenius_support import svgenius_root

from svgeval.models.base import Generation, GenerationRequest, Model
from svgeval.render.isolated import Renderer
from svgeval.runner import RunDir, Runner, RunSettings, load_samples
from svgeval.svg.demo_corpus import demo_svg
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.outcome import FailureKind, Outcome
from svgeval.tasks.svgenius.style_transfer import SvgeniusStyleTransfer, pairwise_outcome
from svgeval.tasks.svgenius.style_transfer_prompts import JUDGE, RUBRICS, STYLE_TRANSFER

CRITERIA = ("cp", "df", "sc", "ch", "cb")


def task(file: Path, **extra: str) -> SvgeniusStyleTransfer:
    return SvgeniusStyleTransfer(CommonOptions(tier="easy", extra={"file": str(file), **extra}))


def images(messages: list[dict[str, Any]]) -> list[np.ndarray]:
    urls = [p["image_url"]["url"] for p in messages[0]["content"] if p["type"] == "image_url"]
    raw = [base64.b64decode(url.removeprefix("data:image/png;base64,")) for url in urls]
    return [np.asarray(Image.open(io.BytesIO(png))) for png in raw]


def test_prompts_and_rubrics_are_the_papers_word_for_word() -> None:
    seeds = sorted((REPO.parent / "shared" / "seeds").glob("000_*.txt"))
    if not seeds:
        pytest.skip("the SVGenius paper text is not present")
    paper = " ".join(seeds[0].read_text(encoding="utf-8").split())
    for prompt in (STYLE_TRANSFER, JUDGE):
        assert " ".join(prompt.replace("{{", "{").replace("}}", "}").split()) in paper
    for rubric in RUBRICS:
        assert rubric.criterion in paper and all(level in paper for level in rubric.levels)
    assert [r.criterion.split(":")[0] for r in RUBRICS] == [
        "Content Preservation",
        "Detail Fidelity",
        "Style Consistency",
        "Color Harmony",
        "Composition Balance",
    ]


def test_release_loads_every_tier_with_its_styles() -> None:
    samples = SvgeniusStyleTransfer(CommonOptions(data=svgenius_root())).load()
    assert Counter(s.group for s in samples) == {"easy": 21, "medium": 30, "hard": 29}
    styles = Counter((s.group, s.target.style) for s in samples)
    assert styles[("easy", "Cartoon Style")] == 6 and styles[("hard", "Pixel-art")] == 16
    first = samples[0]
    assert first.id == "easy/000" and first.target.style == "Pixel-art"
    text = first.messages[0]["content"]
    assert text.endswith("\n\nthe style to transfer:\nPixel-art")
    assert "Description of the reference SVG:\nan orange sphere with a black curved ring" in text
    assert first.input_svg is not None and f"transform:\n{first.input_svg}\n" in text


def test_the_judge_sees_the_original_and_the_answer_once_per_criterion(
    tmp_path: Path, renderer: Renderer
) -> None:
    items = style_transfer_items(2)
    st = task(write_items(tmp_path / "st.json", items))
    sample = st.load()[1]
    assert sample.target.style == "Pixel-art" and not isinstance(
        sample.messages[0]["content"], list
    )
    answer = demo_svg("star")
    score = st.score(sample, f"Answer:{answer}", renderer)
    assert score.failure is None and score.metrics == {}
    assert [r.metric for r in score.judge_requests] == list(CRITERIA)
    before, after = cairo_render(items[1]["code"]), cairo_render(answer)
    for request, rubric in zip(score.judge_requests, RUBRICS):
        assert request.temperature == 0.05
        text = request.messages[0]["content"][0]["text"]
        assert "transfer the provided Image 1 to Pixel-art\n" in text
        assert f"Score Rubrics:\n[{rubric.criterion}]\nScore 1: {rubric.levels[0]}" in text
        assert text.endswith("Score 5: " + rubric.levels[4] + "\n\nFeedback:")
        shown = images(request.messages)
        assert len(shown) == 2
        assert np.array_equal(shown[0], before) and np.array_equal(shown[1], after)
        assert request.parse("Feedback: good [RESULT] 4") == 4.0
        assert request.parse("Feedback: good, 4") is None


def test_an_invalid_answer_scores_zero_without_asking_the_judge(
    tmp_path: Path, renderer: Renderer
) -> None:
    st = task(write_items(tmp_path / "st.json", style_transfer_items(1)))
    sample = st.load()[0]
    none = st.score(sample, "I cannot do that.", renderer)
    assert none.metrics == dict.fromkeys(CRITERIA, 0.0) and not none.judge_requests
    assert none.failure is not None and none.failure.kind is FailureKind.EXTRACT
    broken = st.score(
        sample, 'Answer:<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0L</svg>', renderer
    )
    assert broken.metrics == dict.fromkeys(CRITERIA, 0.0) and not broken.judge_requests
    assert broken.failure is not None and broken.failure.kind is FailureKind.RENDER


def test_a_broken_original_is_the_datas_failure(tmp_path: Path, renderer: Renderer) -> None:
    items = style_transfer_items(1)
    items[0]["code"] = "<svg><g></svg>"
    st = task(write_items(tmp_path / "st.json", items))
    score = st.score(st.load()[0], f"Answer:{demo_svg('sun')}", renderer)
    assert score.failure is not None and score.failure.kind is FailureKind.REFERENCE
    assert score.metrics == dict.fromkeys(CRITERIA) and not score.judge_requests


def test_unknown_style_stops_with_one_line(tmp_path: Path) -> None:
    items = style_transfer_items(1)
    items[0]["question"] = "Watercolour"
    with pytest.raises(MalformedData, match=r"record 0, field 'question'"):
        task(write_items(tmp_path / "st.json", items)).load()


# Table 11 (easy) -> Table 10 (easy): each style column is the mean of the five criteria.
PAPER_ROWS = [
    ("Claude-3.7-Sonnet", "Cartoon Style", (4.00, 2.75, 3.83, 3.00, 4.83), 3.68),
    ("GPT-4o", "Pixel-art", (1.50, 1.50, 1.50, 2.25, 3.00), 1.95),
    ("Gemini-2.0-Flash", "3D-style", (3.67, 2.67, 3.40, 3.00, 3.50), 3.25),
    ("QwQ-32B", "Line-art", (3.00, 2.50, 3.75, 2.75, 4.50), 3.30),
]


@pytest.mark.parametrize(("model", "style", "criteria", "table_10"), PAPER_ROWS)
def test_style_columns_reproduce_table_10_from_table_11(
    tmp_path: Path, model: str, style: str, criteria: tuple[float, ...], table_10: float
) -> None:
    items = [{**item, "question": style} for item in style_transfer_items(2)]
    st = task(write_items(tmp_path / "st.json", items))
    samples = st.load()
    records = [
        {"id": samples[0].id, "group": "easy", "metrics": dict(zip(CRITERIA, criteria))},
        {"id": samples[1].id, "group": "easy", "metrics": dict(zip(CRITERIA, criteria))},
    ]
    metrics = st.aggregate([Outcome.model_validate(r) for r in records]).metrics
    key = {"Cartoon Style": "cartoon", "Pixel-art": "pixel", "Line-art": "line", "3D-style": "3d"}
    assert round(metrics[f"easy/{key[style]}"], 2) == table_10
    assert metrics["easy/judge_score"] == pytest.approx(sum(criteria) / 5)
    others = set(key.values()) - {key[style]}
    assert all(metrics[f"easy/{other}"] is None for other in others)


def test_style_means_and_judge_failures_per_tier(tmp_path: Path) -> None:
    st = task(write_items(tmp_path / "st.json", style_transfer_items(4)))
    ids = [s.id for s in st.load()]  # cartoon, pixel, line, 3d
    five = dict.fromkeys(CRITERIA, 5.0)
    records = [
        {"id": ids[0], "group": "easy", "metrics": five},
        {
            "id": ids[1],
            "group": "easy",
            "metrics": dict.fromkeys(CRITERIA, 0.0),
            "failure": {"kind": "extract"},
        },
        {
            "id": ids[2],
            "group": "easy",
            "metrics": {**five, "df": None},
            "judge_failures": {"df": {"kind": "unparsed", "detail": "..."}},
        },
    ]
    aggregate = st.aggregate([Outcome.model_validate(r) for r in records])
    assert aggregate.metrics["easy/cartoon"] == 5.0 and aggregate.metrics["easy/pixel"] == 0.0
    assert aggregate.metrics["easy/line"] is None  # a criterion without a verdict
    assert aggregate.metrics["easy/df"] == 2.5 and aggregate.metrics["easy/cp"] == 10 / 3
    assert aggregate.metrics["easy/judge_score"] == 2.5
    assert aggregate.counts["easy"].judge_failures == {
        "cp": 0,
        "df": 1,
        "sc": 0,
        "ch": 0,
        "cb": 0,
    }


class Scripted(Model):
    """Answers each sample id from a dict ("no answer" otherwise)."""

    spec = "scripted"

    def __init__(self, responses: dict[str, str]) -> None:
        self.responses = responses

    async def generate(self, request: GenerationRequest) -> Generation:
        return Generation(self.responses.get(request.sample_id, "no answer"))


def reference_run(tmp_path: Path, file: Path, responses: dict[str, str]) -> Path:
    """A finished run of the task whose model answers ``responses`` by sample id."""
    out = tmp_path / "reference"
    runner = Runner(task(file), Scripted(responses), RunDir(out), RunSettings(render_workers=1))
    asyncio.run(runner.run(runner.prepare(resume=False)))
    return out


def test_pairwise_against_a_reference_run(tmp_path: Path, renderer: Renderer) -> None:
    file = write_items(tmp_path / "st.json", style_transfer_items(4))
    good = f"Answer:{demo_svg('heart')}"
    reference = reference_run(tmp_path, file, {"easy/000": good, "easy/001": good})
    st = task(file, reference_run=str(reference))
    samples = load_samples(st)  # hands the task the reference run's answers first
    # both render: asked in both orders, ours first then theirs first
    score = st.score(samples[0], f"Answer:{demo_svg('star')}", renderer)
    pair = [r for r in score.judge_requests if r.metric == "win_rate"]
    assert len(pair) == 2 and len(score.judge_requests) == 7
    first, second = (images(r.messages) for r in pair)
    ours, theirs = cairo_render(demo_svg("star")), cairo_render(demo_svg("heart"))
    assert np.array_equal(first[1], ours) and np.array_equal(first[2], theirs)
    assert np.array_equal(second[1], theirs) and np.array_equal(second[2], ours)
    assert [r.parse("[RESULT] A") for r in pair] == [100.0, 0.0]
    assert [r.parse("[RESULT] B") for r in pair] == [0.0, 100.0]
    assert (
        "Response A: the given Image 2\nResponse B: the given Image 3"
        in (pair[0].messages[0]["content"][0]["text"])
    )
    # only one side renders: decided without the judge; neither: a tie
    assert st.score(samples[1], "nothing", renderer).metrics["win_rate"] == 0.0
    assert st.score(samples[2], good, renderer).metrics["win_rate"] == 100.0
    assert st.score(samples[3], "nothing", renderer).metrics["win_rate"] == 50.0


def test_pairwise_needs_a_run_of_the_same_task_and_data(tmp_path: Path) -> None:
    file = write_items(tmp_path / "st.json", style_transfer_items(2))
    reference = reference_run(tmp_path, file, {})
    other = write_items(tmp_path / "other.json", style_transfer_items(3)[1:])
    with pytest.raises(ValueError, match="asked another question as easy/000"):
        load_samples(task(other, reference_run=str(reference)))
    config = json.loads((reference / "config.json").read_text())
    (reference / "config.json").write_text(json.dumps({**config, "task": "svgenius-bugfix"}))
    with pytest.raises(ValueError, match="is a run of svgenius-bugfix"):
        load_samples(task(file, reference_run=str(reference)))
    with pytest.raises(ValueError, match="no config.json"):
        load_samples(task(file, reference_run=str(tmp_path)))
    with pytest.raises(ValueError, match="its answers were not read"):
        task(file, reference_run=str(reference)).load()  # the runner reads the other run


def test_pairwise_verdicts() -> None:
    assert pairwise_outcome("Feedback: x [RESULT] A", ours="A") == 100.0
    assert pairwise_outcome("Feedback: x [RESULT] A", ours="B") == 0.0
    assert pairwise_outcome("Feedback: A is better", ours="A") is None
