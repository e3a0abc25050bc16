"""Finished records wait for the results as compact JSON: what is kept, what is dropped, order."""

from __future__ import annotations

from svgeval.runner.finished import FinishedRecords
from svgeval.runner.records import SampleRecord, Timing, Usage
from svgeval.tasks.outcome import Failure, FailureKind


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
