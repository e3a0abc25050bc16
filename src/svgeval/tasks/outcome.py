"""What scoring one answer gives, typed from :meth:`Task.score` to :meth:`Task.aggregate`.

:class:`Outcome` is the one record of a scored answer that crosses the seam between a task and
the runner: :meth:`~svgeval.tasks.base.Task.score` returns it, the runner's
:class:`~svgeval.runner.records.SampleRecord` (a line of ``samples.jsonl``) extends it with the
conversation (prompt, answer, tokens, times), and :meth:`~svgeval.tasks.base.Task.aggregate`
reads the outcomes back, whatever else the records hold. Its fields:

* ``id``, ``group``, ``epoch``: the sample, the group it is reported under, and which of the
  ``--epochs`` answers to it this is (the runner sets the epoch);
* ``metrics``: metric key -> value; a metric that could not be computed here is None (never a
  stand-in 0) and ``not_computed`` says why;
* ``failure``: why the answer could not be used (None: it was), a :class:`Failure` of a
  :class:`FailureKind`;
* ``judge_failures``: the judged metrics the judge gave no verdict for (:class:`JudgeFailure`);
* ``extracted``, ``extraction_rule``: what was read from the answer, and by which rule.

A task that needs a judge asks for it on the outcome (:meth:`Outcome.ask_judge`); the runner
replaces the questions by the verdicts before the record is written. :class:`MetricValues`, the
numbers alone, is what the batched and set-level metric stages return.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from svgeval.metrics.registry import MetricUnavailable
from svgeval.render.picture import RenderFailure
from svgeval.svg.extract import Extraction
from svgeval.tasks.judge import JudgeRequest


class FailureKind(str, Enum):
    """Why a sample has no valid output."""

    EXTRACT = "extract"
    """No answer could be read from the response (no SVG, no option letter)."""
    RENDER = "render"
    """The answer's SVG was refused by the sanitizer or did not render."""
    TRUNCATED = "truncated"
    """The answer was cut off by ``--max-tokens`` (the server's ``finish_reason`` was length)."""
    MODEL_ERROR = "model_error"
    """The request failed for good after its retries."""
    REFERENCE = "reference"
    """The dataset's own reference (answer, original) is broken: a data problem, not the model's."""
    SCORER_ERROR = "scorer_error"
    """svgeval's scorer raised: a bug to report."""


class Failure(BaseModel):
    """A sample's failure: its kind, a sub-reason (e.g. ``timeout``) and a human detail."""

    model_config = ConfigDict(frozen=True)

    kind: FailureKind
    """What went wrong."""
    reason: str | None = None
    """A short machine-readable sub-kind, e.g. ``timeout`` or ``rejected:script`` for renders."""
    detail: str | None = None
    """One line for people."""

    @property
    def tag(self) -> str:
        """The label failures are counted under, e.g. ``render:timeout`` or ``extract``."""
        return f"{self.kind.value}:{self.reason}" if self.reason else self.kind.value

    @property
    def is_models(self) -> bool:
        """True unless the dataset or svgeval is to blame."""
        return self.kind not in (FailureKind.REFERENCE, FailureKind.SCORER_ERROR)

    @classmethod
    def of_render(cls, failure: RenderFailure, kind: FailureKind = FailureKind.RENDER) -> Failure:
        """The failure of a render that produced no picture (``kind`` REFERENCE for references)."""
        return cls(kind=kind, reason=failure.tag, detail=failure.message)


JudgeFailureKind = Literal["unparsed", "error"]
"""Why the judge gave no verdict: see :attr:`JudgeFailure.kind`."""


class JudgeFailure(BaseModel):
    """Why a judged metric of a sample has no value."""

    model_config = ConfigDict(extra="forbid")

    kind: JudgeFailureKind
    """``unparsed``: the judge replied without a verdict of the expected form (cached, counted,
    never asked again); ``error``: the request failed for good (asked again on --resume)."""
    detail: str
    """One line for people (the start of the reply, or the error)."""


class MetricValues(BaseModel):
    """Values of some metrics, and why the others could not be computed here."""

    metrics: dict[str, float | None] = Field(default_factory=dict)
    """Metric key -> value; None where the metric could not be computed (never a stand-in 0)."""
    not_computed: dict[str, str] = Field(default_factory=dict)
    """Metric key -> why it could not run here (weights or a package missing, no judge)."""

    def add_metric(self, name: str, compute: Callable[[], float | None]) -> None:
        """Store ``compute()`` under ``name``; if the metric cannot run here (weights or a
        package missing), store None and the reason instead."""
        try:
            self.metrics[name] = compute()
        except MetricUnavailable as error:
            self.metrics[name] = None
            self.not_computed[name] = str(error)


class SampleId(Protocol):
    """What an outcome reads of its sample (a :class:`~svgeval.tasks.base.Sample` is one): its
    id and the group it is reported under. A protocol, so that this module, which
    :mod:`svgeval.tasks.base` builds on, does not import it."""

    @property
    def id(self) -> str: ...

    @property
    def group(self) -> str: ...


class Outcome(MetricValues):
    """The outcome of scoring one answer to one sample (see the module docstring)."""

    id: str
    """Sample id."""
    group: str
    """Group the sample is reported under (subtask, tier)."""
    epoch: int = 1
    """Which of the ``--epochs`` answers to the prompt this is."""
    failure: Failure | None = None
    """Why the answer has no valid output (None: valid)."""
    judge_failures: dict[str, JudgeFailure] = Field(default_factory=dict)
    """Judged metric -> why the judge gave it no value (the metric is None)."""
    extracted: str | None = None
    """What was taken from the answer (SVG code, an option letter)."""
    extraction_rule: str | None = None
    """The rule that matched, or the one tried when extraction failed."""

    _judge_requests: list[JudgeRequest] = PrivateAttr(default_factory=list)

    @classmethod
    def of(
        cls,
        sample: SampleId,
        metrics: dict[str, float | None] | None = None,
        *,
        failure: Failure | None = None,
        extracted: str | None = None,
        extraction_rule: str | None = None,
    ) -> Outcome:
        """The outcome of an answer to ``sample``, holding ``metrics`` itself (not a copy: a
        scorer may go on filling the dict it passed)."""
        outcome = cls(id=sample.id, group=sample.group, failure=failure, extracted=extracted,
                      extraction_rule=extraction_rule)
        if metrics is not None:
            outcome.metrics = metrics
        return outcome

    @classmethod
    def unextracted(
        cls, sample: SampleId, extraction: Extraction, metrics: dict[str, float | None]
    ) -> Outcome:
        """The outcome of an answer with nothing to extract from it, carrying the failure
        values ``metrics`` and the rule that was tried."""
        failure = Failure(kind=FailureKind.EXTRACT, detail=extraction.error)
        return cls.of(sample, metrics, failure=failure, extraction_rule=extraction.rule)

    @property
    def valid(self) -> bool:
        """True when the answer was used (no failure)."""
        return self.failure is None

    def ask_judge(self, request: JudgeRequest) -> None:
        """Have the judge model answer ``request``; the runner stores its verdict under
        ``request.metric`` (see :mod:`svgeval.tasks.judge`)."""
        self._judge_requests.append(request)

    @property
    def judge_requests(self) -> list[JudgeRequest]:
        """The questions for the judge that scoring asked (the runner answers them)."""
        return list(self._judge_requests)
