"""Finished records wait for the results as compressed JSON: what is kept, what is dropped,
order, and the results they give: today's, from the records themselves."""

from __future__ import annotations

import dataclasses
import json
import math
import random

import pytest

from svgeval.runner.epochs import summarize, tally
from svgeval.runner.finished import FinishedRecords
from svgeval.runner.records import SampleRecord, Timing, Usage
from svgeval.tasks.base import CommonOptions, Task
from svgeval.tasks.outcome import Failure, FailureKind, JudgeFailure
from svgeval.tasks.svgeditbench import SvgEditBench
from svgeval.tasks.svgenius.understanding import SvgeniusUnderstanding


def record(sample_id: str, epoch: int = 1, **changes: object) -> SampleRecord:
    fields: dict[str, object] = {
        "id": sample_id, "epoch": epoch, "group": "change_color",
        "prompt": [{"role": "user", "content": "<svg>" + "x" * 2000 + "</svg>"}],
        "prompt_hash": "c360e6ef50fbcd40", "response": "```svg\n<svg/>\n```",
        "extracted": "<svg/>", "extraction_rule": "fenced_svg",
        "metrics": {"mse": 0.125, "mse_all": 0.125}, "usage": Usage(prompt_tokens=7),
        "timing": Timing(attempts=2, total_s=1.5), "created_at": "2026-11-23T00:00:00+00:00",
    }
    return SampleRecord.model_validate({**fields, **changes})


def test_a_stored_record_reads_back_without_its_prompt_and_answer() -> None:
    done = FinishedRecords()
    original = record("a", failure=Failure(kind=FailureKind.RENDER, reason="timeout"))
    done[original.key] = original
    back = done[("a", 1)]
    assert back == original.model_copy(update={"prompt": [], "response": None})
    assert back.extracted == "<svg/>" and back.failure is not None and back.failure.reason == "timeout"


def test_the_extracted_svg_is_dropped_when_no_metric_will_draw_it() -> None:
    done = FinishedRecords(keep_extracted=False)
    done[("a", 1)] = record("a")
    assert done[("a", 1)].extracted is None and done[("a", 1)].metrics["mse"] == 0.125


def test_in_order_follows_the_keys_given_and_skips_missing_ones() -> None:
    done = FinishedRecords()
    for sample_id, epoch in [("b", 1), ("a", 2), ("a", 1)]:
        done[(sample_id, epoch)] = record(sample_id, epoch)
    ordered = done.in_order([("a", 1), ("z", 1), ("a", 2), ("b", 1)])
    assert [r.key for r in ordered] == [("a", 1), ("a", 2), ("b", 1)]
    assert [r.key for r in ordered[1:]] == [("a", 2), ("b", 1)]
    del done[("a", 2)]
    assert set(done) == {("a", 1), ("b", 1)} and len(done) == 2


def test_a_record_with_a_replaced_surrogate_reads_back_as_it_was_stored() -> None:
    """Read back without the walk over its text: the U+FFFD stays, counted once."""
    original = record("a", response="half \ud83d an emoji", extracted="<svg>\ud800</svg>")
    assert original.replaced_surrogates == 2 and original.extracted == "<svg>\ufffd</svg>"
    done = FinishedRecords()
    done[original.key] = original
    assert done[("a", 1)] == original.model_copy(update={"prompt": [], "response": None})


def varied_records(count: int, epochs: int) -> list[SampleRecord]:
    """``count`` records per epoch in 3 groups: values of every magnitude, None and NaN, failures
    of the model and of the dataset, judge failures, reasons not computed, tokens and times, a
    lone surrogate repaired."""
    rng = random.Random(7)
    kinds = [None, Failure(kind=FailureKind.EXTRACT, detail="no svg"),
             Failure(kind=FailureKind.RENDER, reason="timeout"),
             Failure(kind=FailureKind.REFERENCE, detail="broken reference"),
             Failure(kind=FailureKind.MODEL_ERROR, detail="HTTP 500")]
    records = []
    for epoch in range(1, epochs + 1):
        for index in range(count):
            value = rng.choice([rng.random() * 10 ** rng.randint(-9, 4), None, math.nan, 0.0])
            judged = {"judge_score": JudgeFailure(kind="unparsed", detail="no verdict")} \
                if index % 11 == 0 else {}
            records.append(record(
                f"s{index}", epoch, group=f"g{index % 3}",
                metrics={"mse": value, "mse_all": 1.0 if value is None else value,
                         "acc": float(rng.random() < 0.5) * 100, "judge_score": None
                         if judged else rng.random(), **({"only_some": 2.5} if index % 4 else {})},
                failure=kinds[index % len(kinds)], judge_failures=judged,
                not_computed={"clip": "weights missing"} if index % 13 == 0 else {},
                usage=Usage(prompt_tokens=index, completion_tokens=rng.randint(0, 99)),
                timing=Timing(attempts=1 + index % 3, total_s=rng.random()),
                response=f"answer {index}\ud800" if index % 17 == 0 else "answer",
            ))
    rng.shuffle(records)  # finished in any order; the results read them in the units' order
    return records


@pytest.mark.parametrize("epochs", [1, 3])
@pytest.mark.parametrize("task", [SvgEditBench(CommonOptions()),
                                  SvgeniusUnderstanding(CommonOptions())])
def test_results_from_stored_records_are_todays_results(task: Task, epochs: int) -> None:
    """The aggregate, the per-epoch numbers, pass@k and the tallies of ``results.json``, computed
    from a few hundred records read back from :class:`FinishedRecords`, equal those computed
    from the records themselves, to the last bit and in the same key order."""
    records = varied_records(300, epochs)
    done = FinishedRecords(keep_extracted=False)
    for each in records:
        done[each.key] = each
    order = [(f"s{index}", epoch) for epoch in range(1, epochs + 1) for index in range(300)]
    by_key = {each.key: each for each in records}
    today = [by_key[key] for key in order]
    stored = done.in_order(order)
    assert len(stored) == len(today) == 300 * epochs
    for summary in (lambda rs: summarize(task, rs, {}, epochs), lambda rs: tally(rs, 2.0, 9)):
        mine, theirs = summary(stored), summary(today)
        assert json.dumps(dataclasses.asdict(mine), default=str) == \
            json.dumps(dataclasses.asdict(theirs), default=str)
    assert summarize(task, stored, {}, epochs).metrics["g0/only_some"] == 2.5
