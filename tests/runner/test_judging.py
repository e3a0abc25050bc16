"""The judging step: cache in judgments.jsonl, one request per distinct question, bounded
concurrency, verdicts parsed from cached replies, failures recorded and never guessed."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from svgeval.messages import user_message
from svgeval.models.base import Generation, GenerationRequest, Model, ModelError, ModelUnavailable
from svgeval.render.isolated import Renderer
from svgeval.runner.judging import Judge, Judging, judgment_cache, judgment_key
from svgeval.runner.records import JudgmentRecord
from svgeval.runner.run_dir import read_records
from svgeval.tasks.base import CommonOptions, Sample, Task
from svgeval.tasks.judge import JudgeRequest, parse_result_score
from svgeval.tasks.outcome import JudgeFailure, Outcome


class ScriptedJudge(Model):
    """Answers from a function of the prompt text; counts requests and concurrency."""

    def __init__(self, answer: Any, delay_s: float = 0.0) -> None:
        self.spec = "scripted-judge"
        self.answer = answer
        self.delay_s = delay_s
        self.asked: Counter[str] = Counter()
        self.in_flight = self.max_in_flight = 0

    async def generate(self, request: GenerationRequest) -> Generation:
        text = request.messages[0]["content"]
        self.asked[text] += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay_s)
            reply = self.answer(text)
        finally:
            self.in_flight -= 1
        if isinstance(reply, Exception):
            raise reply
        return Generation(reply)


class Judged(Task):
    name = "judged-check"
    description = "a task with judged metrics"
    judge_metrics = ("quality", "pair")

    def load(self) -> list[Sample]:
        return []

    def score(self, sample: Sample, response: str, renderer: Renderer) -> Outcome:
        return Outcome.of(sample)


def request(question: str, metric: str = "quality") -> JudgeRequest:
    return JudgeRequest(metric, user_message(question), parse_result_score, temperature=0.05)


def judging(tmp_path: Path, model: Model | None, concurrency: int = 8) -> Judging:
    path = tmp_path / "judgments.jsonl"
    cache = judgment_cache(read_records(path, JudgmentRecord))
    judge = Judge("scripted-judge", model, concurrency)
    return Judging(judge, Judged(CommonOptions()), path, cache)


def asking(sample_id: str, requests: list[JudgeRequest],
           metrics: dict[str, Any] | None = None) -> Outcome:
    """An outcome of sample ``sample_id`` holding ``metrics`` that asks the judge ``requests``."""
    outcome = Outcome(id=sample_id, group="g", metrics=dict(metrics or {}))
    for question in requests:
        outcome.ask_judge(question)
    return outcome


def apply(
    judge: Judging, requests: list[JudgeRequest], metrics: dict[str, Any] | None = None
) -> Outcome:
    async def go() -> Outcome:
        judged = await judge.apply(asking("s1", requests, metrics))
        await judge.aclose()
        return judged

    return asyncio.run(go())


def test_a_cached_reply_is_never_asked_again(tmp_path: Path) -> None:
    model = ScriptedJudge(lambda text: f"Feedback: ok [RESULT] {len(text)}")
    scored = apply(judging(tmp_path, model), [request("abc"), request("abcd", "pair")])
    assert scored.metrics == {"quality": 3.0, "pair": 4.0}
    assert scored.judge_failures == {} and "judge_requests" not in scored.model_dump()
    again = ScriptedJudge(lambda text: "Feedback: other [RESULT] 1")
    scored = apply(judging(tmp_path, again), [request("abc"), request("abcd", "pair")])
    assert scored.metrics == {"quality": 3.0, "pair": 4.0} and not again.asked
    records = read_records(tmp_path / "judgments.jsonl", JudgmentRecord)
    assert [(r.metric, r.reply, r.score, r.sample_id) for r in records] == [
        ("quality", "Feedback: ok [RESULT] 3", 3.0, "s1"),
        ("pair", "Feedback: ok [RESULT] 4", 4.0, "s1"),
    ]
    assert records[0].key == judgment_key("scripted-judge", user_message("abc"), 0.05)


def test_the_key_covers_judge_messages_and_temperature() -> None:
    base = judgment_key("j", user_message("q"), 0.05)
    assert base != judgment_key("k", user_message("q"), 0.05)
    assert base != judgment_key("j", user_message("q "), 0.05)
    assert base != judgment_key("j", user_message("q"), 0.0)
    schema = {"type": "json_schema", "json_schema": {"name": "n", "schema": {"type": "object"}}}
    assert base != judgment_key("j", user_message("q"), 0.05, schema)
    assert base == judgment_key("j", user_message("q"), 0.05, None)  # free-text keys unchanged


def test_a_structured_request_reaches_the_judge_with_its_response_format(
    tmp_path: Path,
) -> None:
    seen: list[GenerationRequest] = []

    class Recording(ScriptedJudge):
        async def generate(self, request: GenerationRequest) -> Generation:
            seen.append(request)
            return await super().generate(request)

    schema = {"type": "json_schema", "json_schema": {"name": "n", "schema": {"type": "object"}}}
    structured = JudgeRequest("quality", user_message("q"), lambda reply: float(len(reply)),
                              response_format=schema)
    scored = apply(judging(tmp_path, Recording(lambda text: "{}")), [structured])
    assert scored.metrics["quality"] == 2.0
    assert [request.response_format for request in seen] == [schema]


def test_identical_questions_in_flight_are_asked_once_and_concurrency_is_bounded(
    tmp_path: Path,
) -> None:
    model = ScriptedJudge(lambda text: "[RESULT] 2", delay_s=0.02)
    judge = judging(tmp_path, model, concurrency=3)
    requests = [request(f"q{i % 10}") for i in range(40)]

    async def go() -> list[Outcome]:
        judged = await asyncio.gather(
            *(judge.apply(asking(f"s{i}", [r])) for i, r in enumerate(requests)))
        await judge.aclose()
        return judged

    scored = asyncio.run(go())
    assert all(s.metrics == {"quality": 2.0} for s in scored)
    assert sum(model.asked.values()) == 10 and set(model.asked.values()) == {1}
    assert model.max_in_flight == 3 and judge.asked == 10


def test_a_reply_without_a_verdict_is_a_failure_kept_in_the_cache(tmp_path: Path) -> None:
    model = ScriptedJudge(lambda text: "Feedback: 3 of 4 parts kept, I'd say 4 out of 5.")
    scored = apply(judging(tmp_path, model), [request("q")], {"other": 1.0})
    assert scored.metrics == {"other": 1.0, "quality": None}
    failure = scored.judge_failures["quality"]
    assert failure.kind == "unparsed" and "4 out of 5" in failure.detail
    again = ScriptedJudge(lambda text: "[RESULT] 5")
    scored = apply(judging(tmp_path, again), [request("q")])
    assert scored.metrics == {"quality": None} and not again.asked  # answered: not re-asked


def test_a_failed_request_is_an_error_asked_again_later(tmp_path: Path) -> None:
    model = ScriptedJudge(lambda text: ModelError("gave up after 7 attempts", attempts=7))
    scored = apply(judging(tmp_path, model), [request("q")])
    assert scored.judge_failures == {
        "quality": JudgeFailure(kind="error", detail="gave up after 7 attempts")
    }
    (record,) = read_records(tmp_path / "judgments.jsonl", JudgmentRecord)
    assert record.reply is None and record.timing.attempts == 7
    again = ScriptedJudge(lambda text: "[RESULT] 5")
    assert apply(judging(tmp_path, again), [request("q")]).metrics == {"quality": 5.0}
    assert sum(again.asked.values()) == 1


def test_requests_of_one_metric_are_averaged_and_fail_together(tmp_path: Path) -> None:
    model = ScriptedJudge(lambda text: {"a": "[RESULT] 1", "b": "[RESULT] 4"}.get(text, "none"))
    pair = [request("a", "pair"), request("b", "pair")]
    assert apply(judging(tmp_path, model), pair).metrics == {"pair": 2.5}
    scored = apply(judging(tmp_path, model), [request("a", "pair"), request("c", "pair")])
    assert (
        scored.metrics == {"pair": None} and scored.judge_failures["pair"].kind == "unparsed"
    )


def test_without_a_judge_judged_metrics_are_not_computed(tmp_path: Path) -> None:
    path = tmp_path / "judgments.jsonl"
    no_judge = Judging(None, Judged(CommonOptions()), path, {})
    scored = apply(no_judge, [request("q")], {"pair": 0.0, "drawn": 1.0})
    assert scored.metrics == {"quality": None, "pair": None, "drawn": 1.0}
    assert set(scored.not_computed) == {"quality", "pair"}
    assert "--judge" in scored.not_computed["quality"] and not path.exists()


def test_cached_verdicts_only_without_a_judge_backend(tmp_path: Path) -> None:
    apply(judging(tmp_path, ScriptedJudge(lambda text: "[RESULT] 3")), [request("q")])
    scored = apply(judging(tmp_path, None), [request("q"), request("new", "pair")])
    assert scored.metrics == {"quality": 3.0, "pair": None}
    assert "pass --judge" in scored.judge_failures["pair"].detail


def test_an_unreachable_judge_names_the_judge_flags(tmp_path: Path) -> None:
    error = ModelUnavailable(
        "openai-compatible:j: cannot reach http://x (refused); check --base-url"
    )
    with pytest.raises(ModelUnavailable, match=r"^judge openai-compatible:j: .*--judge-base-url$"):
        apply(judging(tmp_path, ScriptedJudge(lambda text: error)), [request("q")])


def test_a_line_cut_short_by_a_kill_is_dropped_before_the_next_verdict(tmp_path: Path) -> None:
    apply(judging(tmp_path, ScriptedJudge(lambda text: "[RESULT] 3")), [request("q")])
    path = tmp_path / "judgments.jsonl"
    whole = path.read_text()
    path.write_text(whole + whole[: len(whole) // 2])  # a second record, cut short
    scored = apply(judging(tmp_path, ScriptedJudge(lambda text: "[RESULT] 1")), [request("new")])
    assert scored.metrics == {"quality": 1.0}
    records = read_records(path, JudgmentRecord)  # every line is whole again
    assert [r.reply for r in records] == ["[RESULT] 3", "[RESULT] 1"]
    assert path.read_text().count("\n") == 2
