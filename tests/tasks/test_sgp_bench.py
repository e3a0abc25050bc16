"""SGP-Bench: prompts, extraction, aggregation and invariance consistency against the released
scorer, and end-to-end runs of the oracle and baselines on tiny files in the hub's schema.

"Released" numbers are what ``sgp-bench/sgp-bench`` at e790639 gives on the inputs of
``support.sgp_bench_data``: ``tests/upstream/sgp_bench.py`` runs ``common.py``, ``sgp_eval.py``'s
``SGPEval`` (a stand-in sampler) and ``evaluate_consistency.py``'s functions (read unmodified
through ``ast``) and prints the ``RELEASED_*`` constants below (equal when last run).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from support.sgp_bench_data import (
    AGGREGATED,
    CONSISTENCY_ANSWERS,
    CONSISTENCY_GOLD,
    EXTRACTION_REPLIES,
    PROMPT_ROW,
)
from typer.testing import CliRunner

from svgeval.builders.sgp_bench import builtin
from svgeval.cli import app
from svgeval.render.isolated import Renderer
from svgeval.tasks import get_task
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.outcome import Outcome
from svgeval.tasks.sgp_bench import consistency, prompts

# tests/upstream/sgp_bench.py: SHA-256 of the released templates (common.py, mnist_eval.py)
RELEASED_SHA256 = {
    "MCQ_TEMPLATE": "d4d85337bbd54659d12c8da7edc8b854d151b7327cf7574dc1062d753b03c8a6",
    "EQUALITY_TEMPLATE": "c9385e2f8120f01b098ea7c3b265535f797a65d8d7b37df4833fa38b51f50d2f",
    "MNIST_TEMPLATE": "c9fb54c9c5c4adbd060a0b505a1e3218cce58832bc03f91d5df9437bc191ff9b",
}
ROWS = [
    {"Question": "<svg><circle fill='red'/></svg> What colour is the circle?", "A": "red",
     "B": "blue", "C": "green", "D": "black", "Answer": "A", "Subject": "Color"},
    {"Question": "<svg><rect/><rect/></svg> How many rectangles?", "A": "1", "B": "2",
     "C": "3", "D": "4", "Answer": "B", "Subject": "Counting"},
    {"Question": "<svg><path d='M0 0L9 9'/></svg> What is drawn?", "A": "a cat", "B": "a dog",
     "C": "a line", "D": "a tree", "Answer": "C", "Subject": "Semantics"},
]


def write_split(folder: Path, split: str, rows: list[dict[str, str]]) -> None:
    """One split as the hub stores it (the built-in sample's writer), plus a column the tasks
    ignore."""
    builtin.write_split(folder, split, [{**row, "__index_level_0__": i}
                                        for i, row in enumerate(rows)])


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sgp-bench")
    write_split(folder, "svg", ROWS)
    for split in consistency.SPLITS:
        write_split(folder, split, ROWS)
    return folder


def run(task: str, model: str, data: Path, out: Path, *extra: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["run", task, "--model", model, "--data", str(data),
                                      "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    return dict(json.loads((out / "results.json").read_text())["metrics"])


def test_templates_are_the_released_ones_word_for_word() -> None:
    for name, digest in RELEASED_SHA256.items():
        assert hashlib.sha256(getattr(prompts, name).encode()).hexdigest() == digest, name
    assert prompts.MCQ_TEMPLATE.format(**PROMPT_ROW) == RELEASED_PROMPT


# format_multichoice_question(PROMPT_ROW) of the release
RELEASED_PROMPT = (
    "Answer the following multiple choice question. The last line of your response should "
    "be of the following format: 'Answer: $LETTER' (without quotes) where LETTER is one of "
    "ABCD. Think step by step before answering.\n\n<svg>\u2026</svg> What is drawn?\n\n"
    "A) cat\nB) dog\nC) car\nD) tree")
# the letter SGPEval extracts per reply of EXTRACTION_REPLIES (ANSWER_PATTERN_MULTICHOICE, first
# match; None after its five asks)
RELEASED_EXTRACTION = {
    "Answer: B": "B", "answer: b": "b", "Answer : C\n": "C",
    "The answer: A. On reflection...\nAnswer: D": "A", "**Answer:** B": None,
    "Answer: (B)": None, "I think B.": None, "ANSWER:D": "D", "Answer:\nB": "B",
}


# aggregate_results over AGGREGATED: the score and the mean per subject
RELEASED_AGGREGATE = {"score": 0.75, "Color": 0.6666666666666666, "Shape": 1.0}
# evaluate_consistency.py on CONSISTENCY_ANSWERS: its printed "Average accuracy" and "Average
# Consistency Rate" (3 places)
RELEASED_AVERAGE_ACCURACY = 0.556
RELEASED_CONSISTENCY = 0.722


def test_the_released_extraction_and_the_last_match_reading() -> None:
    assert {text: prompts.extract_letter(text, "sgp-bench")
            for text in EXTRACTION_REPLIES} == RELEASED_EXTRACTION
    assert prompts.extract_letter("The answer: A. On reflection...\nAnswer: D", "last") == "D"
    assert prompts.extract_letter("answer: b", "last") == "B"


def test_per_subject_aggregation_matches_the_released_one() -> None:
    records = [Outcome(id=str(i), group=subject, metrics={"accuracy": 100 * value})
               for i, (subject, value) in enumerate(AGGREGATED)]
    metrics = get_task("sgp-bench-svg")(CommonOptions()).aggregate(records).metrics
    assert {"score": metrics["all/accuracy"], "Color": metrics["Color/accuracy"],
            "Shape": metrics["Shape/accuracy"]} == pytest.approx(
        {name: 100 * value for name, value in RELEASED_AGGREGATE.items()})  # svgeval in percent


def test_consistency_matches_the_released_one() -> None:
    records = [Outcome(id=f"{split}/{i:05d}", group=split, extracted=letter,
                       metrics={"accuracy": 100.0 if letter == CONSISTENCY_GOLD else 0.0})
               for split, letters in CONSISTENCY_ANSWERS.items()
               for i, letter in enumerate(letters)]
    metrics = consistency.consistency_metrics(records)
    # (6/6 + 4/6 + 3/6) / 3
    assert round(metrics["translation/consistency"] or 0, 3) == RELEASED_CONSISTENCY
    assert round((metrics["translation/accuracy"] or 0) / 100, 3) == RELEASED_AVERAGE_ACCURACY
    assert metrics["rotation/consistency"] is None and metrics["rotation/left_out"] == 3.0


def test_unanswered_variants_are_consistent_as_released_and_left_out_in_ours() -> None:
    records = [Outcome(id=f"{split}/00000", group=split, extracted=None,
                       metrics={"accuracy": 0.0}) for split in consistency.TRANSLATION]
    records += [Outcome(id=f"{split}/00001", group=split, extracted="B",
                        metrics={"accuracy": 100.0}) for split in consistency.TRANSLATION]
    records[-1] = records[-1].model_copy(update={"extracted": "C"})
    metrics = consistency.consistency_metrics(records)
    assert metrics["translation/consistency"] == pytest.approx((1 + 5 / 6) / 2)
    assert metrics["translation/consistency_answered"] == pytest.approx(5 / 6)
    assert metrics["translation/left_out"] == 1.0


def test_svg_oracle_scores_100_and_the_baselines_lower(bench: Path, tmp_path: Path) -> None:
    best = run("sgp-bench-svg", "oracle", bench, tmp_path / "o")
    assert best["all/accuracy"] == 100.0 and best["Counting/accuracy"] == 100.0
    worst = run("sgp-bench-svg", "identity", bench, tmp_path / "i")
    assert worst["all/accuracy"] == 0.0  # no 'Answer: X': an extract failure scored 0


def test_a_wrong_letter_scores_lower(bench: Path, tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": f"svg/{i:05d}", "response": text}) + "\n"
                               for i, text in enumerate(["Answer: A", "Answer: C", "answer: c"])))
    metrics = run("sgp-bench-svg", f"replay:{answers}", bench, tmp_path / "r")
    assert metrics["all/accuracy"] == pytest.approx(100 / 3)  # lower case 'c' is wrong, released
    last = run("sgp-bench-svg", f"replay:{answers}", bench, tmp_path / "l", "--set", "extract=last")
    assert last["all/accuracy"] == pytest.approx(200 / 3)


def test_invariance_oracle_is_fully_consistent(bench: Path, tmp_path: Path) -> None:
    metrics = run("sgp-bench-inv", "oracle", bench, tmp_path / "o")
    assert metrics["inv_t3/accuracy"] == 100.0 and metrics["all/accuracy"] == 100.0
    for family in ("translation", "rotation"):
        assert metrics[f"{family}/consistency"] == 1.0
        assert metrics[f"{family}/consistency_answered"] == 1.0
        assert metrics[f"{family}/accuracy"] == 100.0 and metrics[f"{family}/left_out"] == 0.0
    worst = run("sgp-bench-inv", "identity", bench, tmp_path / "i")
    assert worst["translation/consistency_answered"] is None  # nothing answered: all left out
    assert worst["translation/left_out"] == 3.0 and worst["translation/accuracy"] == 0.0


def test_mnist_exact_reading_and_the_released_judge_request(tmp_path: Path) -> None:
    folder = tmp_path / "mnist"
    rows = [{"Question": "<svg><path d='M5 0V9'/></svg> Which digit is drawn?", "Answer": "1"},
            {"Question": "<svg><circle r='4'/></svg> Which digit is drawn?", "Answer": "0"}]
    write_split(folder, "mnist", rows)
    best = run("sgp-bench-mnist", "oracle", folder, tmp_path / "o")
    assert best["all/accuracy_exact"] == 100.0 and best["all/accuracy"] is None  # no --judge
    assert run("sgp-bench-mnist", "identity", folder, tmp_path / "i")["all/accuracy_exact"] == 0.0
    task = get_task("sgp-bench-mnist")(CommonOptions(data=folder))
    sample = task.load()[0]
    assert sample.messages[0] == {"role": "system", "content": "You are a helpful assistant."}
    score = task.score(sample, "Step by step...\nAnswer: 1 ", Renderer())
    (request,) = score.judge_requests
    text = request.messages[0]["content"]
    assert text.endswith("    Expression 1: 1\n    Expression 2: 1 ")
    assert request.parse(" Yes\n") == 100.0 and request.parse("Yes, equivalent") == 0.0
    assert score.metrics["accuracy_exact"] == 100.0


def test_csv_copy_and_a_missing_column_is_one_line(tmp_path: Path) -> None:
    import csv

    copy = tmp_path / "csv"
    copy.mkdir()
    with (copy / "svg.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(ROWS[0]))
        writer.writeheader()
        writer.writerows(ROWS)
    assert run("sgp-bench-svg", "oracle", copy, tmp_path / "o")["all/accuracy"] == 100.0
    bad = tmp_path / "bad"
    write_split(bad, "svg", [{k: v for k, v in row.items() if k != "Subject"} for row in ROWS])
    result = CliRunner().invoke(app, ["run", "sgp-bench-svg", "--model", "oracle", "--data",
                                      str(bad), "--out", str(tmp_path / "b")])
    assert result.exit_code != 0
    assert "no column Subject; columns found: Question, A, B, C, D, Answer" in result.output
    system = get_task("sgp-bench-svg")(CommonOptions(data=copy, extra={"system": "none"}))
    assert [m["role"] for m in system.load()[0].messages] == ["user"]


def test_the_released_re_ask_against_a_real_http_server(bench: Path, tmp_path: Path) -> None:
    from collections import Counter

    from support.fake_openai_server import FakeOpenAIServer, message_text

    asked: Counter[str] = Counter()

    def reply(body: dict[str, Any]) -> str:
        """Reasoning without the format twice, then the right letter."""
        text = message_text(body["messages"][-1])
        asked[text] += 1
        letter = next(row["Answer"] for row in ROWS if row["Question"] in text)
        return f"It is {letter}." if asked[text] < 3 else f"Answer: {letter}"

    with FakeOpenAIServer(reply=reply) as server:
        def go(out: str, *extra: str) -> dict[str, Any]:
            return run("sgp-bench-svg", "openai-compatible:m", bench, tmp_path / out,
                       "--base-url", server.base_url, *extra)

        assert go("released")["all/accuracy"] == 100.0  # third ask in 5 holds the answer
        records = [json.loads(line) for line in (tmp_path / "released" / "samples.jsonl")
                   .read_text().splitlines()]
        assert [r["timing"]["attempts"] for r in records] == [3, 3, 3]
        asked.clear()
        assert go("once", "--set", "reask=1")["all/accuracy"] == 0.0  # one answer: no format
        assert sum(asked.values()) == 3


def test_the_built_in_invariance_splits_ask_each_question_of_eleven_programs(
        tmp_path: Path) -> None:
    builtin.write(tmp_path)
    samples = get_task("sgp-bench-inv")(CommonOptions(data=tmp_path / "sgp-bench")).load()
    by_question: dict[str, list[Any]] = {}
    for sample in samples:
        by_question.setdefault(sample.id.split("/")[1], []).append(sample)
    assert len(by_question) == 2
    for variants in by_question.values():
        assert sorted(s.group for s in variants) == sorted(consistency.SPLITS)
        assert len({s.expected for s in variants}) == 1  # one answer, paired by position
        assert len({s.messages[-1]["content"] for s in variants}) == 11  # moved or turned


def test_an_integer_answer_zero_is_read_as_the_digit() -> None:
    """SGP-MNIST's answers are digits; a parquet column of integers holds 0 for the digit zero,
    which must stay "0" (it became "", an answer no reply can match)."""
    from svgeval.tasks.sgp_bench.data import select_columns

    rows = select_columns([{"Answer": 0, "Question": None}, {"Answer": 7, "Question": "q"}],
                          ["Answer", "Question"], "mnist.parquet")
    assert rows == [{"Answer": "0", "Question": ""}, {"Answer": "7", "Question": "q"}]
