"""The typed records of a run directory, checked whenever they are read back.

``config.json`` is a :class:`~svgeval.runner.run_config.RunConfig`, a line of
``responses.jsonl`` a :class:`ResponseRecord`,
of ``samples.jsonl`` a :class:`SampleRecord`, of ``judgments.jsonl`` a :class:`JudgmentRecord`,
``results.json`` a :class:`Results`, ``servers.json`` a :class:`ServersRecord`. Every record
carries :data:`SCHEMA_VERSION`; a reader (``--resume``, ``svgeval score``, reports) refuses a
record of another schema, or a corrupt one, with one line naming the file and the line (see
:mod:`svgeval.runner.run_dir`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from svgeval.messages import Message
from svgeval.models.adaptive import Learned
from svgeval.runner.safe_text import StorableText
from svgeval.tasks.aggregate import GroupCounts
from svgeval.tasks.outcome import Failure, JudgeFailureKind, Outcome

SCHEMA_VERSION = 1
"""Bump when a record changes shape; readers refuse records of another version."""


_LAST_SECOND: tuple[int, str] = (-1, "")
"""The last second :func:`now` formatted, and its text (a run stamps many records within
one second, and formatting the time for each would take the event loop's time)."""


def now() -> str:
    """The current UTC time, ISO 8601 with seconds, for record timestamps."""
    global _LAST_SECOND  # one tuple, replaced whole (atomic for threads)
    second = int(time.time())
    if _LAST_SECOND[0] != second:
        stamp = datetime.fromtimestamp(second, timezone.utc).isoformat(timespec="seconds")
        _LAST_SECOND = (second, stamp)
    return _LAST_SECOND[1]


RecordKey = tuple[str, int]
"""What a response or sample record is the record of: its sample id and its epoch."""


class OmitsDefaults(BaseModel):
    """A model whose :attr:`omitted_at_default` fields are left out of its JSON at default."""

    omitted_at_default: ClassVar[tuple[str, ...]] = ()
    _defaults_omitted: ClassVar[tuple[tuple[str, Any], ...]] = ()
    """Each of :attr:`omitted_at_default` with its default, read once per class (reading
    ``model_fields`` at every dump made each record slower to dump)."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._defaults_omitted = tuple(
            (name, cls.model_fields[name].get_default(call_default_factory=True))
            for name in cls.omitted_at_default)

    @model_serializer(mode="wrap")
    def _omit_defaults(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name, default in self._defaults_omitted:
            if getattr(self, name) == default:
                data.pop(name, None)
        return data


class Record(StorableText, OmitsDefaults):
    """Base of every record: a schema version, extra keys refused, storable text (safe_text)."""

    model_config = ConfigDict(extra="forbid")
    omitted_at_default: ClassVar[tuple[str, ...]] = ("replaced_surrogates",)

    schema_version: Literal[1] = 1
    """The record layout version (:data:`SCHEMA_VERSION`)."""


class Usage(BaseModel):
    """Token counts the server reported (a count it left out is 0).

    A record holds None instead where the server reported no usage at all (records written
    before svgeval told the two apart hold zeros there)."""

    model_config = ConfigDict(extra="ignore")

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @classmethod
    def reported(cls, usage: Mapping[str, Any]) -> Usage | None:
        """The counts of a backend's :attr:`~svgeval.models.base.Generation.usage`; None when
        it reported none (a server that sends no usage, an offline baseline)."""
        return cls.model_validate(usage) if usage else None


class Timing(BaseModel):
    """How long a model answer took."""

    model_config = ConfigDict(extra="forbid")

    attempts: int = 1
    """HTTP attempts made, the successful one included."""
    total_s: float = 0.0
    """From the first attempt's start to the answer, backoff waits included."""
    last_attempt_s: float = 0.0
    """The last attempt alone."""


class ResponseRecord(Record):
    """A line of ``responses.jsonl``: a model's raw answer, the run's cache."""

    omitted_at_default = (*Record.omitted_at_default, "epoch")

    id: str
    """Sample id."""
    epoch: int = 1
    """Which of the ``--epochs`` answers to the prompt this is (left out of the file when 1)."""
    prompt_hash: str
    """Hash of the messages sent; a cached answer is reused only for the same prompt."""
    response: str | None = None
    """The answer text (None when the request failed)."""
    error: str | None = None
    """Why the request failed for good (such answers are not cached)."""
    usage: Usage | None = None
    """Token counts (None: the server reported none)."""
    timing: Timing = Field(default_factory=Timing)
    """Attempts and times."""
    finish_reason: str | None = None
    """The server's reason (``stop``; ``length`` when ``--max-tokens`` cut the answer off)."""
    created_at: str = Field(default_factory=now)
    """When the answer arrived."""

    @property
    def key(self) -> RecordKey:
        return (self.id, self.epoch)


class JudgmentRecord(Record):
    """A line of ``judgments.jsonl``: one reply of the judge model, the judge's cache.

    A reply is reused for the same judge, messages and temperature (``key``): ``--resume`` and
    ``score`` never ask twice. A failed request is recorded with its ``error``, asked again.
    """

    key: str
    """SHA-256 of the judge spec, the messages and the temperature."""
    sample_id: str
    """The sample the question was about."""
    metric: str
    """The metric key the verdict is stored under."""
    judge: str
    """The judge's model spec."""
    reply: str | None = None
    """The judge's reply (None when the request failed)."""
    score: float | None = None
    """The verdict parsed from the reply when it arrived (None: none found, or no reply)."""
    error: str | None = None
    """Why the request failed for good."""
    timing: Timing = Field(default_factory=Timing)
    """Attempts and times."""
    usage: Usage | None = None
    """Token counts (None: the judge's server reported none)."""
    asked_at: str
    """When the request was sent."""
    created_at: str = Field(default_factory=now)
    """When the reply (or the failure) arrived."""


class SampleRecord(Outcome, Record):
    """A line of ``samples.jsonl``: a scored answer's :class:`~svgeval.tasks.outcome.Outcome`
    (sample, metrics, failure, what was extracted) and the conversation that produced it."""

    model_config = ConfigDict(extra="forbid")
    omitted_at_default = (*Record.omitted_at_default, "epoch")

    prompt: list[Message]
    """The chat messages sent."""
    prompt_hash: str
    """Hash of ``prompt``."""
    expected: str | None = None
    """The short correct answer where the task has one (a multiple-choice letter)."""
    response: str | None = None
    """The raw answer."""
    usage: Usage | None = None
    """Token counts of the answer (None: the server reported none)."""
    timing: Timing = Field(default_factory=Timing)
    """Attempts and times of the answer."""
    finish_reason: str | None = None
    """The server's finish reason."""
    created_at: str = Field(default_factory=now)
    """When the sample was scored."""

    @classmethod
    def answered(
        cls,
        outcome: Outcome,
        answer: ResponseRecord,
        prompt: list[Message],
        expected: str | None,
        failure: Failure | None,
    ) -> SampleRecord:
        """The record of ``outcome``, the scored ``answer`` to ``prompt`` (its epoch, text,
        tokens and times), with ``failure`` in place of the outcome's (the runner's reading:
        a failed request, an answer cut off)."""
        return cls(
            id=outcome.id,
            epoch=answer.epoch,
            group=outcome.group,
            metrics=outcome.metrics,
            not_computed=outcome.not_computed,
            failure=failure,
            judge_failures=outcome.judge_failures,
            extracted=outcome.extracted,
            extraction_rule=outcome.extraction_rule,
            prompt=prompt,
            prompt_hash=answer.prompt_hash,
            expected=expected,
            response=answer.response,
            usage=answer.usage,
            timing=answer.timing,
            finish_reason=answer.finish_reason,
            replaced_surrogates=answer.replaced_surrogates,
        )

    @property
    def key(self) -> RecordKey:
        return (self.id, self.epoch)

    @property
    def judge_error(self) -> bool:
        """True when a judge request failed for good (``--resume`` judges the sample again)."""
        return any(failure.kind == "error" for failure in self.judge_failures.values())

    @property
    def model_failed(self) -> bool:
        """True when the model was never answered (``model_error``): no request succeeded."""
        return self.failure is not None and self.failure.kind == "model_error"

    @property
    def finished(self) -> bool:
        """False when ``--resume`` does the sample again: its request or a judge's failed."""
        return not self.model_failed and not self.judge_error


class MetricSummary(BaseModel):
    """The uncertainty of one mean in ``results.json``."""

    model_config = ConfigDict(extra="forbid")

    n: int
    """Values averaged."""
    stderr: float | None
    """Standard error of the mean (None for fewer than two values)."""
    ci95: tuple[float, float] | None
    """Percentile bootstrap 95% interval of the mean."""


class UsageTotals(BaseModel):
    """Token and time totals of the answers scored in a run."""

    model_config = ConfigDict(extra="forbid")

    prompt_tokens: int = 0
    """Prompt tokens of the answers whose server reported them (:attr:`n_reported`)."""
    completion_tokens: int = 0
    """Completion tokens of the same answers."""
    n_reported: int | None = None
    """Scored answers whose server reported token usage: 0 when none did, so the totals above
    say nothing (None in files written before svgeval counted them)."""
    generation_s: float = 0.0
    """Sum of the answers' total times (several run concurrently)."""
    wall_s: float = 0.0
    """Wall time of this invocation of the run."""
    completion_tokens_per_s: float | None = None
    """Completion tokens per wall-clock second of this invocation (None without generation)."""
    attempts: int = 0
    """HTTP attempts made for the scored answers."""


class EpochResults(BaseModel):
    """``epochs`` of ``results.json`` for several epochs (:mod:`svgeval.runner.epochs`)."""

    model_config = ConfigDict(extra="forbid")

    k: int
    """Epochs asked for (``--epochs``)."""
    metrics: dict[str, dict[str, float | None]]
    """Epoch (``"1"``...) -> that epoch's ``"<group>/<metric>"`` numbers."""
    std: dict[str, float | None]
    """``"<group>/<metric>"`` -> sample standard deviation over the epochs (None for one)."""
    pass_at_k: dict[str, float] = Field(default_factory=dict)
    """``"<group>/<metric>:pass@<k>"`` -> unbiased pass@k in percent, for pass/fail metrics."""


class Results(Record):
    """``results.json``: the aggregate of a run."""

    omitted_at_default = (*Record.omitted_at_default, "epochs", "n_dataset",
                          "judge_failure_kinds", "judge_report")

    created_at: str = Field(default_factory=now)
    task: str
    task_version: str
    model: str
    judge: str | None = None
    """The judge model's spec, for tasks scored by one."""
    n: int
    """Samples with a record."""
    n_expected: int
    """Samples the run asked for."""
    n_dataset: int | None = None
    """Samples of the whole dataset (before ``--limit`` and ``--shard``; None in files written
    before svgeval recorded it): a run that asked for fewer (:attr:`subset`) is part of it."""
    n_valid: int
    """Samples whose output was used."""
    n_missing: int = 0
    """Samples with no record yet (``--resume`` completes them): ``n_missing == 0`` when every
    sample asked for has a record."""
    n_answered: int | None = None
    """Samples whose model answered (any answer, valid or not; not ``model_error``):
    ``n_answered == n_expected`` when every sample was answered. None in files written before
    svgeval counted it."""
    complete: bool
    """True when every sample asked for has a record and every one was answered: the numbers
    are final, and ``--resume`` has nothing left to ask."""
    metrics: dict[str, float | None]
    """``"<group>/<metric>"`` -> mean."""
    stats: dict[str, MetricSummary] = Field(default_factory=dict)
    """``"<group>/<metric>"`` -> sample count, standard error, bootstrap interval."""
    counts: dict[str, GroupCounts]
    """Per group: n, n_valid, n_invalid, n_reference, failures by tag and, for judged tasks,
    judge failures by metric."""
    judge_failure_kinds: dict[JudgeFailureKind, int] | None = None
    """For a run scored by a judge: judged metrics the judge gave no verdict for, over every
    record (each once, whatever the groups of ``counts`` that pool others), by kind: ``error``
    (the request failed for good; ``--resume`` asks again), ``unparsed`` (a reply without a
    verdict). Left out without a judge, and None in files written before svgeval counted them."""
    not_computed: dict[str, str] = Field(default_factory=dict)
    """Metrics that could not run, with the reason."""
    model_report: dict[str, Any] = Field(default_factory=dict)
    """Facts from the model backend (e.g. the ids a replay file lacked, how far an HTTP
    backend lowered its requests in flight)."""
    judge_report: dict[str, Any] = {}
    """The same facts from the judge's backend, when it has any (left out of the file when
    empty)."""
    usage: UsageTotals = Field(default_factory=UsageTotals)
    """Token and time totals."""
    epochs: EpochResults | None = None
    """Per-epoch numbers and pass@k of a run of several epochs (then ``metrics`` holds the mean
    over epochs and ``stats`` its spread); left out for one epoch."""
    svgeval_version: str

    @property
    def subset(self) -> str | None:
        """``12 of 72 samples`` for a run of part of its data (``--limit``, one ``--shard``),
        whose numbers are ranked only against runs of as many samples; None otherwise."""
        asked = self.n_expected // (self.epochs.k if self.epochs is not None else 1)
        if self.n_dataset is None or asked >= self.n_dataset:
            return None
        return f"{asked} of {self.n_dataset} samples"


class ServersRecord(Record):
    """``servers.json``: what the run learned of each HTTP server its model or judge asked
    (how many requests it took at once), by the server's base URL with its credentials hidden;
    ``--resume`` and ``svgeval score`` (and its ``--judge``) start from it."""

    servers: dict[str, Learned] = Field(default_factory=dict)
