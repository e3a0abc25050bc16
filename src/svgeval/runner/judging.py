"""Asking the judge model: the cache, the concurrency limit, the record and the verdict.

A task returns :class:`~svgeval.tasks.judge.JudgeRequest` objects on its score; after scoring a
sample the runner hands them to :meth:`Judging.apply`, which fills the sample's judged metrics.
Each request is looked up in ``judgments.jsonl`` by its key, a SHA-256 of the judge's spec, the
messages and the temperature; only a request with no cached reply goes to the judge (at most
``--judge-concurrency`` at a time, identical requests in flight sent once), and every reply is
appended, flushed and fsynced as it arrives, so a run killed at any moment never asks the judge
again for what it answered. The verdict is parsed from the cached reply each time, so
``svgeval score`` applies a corrected parser without asking again.

A reply without a verdict is a judge failure of kind ``unparsed``: the metric is None and the
failure is recorded on the sample and counted per group in ``results.json``; it is never asked
again. A request that failed for good is a failure of kind ``error`` and is asked again on
``--resume``. Without a judge, every judged metric is None and ``not_computed`` says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svgeval.messages import has_images
from svgeval.models.base import GenerationRequest, Model, ModelError, ModelUnavailable
from svgeval.run_request import DEFAULTS
from svgeval.runner.records import JudgmentRecord, Timing, Usage, now
from svgeval.runner.run_dir import RecordAppender
from svgeval.runner.slots import request_slots
from svgeval.tasks.base import Sample, Task
from svgeval.tasks.judge import JudgeRequest
from svgeval.tasks.outcome import JudgeFailure, Outcome

NO_JUDGE = "needs a judge model: pass --judge MODEL (see docs/judges.md)"
"""Why judged metrics are not computed in a run without a judge."""

REPLY_SHOWN = 120
"""Characters of an unparseable reply kept in the sample's failure detail."""


@dataclass(frozen=True)
class Judge:
    """The judge of a run: its spec, its backend (None: cached verdicts only, as ``svgeval
    score`` without ``--judge``) and how many of its requests may be in flight."""

    spec: str
    model: Model | None = None
    concurrency: int = DEFAULTS.judge_concurrency

    @property
    def base_url(self) -> str | None:
        """The endpoint of an HTTP judge."""
        url = getattr(self.model, "base_url", None)
        return url if isinstance(url, str) else None


def judgment_key(
    spec: str,
    messages: Sequence[Any],
    temperature: float | None,
    response_format: Mapping[str, Any] | None = None,
) -> str:
    """The cache key of a request: SHA-256 of the judge spec, messages and temperature (and the
    structured-output request, when there is one; keys of free-text requests are unchanged)."""
    parts: list[Any] = [spec, list(messages), temperature]
    if response_format is not None:
        parts.append(dict(response_format))
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def judgment_cache(records: Iterable[JudgmentRecord]) -> dict[str, JudgmentRecord]:
    """Each key's record: its reply when the judge ever answered, else its last failure."""
    cache: dict[str, JudgmentRecord] = {}
    for record in records:
        if record.reply is not None or cache.get(record.key, record).reply is None:
            cache[record.key] = record
    return cache


def check_image_inputs(
    task: Task[Any], samples: Sequence[Sample[Any]], model: Model | None, judge: Judge | None
) -> None:
    """Refuse, before any request, images for a text-only model (None: no model is asked), a
    text-only judge for a task that shows its judge images, and a judge for a task that has
    none to ask."""
    if model is not None and not model.accepts_images:
        with_images = next((s for s in samples if has_images(s.messages)), None)
        if with_images is not None:
            raise ModelUnavailable(
                f"{model.spec} reads text only (a text-only checkpoint, or --text-only-model) "
                f"but {task.name} sends images (sample {with_images.id}); choose a model that "
                "reads images"
            )
    if judge is None:
        return
    if not task.judge_metrics:
        raise ModelUnavailable(f"{task.name} asks no judge; leave out --judge")
    if judge.model is not None and task.judge_sees_images and not judge.model.accepts_images:
        raise ModelUnavailable(
            f"the judge {judge.spec} is declared text-only (--text-only-judge) but "
            f"{task.name} shows the judge images; choose a judge that reads images"
        )


def judge_wording(message: str) -> str:
    """A backend's message about the judge, naming the judge's flags (``--judge-base-url``,
    ``--judge-api-key-env``) in its advice."""
    return re.sub(r"(?<![\w-])--(base-url|api-key-env)\b", r"--judge-\1", message)


def _as_judge_error(error: ModelUnavailable) -> ModelUnavailable:
    return ModelUnavailable(f"judge {judge_wording(str(error))}")


def _drop_cut_line(path: Path) -> None:
    """Cut off a last line without a newline (a write cut short by a kill, which readers skip),
    so that the next record starts a line of its own."""
    if not path.exists():
        return
    with path.open("rb+") as handle:
        data = handle.read()
        if data and not data.endswith(b"\n"):
            handle.truncate(data.rfind(b"\n") + 1)


class Judging:
    """Fills the judged metrics of scored samples for one run (see the module docstring)."""

    def __init__(
        self,
        judge: Judge | None,
        task: Task[Any],
        path: Path,
        cache: dict[str, JudgmentRecord],
    ) -> None:
        self.judge = judge
        self.task = task
        self.path = path
        self._cache = cache
        self._slots = request_slots(judge.model, judge.concurrency) if (
            judge is not None and judge.model is not None) else contextlib.nullcontext()
        self._in_flight: dict[str, asyncio.Task[JudgmentRecord]] = {}
        self._log: RecordAppender | None = None
        self.asked = 0
        """Requests sent to the judge by this run."""

    async def apply(self, outcome: Outcome) -> Outcome:
        """``outcome`` with the verdicts of the questions it asked the judge: its judged
        ``metrics``, and ``not_computed`` or ``judge_failures`` where there is none."""
        if self.judge is None and not self.task.judge_metrics:
            return outcome  # nothing to judge, nothing to mark as not judged
        requests = outcome.judge_requests
        metrics = dict(outcome.metrics)
        if self.judge is None:
            judged = {request.metric for request in requests} | set(metrics)
            not_computed = dict(outcome.not_computed)
            for metric in self.task.judge_metrics:
                if metric in judged:
                    metrics[metric] = None
                    not_computed[metric] = NO_JUDGE
            return outcome.model_copy(update={"metrics": metrics, "not_computed": not_computed})
        verdicts = await asyncio.gather(*(self._verdict(outcome.id, r) for r in requests))
        by_metric: dict[str, list[float | JudgeFailure]] = {}
        for request, verdict in zip(requests, verdicts):
            by_metric.setdefault(request.metric, []).append(verdict)
        failures: dict[str, JudgeFailure] = {}
        for metric, values in by_metric.items():
            failed = [value for value in values if isinstance(value, JudgeFailure)]
            scores = [value for value in values if not isinstance(value, JudgeFailure)]
            if failed:
                failures[metric] = failed[0]
                metrics[metric] = None
            else:
                metrics[metric] = sum(scores) / len(scores)
        return outcome.model_copy(update={"metrics": metrics, "judge_failures": failures})

    async def _verdict(self, sample_id: str, request: JudgeRequest) -> float | JudgeFailure:
        assert self.judge is not None
        key = judgment_key(self.judge.spec, request.messages, request.temperature,
                           request.response_format)
        record = self._cache.get(key)
        if record is None or record.reply is None:
            asking = self._in_flight.get(key)
            if asking is None:  # identical requests in flight are sent once
                asking = asyncio.ensure_future(self._ask(sample_id, request, key))
                self._in_flight[key] = asking
                asking.add_done_callback(lambda _: self._in_flight.pop(key, None))
            record = await asyncio.shield(asking)
        if record.reply is None:
            return JudgeFailure(kind="error", detail=record.error or "no reply")
        if request.then is not None:
            return await self._verdict(sample_id, request.then(record.reply))
        score = request.parse(record.reply)
        if score is None:
            shown = " ".join(record.reply.split())[-REPLY_SHOWN:]
            return JudgeFailure(kind="unparsed", detail=f"no verdict in the reply ...{shown!r}")
        return score

    async def _ask(self, sample_id: str, request: JudgeRequest, key: str) -> JudgmentRecord:
        """Send one request to the judge and record the outcome."""
        assert self.judge is not None
        asked = JudgmentRecord(
            key=key,
            sample_id=sample_id,
            metric=request.metric,
            judge=self.judge.spec,
            asked_at=now(),
        )
        if self.judge.model is None:  # cached verdicts only: nothing to ask, nothing to record
            return asked.model_copy(
                update={"error": "no cached verdict; pass --judge to ask the judge"}
            )
        generation_request = GenerationRequest(
            sample_id=f"{sample_id} (judge: {request.metric})",
            messages=request.messages,
            temperature=request.temperature,
            response_format=request.response_format,
        )
        async with self._slots:
            self.asked += 1
            try:
                reply = await self.judge.model.generate(generation_request)
            except ModelError as error:
                timing = Timing(attempts=error.attempts, total_s=error.total_s)
                outcome = {"error": str(error), "timing": timing}
            except ModelUnavailable as error:
                raise _as_judge_error(error) from None
            else:
                outcome = {
                    "reply": reply.text,
                    "score": request.parse(reply.text),
                    "timing": Timing(
                        attempts=reply.attempts,
                        total_s=reply.total_s or reply.latency_s,
                        last_attempt_s=reply.latency_s,
                    ),
                    "usage": Usage.reported(reply.usage),
                }
        record = JudgmentRecord.model_validate(
            {**asked.model_dump(), **outcome, "created_at": now()}
        )
        if self._log is None:
            _drop_cut_line(self.path)
            self._log = RecordAppender(self.path)
        self._log.append(record)
        if record.reply is not None:
            self._cache[key] = record
        return record

    async def aclose(self) -> None:
        """Stop the requests still in flight, close the judgments file and the judge's
        connections."""
        asking = list(self._in_flight.values())
        for task in asking:
            task.cancel()
        await asyncio.gather(*asking, return_exceptions=True)
        if self._log is not None:
            self._log.close()
            self._log = None
        if self.judge is not None and self.judge.model is not None:
            await self.judge.model.aclose()
