"""What a benchmark task is: samples to send to a model, and how to score the answers.

A task module defines a :class:`Task` subclass and registers it with ``@register_task``
(see :mod:`svgeval.tasks`). The runner asks the task for its :class:`Sample` list, sends each
sample's ``messages`` to the model, and hands the response text to :meth:`Task.score`, which
returns a :class:`Score`. :meth:`Task.aggregate` turns the per-sample records into the flat
``"<group>/<metric>"`` numbers of ``results.json`` (see :mod:`svgeval.tasks.aggregate`).

A task declares its ``--set`` options as a dataclass (:attr:`Task.Options`, see
:mod:`svgeval.tasks.options`) and the registered metric behind each number it reports
(:attr:`Task.metrics`), so the direction of every number is declared once, on the metric.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from svgeval.messages import Message as Message  # noqa: PLC0414 (re-exported)
from svgeval.metrics.registry import METRICS, MetricUnavailable
from svgeval.svg.extract import Extraction
from svgeval.svg.isolation import Renderer, RenderOutcome
from svgeval.svg.render import FloatImage, RenderSpec
from svgeval.tasks.aggregate import Aggregate, mean_per_group
from svgeval.tasks.judge import JudgeRequest
from svgeval.tasks.options import NoOptions, parse_options
from svgeval.tasks.tables import PaperTable


@dataclass(frozen=True)
class Sample:
    """One item of a benchmark.

    ``group`` is what results are reported by (an SVGEditBench subtask, an SVGenius tier).
    ``input_svg`` is what the ``identity`` model answers (None when the task has no input SVG)
    and ``reference`` is the complete response the ``oracle`` model gives. ``target`` holds
    whatever the scorer needs (answer SVG, correct option, ...); it must be JSON-serialisable.
    ``expected`` is the short correct answer, where there is one (a multiple-choice letter),
    copied into the sample's record.
    """

    id: str
    group: str
    messages: list[Message]
    reference: str
    input_svg: str | None = None
    target: Mapping[str, Any] = field(default_factory=dict)
    expected: str | None = None


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
    def of_render(cls, outcome: RenderOutcome, kind: FailureKind = FailureKind.RENDER) -> Failure:
        """The failure of a render that produced no image (``kind`` REFERENCE for references)."""
        if outcome.failure is None:
            return cls(kind=kind, reason="unknown")
        return cls(kind=kind, reason=outcome.failure.tag, detail=outcome.failure.message)


@dataclass
class Score:
    """The outcome of scoring one response.

    ``failure`` says why the response could not be used (None when it could). ``metrics`` maps
    metric names to values; a metric that could not be computed is None (never a stand-in 0)
    and ``not_computed`` says why. ``extraction_rule`` names the rule that matched, or the one
    that was tried when extraction failed. ``judge_requests`` are the questions for the judge
    model whose parsed answers the runner stores under their metric keys (see
    :mod:`svgeval.tasks.judge`).
    """

    metrics: dict[str, float | None] = field(default_factory=dict)
    extracted: str | None = None
    extraction_rule: str | None = None
    failure: Failure | None = None
    not_computed: dict[str, str] = field(default_factory=dict)
    judge_requests: list[JudgeRequest] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        """True when the response was used (no failure)."""
        return self.failure is None

    @classmethod
    def unextracted(cls, extraction: Extraction, metrics: dict[str, float | None]) -> Score:
        """The score of a response with no answer in it, carrying the failure values
        ``metrics`` and the rule that was tried."""
        return cls(
            metrics=metrics,
            extraction_rule=extraction.rule,
            failure=Failure(kind=FailureKind.EXTRACT, detail=extraction.error),
        )

    def add_metric(self, name: str, compute: Callable[[], float | None]) -> None:
        """Store ``compute()`` under ``name``; if the metric cannot run here (weights or a
        package missing), store None and the reason instead."""
        try:
            self.metrics[name] = compute()
        except MetricUnavailable as error:
            self.metrics[name] = None
            self.not_computed[name] = str(error)


@dataclass(frozen=True)
class BatchItem:
    """One sample in the batched metric stage.

    ``output_svg`` is what is drawn for the sample: the extracted answer, or a blank canvas for
    a failed one (:data:`BLANK_SVG`). ``in_paper_reading`` is False when the paper's protocol
    leaves the sample out (no answer could be extracted), so only the ``*_all`` reading gets
    its value.
    """

    sample: Sample
    output_svg: str
    in_paper_reading: bool


BLANK_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>'
"""An empty drawing: rendered on white it is a white canvas, what the released SVGenius code
draws for an output it cannot render."""


@dataclass(frozen=True)
class MetricContext:
    """What batched model metrics run with: the isolated renderer, batch size and device."""

    renderer: Renderer
    batch_size: int = 32
    device: str | None = None


def batch_values(
    scores: Sequence[Score], keys: Sequence[str], compute: Callable[[], Sequence[float | None]]
) -> Sequence[float | None]:
    """The values of one batched model metric, one per score; when the metric cannot run here
    (:class:`MetricUnavailable`), None for each and the reason under every key in ``keys``."""
    try:
        return compute()
    except MetricUnavailable as error:
        for score in scores:
            score.not_computed.update(dict.fromkeys(keys, str(error)))
        return [None] * len(scores)


def render_extracted(
    extraction: Extraction, renderer: Renderer, spec: RenderSpec
) -> tuple[Score, FloatImage | None]:
    """A score holding ``extraction``, and the render of its SVG: None, with the failure
    (nothing extracted, or the render failed) recorded on the score."""
    score = Score(extracted=extraction.svg, extraction_rule=extraction.rule)
    if extraction.svg is None:
        score.failure = Failure(kind=FailureKind.EXTRACT, detail=extraction.error)
        return score, None
    rendered = renderer.render(extraction.svg, spec)
    if rendered.image is None:
        score.failure = Failure.of_render(rendered)
    return score, rendered.image


def distribution_metrics(
    score: Score,
    key: str,
    metrics: Mapping[str, Callable[..., float]],
    references: Sequence[FloatImage],
    outputs: Sequence[FloatImage],
    **options: Any,
) -> None:
    """Set ``score.metrics[key.format(name)]`` for each set-level metric (FID, CLIP-FID) of
    ``references`` against ``outputs``: None under two pictures (a Gaussian needs two points),
    and the reason under ``not_computed`` when the metric cannot run here."""
    for name, metric in metrics.items():
        score.metrics[key.format(name)] = None
        if len(outputs) < 2:
            continue
        try:
            score.metrics[key.format(name)] = metric(references, outputs, **options)
        except MetricUnavailable as error:
            score.not_computed[key.format(name).rsplit("/", 1)[-1]] = str(error)


@dataclass(frozen=True)
class RecordedAnswer:
    """A sample of another run: the messages it was asked and the SVG it answered (None: the
    answer failed)."""

    prompt: list[Message]
    svg: str | None


@runtime_checkable
class ComparesWithRun(Protocol):
    """A task that compares its answers with those of another run of itself (SVGenius style
    transfer's ``--set reference_run=DIR``).

    Tasks never read run directories: before :meth:`Task.load`, whoever loads the samples
    (:func:`svgeval.runner.other_run.load_samples`) reads the run :meth:`compared_run` names,
    checks it is a run of this task, and hands its answers to :meth:`receive_answers`.
    """

    def compared_run(self) -> Path | None:
        """The run directory whose answers this task compares its own with (None: none)."""

    def receive_answers(self, answers: Mapping[str, RecordedAnswer]) -> None:
        """That run's answers by sample id (its first epoch)."""


@dataclass(frozen=True)
class TaskOptions:
    """Options every task accepts; ``extra`` carries the ``--set key=value`` pairs, which the
    task parses into its own :attr:`Task.Options` dataclass."""

    data: Path | None = None
    seed: int = 0
    tier: str = "all"
    extra: Mapping[str, str] = field(default_factory=dict)


class Task(ABC):
    """Base class of every benchmark task."""

    name: ClassVar[str]
    """Name used on the command line, e.g. ``svgeditbench``."""
    description: ClassVar[str]
    """One line for ``svgeval list tasks``."""
    suite: ClassVar[str] = ""
    """Display name of the benchmark suite the task belongs to, e.g. ``SVGenius``; ``svgeval
    list tasks`` groups tasks under it (empty: listed under ``other``)."""
    suite_source: ClassVar[str] = ""
    """The released code and data the suite follows, e.g. ``ZJU-REAL/SVGenius``."""
    preset: ClassVar[str] = ""
    """The registered metric preset of the released protocol the task reproduces, e.g.
    ``svgenius`` (:mod:`svgeval.metrics.presets`; the suite registers it)."""
    render_timeout_s: ClassVar[float | None] = None
    """The reproduced protocol's wall-clock limit of one render in seconds, which ``svgeval
    run`` uses unless ``--render-timeout`` is given (None: the renderer's default)."""
    version: ClassVar[str] = "1"
    """Bump when prompts or scoring change, so old and new numbers are never mixed."""
    metrics: ClassVar[Mapping[str, str]] = {}
    """Each reported metric key -> the registered metric it is a reading of (its direction,
    range and source), e.g. ``{"mse": "mse", "mse_all": "mse"}``."""
    Options: ClassVar[type[Any]] = NoOptions
    """The dataclass of this task's ``--set`` options (fields with defaults and help text)."""
    tiers: ClassVar[tuple[str, ...]] = ()
    """The difficulty tiers ``--tier`` accepts besides ``all`` (none: the task has no tiers)."""
    batched_metrics: ClassVar[tuple[str, ...]] = ()
    """Metric keys computed after scoring, in batches, by :meth:`batch_score` (model-based
    metrics that load a network once and run it on many samples at a time)."""
    judge_metrics: ClassVar[tuple[str, ...]] = ()
    """The metric keys a judge model scores (:attr:`Score.judge_requests`); a run without
    ``--judge`` records them as not computed, on every sample."""
    judge_sees_images: ClassVar[bool] = False
    """True when the task's judge requests carry images (a text-only judge is refused)."""
    paper_table: ClassVar[PaperTable | None] = None
    """The layout of the paper's table of this task, for ``svgeval leaderboard`` (None: the
    flat layout); see :mod:`svgeval.tasks.tables`."""

    def __init__(self, options: TaskOptions) -> None:
        if options.tier != "all" and options.tier not in self.tiers:
            if not self.tiers:
                raise ValueError(f"{self.name} has no difficulty tiers; leave out --tier")
            raise ValueError(
                f"unknown tier {options.tier!r} for {self.name}; "
                f"choose {', '.join(self.tiers)} or all"
            )
        self.options = options
        self.settings = parse_options(self.Options, options.extra, self.name)

    @classmethod
    def higher_is_better(cls, key: str) -> bool | None:
        """The direction of a reported metric key, from its registered metric (None: unknown)."""
        metric = cls.metrics.get(key)
        return METRICS.get(metric).higher_is_better if metric is not None else None

    @abstractmethod
    def load(self) -> Sequence[Sample]:
        """Return the samples, in a stable order: a list, or samples read when used
        (:class:`~svgeval.tasks.lazy.LazySamples`) where the release is many small files."""

    @abstractmethod
    def score(self, sample: Sample, response: str, renderer: Renderer) -> Score:
        """Score one model response; must not raise for bad responses (return a failure)."""

    def batch_score(self, items: Sequence[BatchItem], context: MetricContext) -> list[Score]:
        """The :attr:`batched_metrics` of a batch: one :class:`Score` per item, holding its
        metric values and ``not_computed`` reasons (none for a task without batched metrics)."""
        return [Score() for _ in items]

    set_metrics: ClassVar[tuple[str, ...]] = ()
    """Metrics of a whole group rather than of a sample (FID), computed by :meth:`set_score`
    after the batched stage; they appear in ``results.json`` as ``<group>/<metric>``."""

    def set_score(
        self, groups: Mapping[str, Sequence[BatchItem]], context: MetricContext
    ) -> Score:
        """The :attr:`set_metrics` of each group (keys ``<group>/<metric>``) and why any could
        not be computed; empty for a task without set-level metrics."""
        return Score()

    def aggregate(self, records: Sequence[Mapping[str, Any]]) -> Aggregate:
        """Per-group means of the per-sample metrics (see :func:`mean_per_group`).

        ``records`` are the lines of ``samples.jsonl``, including failed samples: the runner
        scores an empty response for a failed model call, so the task's own failure values
        apply to it too.
        """
        return mean_per_group(records)

