"""SVGenius understanding: answer parsing, question types, oracle and identity on the release."""

from __future__ import annotations

from pathlib import Path

import pytest
from svgenius_support import released_items, run_task, svgenius_root

from svgeval.models.baselines import IdentityModel, OracleModel
from svgeval.render.isolated import Renderer
from svgeval.tasks.base import CommonOptions, Sample
from svgeval.tasks.outcome import Outcome
from svgeval.tasks.svgenius.understanding import QuestionTarget, SvgeniusUnderstanding, parse_choice


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("Reasoning...\nAnswer: C", "C"),
        ("**Answer:** (B)", "B"),
        ("Answer: D) a rectangle", "D"),
        ("answer：A", "A"),
        ("Answer: A was tempting.\nAfter checking the path: Answer: B", "B"),
        ("The SVG has three circles.\nAnswer: B\n\nI hope this helps.", "B"),
        ("Looking at it, the answer is C.", "C"),
        ("Final choice:\n(D)", "D"),
        ("Therefore \\boxed{A}", "A"),
        ("I choose option B because of the lock.", "B"),
        ("Option C is correct.", "C"),
        ("Answer: Based on the shapes I cannot tell.", None),
        ("", None),
        ("The icon is a wallet.", None),
    ],
)
def test_parse_choice(response: str, expected: str | None) -> None:
    assert parse_choice(response) == expected


def _sample(category: str = "perceptual", answer: str = "B") -> Sample:
    target = QuestionTarget(answer=answer, category=category)
    return Sample(f"easy/3/{category}", "easy", [], f"Answer: {answer}", None, target=target)


def test_scores_right_wrong_and_unparsed(renderer: Renderer) -> None:
    task = SvgeniusUnderstanding(CommonOptions())
    right = task.score(_sample(), "Answer: B", renderer)
    wrong = task.score(_sample("semantic"), "Answer: A", renderer)
    unparsed = task.score(_sample(), "no idea", renderer)
    assert right.valid and right.metrics["perceptual_acc"] == 100.0 and right.extracted == "B"
    assert wrong.valid and wrong.metrics["semantic_acc"] == 0.0
    assert not unparsed.valid and unparsed.failure.tag == "extract"
    assert unparsed.metrics == {"perceptual_acc": 0.0, "acc": 0.0, "n_unparsed": 1.0}


def failed_call_metrics(renderer: Renderer) -> dict[str, float | None]:
    target = QuestionTarget(category="semantic", answer="A")
    sample = Sample("easy/1/semantic", "easy", [], "Answer: A", None, target=target)
    return SvgeniusUnderstanding(CommonOptions()).score(sample, "", renderer).metrics


def test_aggregate_counts_unparsed_and_failed_calls_as_wrong(renderer: Renderer) -> None:
    def record(
        sample_id: str, metrics: dict[str, float], failure: str | None = None
    ) -> dict[str, object]:
        return {
            "id": sample_id,
            "group": "easy",
            "failure": None if failure is None else {"kind": failure},
            "metrics": metrics,
        }

    records = [
        record("easy/0/perceptual", {"perceptual_acc": 100.0, "acc": 100.0, "n_unparsed": 0.0}),
        record("easy/0/semantic", {"semantic_acc": 100.0, "acc": 100.0, "n_unparsed": 0.0}),
        record(
            "easy/1/perceptual", {"perceptual_acc": 0.0, "acc": 0.0, "n_unparsed": 1.0}, "extract"
        ),
        # the runner scores a failed model call as an empty response
        record("easy/1/semantic", failed_call_metrics(renderer), "model_error"),
    ]
    metrics = SvgeniusUnderstanding(CommonOptions()).aggregate([Outcome.model_validate(r) for r in records]).metrics
    assert metrics == {
        "easy/acc": 50.0,
        "easy/perceptual_acc": 50.0,
        "easy/semantic_acc": 50.0,
        "easy/n_unparsed": 2.0,
    }


@pytest.mark.shared_data
def test_loads_question1_as_perceptual_and_question2_as_semantic() -> None:
    samples = SvgeniusUnderstanding(CommonOptions(data=svgenius_root(), tier="medium")).load()
    items = released_items("understanding/medium_generation_results.json")
    assert len(samples) == 2 * len(items) == 156
    first = items[0]
    perceptual, semantic = samples[0], samples[1]
    assert perceptual.id == f"medium/{first['index']}/perceptual"
    assert semantic.id == f"medium/{first['index']}/semantic"
    assert perceptual.reference == f"Answer: {first['questions']['question1']['answer']}"
    prompt = perceptual.messages[0]["content"]
    question = first["questions"]["question1"]
    assert question["question"] in prompt
    assert "; ".join(f"{k}) {v}" for k, v in question["option"].items()) in prompt
    assert prompt.startswith("You are a svg analysis expert.")
    assert prompt.endswith("Now, answer the given question:")
    # The SVG code of the icon (under src/data/medium/process, although the item says moderate).
    assert "<svg" in prompt and "moderate" in first["image_path"]


@pytest.mark.shared_data
def test_all_questions_adds_the_design_question() -> None:
    options = CommonOptions(data=svgenius_root(), tier="hard", extra={"questions": "all"})
    samples = SvgeniusUnderstanding(options).load()
    assert len(samples) == 3 * 48
    assert {s.target.category for s in samples} == {"perceptual", "semantic", "design"}


@pytest.mark.shared_data
def test_oracle_is_right_and_identity_is_unparsed(tmp_path: Path) -> None:
    oracle = run_task(SvgeniusUnderstanding, OracleModel(), tmp_path / "oracle")["metrics"]
    identity = run_task(SvgeniusUnderstanding, IdentityModel(), tmp_path / "identity")["metrics"]
    questions = {"easy": 93, "medium": 78, "hard": 48}
    for tier, count in questions.items():
        for name in ("acc", "perceptual_acc", "semantic_acc"):
            assert oracle[f"{tier}/{name}"] == 100.0
            assert identity[f"{tier}/{name}"] == 0.0
        assert oracle[f"{tier}/n_unparsed"] == 0.0
        assert identity[f"{tier}/n_unparsed"] == 2 * count
