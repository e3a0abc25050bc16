"""What a benchmark task is: samples to send to a model, and how to score the answers.

A task module defines a :class:`Task` subclass and registers it with ``@register_task``
(see :mod:`svgeval.tasks`). The runner asks the task for its :class:`Sample` list, sends each
sample's ``messages`` to the model, and hands the response text to :meth:`Task.score`, which
returns the answer's :class:`~svgeval.tasks.outcome.Outcome`. :meth:`Task.aggregate` turns the
outcomes into the flat ``"<group>/<metric>"`` numbers of ``results.json`` (see
:mod:`svgeval.tasks.aggregate`).

A task is generic in the target of its samples (what its scorer reads, e.g. the answer SVG:
``Task[EditTarget]`` scores ``Sample[EditTarget]``), so ``sample.target.answer_svg`` is checked
by mypy. It declares its ``--set`` options as a dataclass (:attr:`Task.Options`, see
:mod:`svgeval.tasks.options`) and the registered metric behind each number it reports
(:attr:`Task.metrics`), so the direction of every number is declared once, on the metric.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict
from typing_extensions import TypeVar

from svgeval.messages import Message
from svgeval.metrics.model_settings import ModelSettings
from svgeval.metrics.registry import METRICS, MetricUnavailable
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage, RenderFailure
from svgeval.run_request import DEFAULTS
from svgeval.svg.extract import Extraction
from svgeval.tasks.aggregate import Aggregate, mean_per_group
from svgeval.tasks.builtin import builtin_data, builtin_sample, is_builtin
from svgeval.tasks.download import DataUnavailable
from svgeval.tasks.options import InvalidOption, NoOptions, parse_options
from svgeval.tasks.outcome import Failure, FailureKind, MetricValues, Outcome
from svgeval.tasks.tables import PaperTable

TargetT = TypeVar("TargetT", default=Any)
"""What a task's scorer reads of a sample (its suite's target type)."""


@dataclass(frozen=True)
class Sample(Generic[TargetT]):
    """One item of a benchmark.

    ``group`` is what results are reported by (an SVGEditBench subtask, an SVGenius tier).
    ``input_svg`` is what the ``identity`` model answers (None when the task has no input SVG)
    and ``reference`` is the complete response the ``oracle`` model gives. ``target`` holds what
    the scorer needs (answer SVG, correct option, ...), of the suite's own type: a
    :class:`Target` (or a frozen dataclass) whose fields are JSON values, hashed into the run's
    identity (:func:`target_json`). ``expected`` is the short correct answer, where there is one (a
    multiple-choice letter), copied into the sample's record.
    """

    id: str
    group: str
    messages: list[Message]
    reference: str
    input_svg: str | None = None
    target: TargetT = field(kw_only=True)
    expected: str | None = None


class Target(BaseModel):
    """Base of a suite's sample target: frozen, its fields JSON values (what the scorer reads).

    The dataset hash reads a target as the fields it was built with (an optional field left out
    is left out of the hash, as a key missing from a mapping was)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def target_json(target: object) -> Any:
    """A sample's target as the JSON value hashed into the dataset hash: a pydantic model's
    fields as set when it was built, a dataclass's fields, a mapping as a dict, no target as
    ``{}`` (so a target reads the same as the mapping it replaced)."""
    if target is None:
        return {}
    if isinstance(target, BaseModel):
        return target.model_dump(exclude_unset=True)
    if dataclasses.is_dataclass(target) and not isinstance(target, type):
        return dataclasses.asdict(target)
    if isinstance(target, Mapping):
        return dict(target)
    return target


@dataclass(frozen=True)
class BatchItem(Generic[TargetT]):
    """One sample in the batched metric stage.

    ``output_svg`` is what is drawn for the sample: the extracted answer, or None for a failed
    one (nothing extracted, or its render failed), which the task compares as its stand-in
    picture (:attr:`~svgeval.tasks.common.drawing.Drawing.failed`). ``in_paper_reading`` is
    False when the paper's protocol leaves the sample out (no answer could be extracted), so
    only the ``*_all`` reading gets its value.
    """

    sample: Sample[TargetT]
    output_svg: str | None
    in_paper_reading: bool


@dataclass(frozen=True)
class MetricContext:
    """What batched model metrics run with: the isolated renderer, batch size, device, and the
    run's precision, preprocessing and local weights (:class:`ModelSettings`: ``--precision``,
    ``--preprocess``, ``--model-path``), which a task hands to every model metric it calls
    (:meth:`keywords`)."""

    renderer: Renderer
    batch_size: int = 8
    device: str | None = None
    model_settings: ModelSettings = field(default_factory=ModelSettings)

    def keywords(self) -> dict[str, Any]:
        """The keyword arguments every model metric takes from the context: ``batch_size``,
        ``device`` and ``model_settings``."""
        return {"batch_size": self.batch_size, "device": self.device,
                "model_settings": self.model_settings}


def batch_values(
    values: Sequence[MetricValues], keys: Sequence[str],
    compute: Callable[[], Sequence[float | None]],
) -> Sequence[float | None]:
    """The values of one batched model metric, one per item of ``values``; when the metric
    cannot run here (:class:`MetricUnavailable`), None for each and the reason under every key
    in ``keys``."""
    try:
        return compute()
    except MetricUnavailable as error:
        for held in values:
            held.not_computed.update(dict.fromkeys(keys, str(error)))
        return [None] * len(values)


def render_extracted(
    sample: Sample[Any], extraction: Extraction, renderer: Renderer, spec: RenderSpec
) -> tuple[Outcome, FloatImage | None]:
    """An outcome holding ``extraction``, and the render of its SVG: None, with the failure
    (nothing extracted, or the render failed) recorded on the outcome."""
    outcome = Outcome.of(sample, extracted=extraction.svg, extraction_rule=extraction.rule)
    if extraction.svg is None:
        outcome.failure = Failure(kind=FailureKind.EXTRACT, detail=extraction.error)
        return outcome, None
    rendered = renderer.render(extraction.svg, spec)
    if isinstance(rendered, RenderFailure):
        outcome.failure = Failure.of_render(rendered)
        return outcome, None
    return outcome, rendered.floats


def distribution_metrics(
    values: MetricValues,
    key: str,
    metrics: Mapping[str, Callable[..., float]],
    references: Sequence[NDArray[np.generic]],
    outputs: Sequence[NDArray[np.generic]],
    **options: Any,
) -> None:
    """Set ``values.metrics[key.format(name)]`` for each set-level metric (FID, CLIP-FID) of
    ``references`` against ``outputs``: None under two pictures (a Gaussian needs two points),
    and the reason under ``not_computed`` when the metric cannot run here."""
    for name, metric in metrics.items():
        values.metrics[key.format(name)] = None
        if len(outputs) < 2:
            continue
        try:
            values.metrics[key.format(name)] = metric(references, outputs, **options)
        except MetricUnavailable as error:
            values.not_computed[key.format(name).rsplit("/", 1)[-1]] = str(error)


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
class CommonOptions:
    """Options every task accepts; ``extra`` carries the ``--set key=value`` pairs, which the
    task parses into its own :attr:`Task.Options` dataclass."""

    data: Path | None = DEFAULTS.data
    seed: int = DEFAULTS.seed
    tier: str = DEFAULTS.tier
    extra: Mapping[str, str] = field(default_factory=dict)
    model_paths: Mapping[str, str] = field(default_factory=dict)
    """Local weights by metric (the run's ``--model-path``), for what a task loads while it
    scores one sample (a tokenizer's token counts); the batched metrics have them in their
    :class:`MetricContext`."""

    def model_settings(self) -> ModelSettings:
        """The settings of what a task loads while it scores one sample: :attr:`model_paths`."""
        return ModelSettings(model_paths=self.model_paths)


class Task(ABC, Generic[TargetT]):
    """Base class of every benchmark task: ``Task[Target]`` scores ``Sample[Target]``."""

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
    set_metrics: ClassVar[tuple[str, ...]] = ()
    """Metrics of a whole group rather than of a sample (FID), computed by :meth:`set_score`
    after the batched stage; they appear in ``results.json`` as ``<group>/<metric>``."""
    set_metrics_across_epochs: ClassVar[bool] = False
    """True when :meth:`set_score` reads every epoch's answers of a group together (the spread
    of the ``--epochs`` answers to one prompt: SGP-GenBench's diversity), computed once for
    the run; False: once per epoch, and ``K`` epochs report the mean over epochs."""
    judge_metrics: ClassVar[tuple[str, ...]] = ()
    """The metric keys a judge model scores (:meth:`Outcome.ask_judge`); a run without
    ``--judge`` records them as not computed, on every sample."""
    judge_sees_images: ClassVar[bool] = False
    """True when the task's judge requests carry images (a text-only judge is refused)."""
    aggregate_reads_extracted: ClassVar[bool] = False
    """True when :meth:`aggregate` reads each record's ``extracted`` answer (SGP-Bench's
    invariance consistency compares the answers themselves); otherwise the runner drops it from
    the records it holds for the results."""
    paper_table: ClassVar[PaperTable | None] = None
    """The layout of the paper's table of this task, for ``svgeval leaderboard`` (None: the
    flat layout); see :mod:`svgeval.tasks.tables`."""
    takes_input_svg: ClassVar[bool] = False
    """True when the samples carry an input SVG (editing, bug fixing): the ``identity``
    baseline answers it unchanged."""
    degenerate: ClassVar[Mapping[str, frozenset[str]]] = {}
    """Baseline (``identity``, ``empty``, ``hostile``) -> the metrics on which it may equal or
    beat the oracle on the built-in sample, each a metric key (``acc``) or a results key
    (``compression/mse``): a metric blind to what that baseline gets wrong (SVGenius style
    editing's ``acc``, which an unchanged answer meets) or one it games (LICA's compression
    ratio, best for an empty answer; :mod:`svgeval.audit` measures by how much). Everywhere
    else the oracle must be strictly better (the conformance test, ``svgeval demo TASK``)."""
    scores_text_only: ClassVar[bool] = False
    """True when the scorer reads the answer's text and never draws it, for some or all of the
    samples (LICA's bug fixing, UniSVG's understanding questions, as released): there a hostile
    SVG is a wrong answer, scored, not a refused render."""

    @classmethod
    def declared_degenerate(cls, baseline: str, key: str) -> bool:
        """Whether :attr:`degenerate` lets ``baseline`` equal or beat the oracle on the results
        key ``key`` (``<group>/<metric>``)."""
        allowed = cls.degenerate.get(baseline, frozenset())
        return key in allowed or key.rsplit("/", 1)[-1] in allowed
    vlmevalkit_dataset: ClassVar[str] = ""
    """VLMEvalKit's name of the dataset the task's samples come from (``SArena``, ``UniSVG``),
    whose prediction files ``replay:`` reads through :meth:`vlmevalkit_sample_id`; empty: none."""
    scores_many: ClassVar[bool] = False
    """True when :meth:`score_many` draws a whole batch's renders at once: the local executor
    then hands it batches of samples instead of one sample per thread (its thread wake-ups
    cost much of a run's own CPU, ``bench/RESULTS.md``)."""

    def __init__(self, common: CommonOptions, options: Any = None) -> None:
        """The task with the ``common`` options every task takes (``self.common``) and its own
        ``--set`` options (``self.options``, an instance of :attr:`Options`): ``options`` already
        typed (a recorded run's), or else parsed from the strings of ``common.extra``."""
        if common.tier != "all" and common.tier not in self.tiers:
            if not self.tiers:
                raise InvalidOption(f"{self.name} has no difficulty tiers; leave out --tier")
            raise InvalidOption(
                f"unknown tier {common.tier!r} for {self.name}; "
                f"choose {', '.join(self.tiers)} or all"
            )
        # ``--data builtin``: the built-in sample's files, recorded in the run as ``builtin``
        self.uses_builtin = is_builtin(common.data)
        if self.uses_builtin:
            sample = builtin_sample(self.name)
            if sample is None:
                raise DataUnavailable(f"{self.name} has no built-in sample; pass --data PATH")
            common = dataclasses.replace(common, data=builtin_data(sample))
        self.common = common
        self.options = (options if options is not None
                        else parse_options(self.Options, common.extra, self.name))

    @classmethod
    def baselines(cls) -> tuple[str, ...]:
        """The offline baseline models that apply to the task: ``oracle``, ``identity`` (where
        the samples carry an input SVG), ``empty`` and ``hostile``."""
        return ("oracle", *(("identity",) if cls.takes_input_svg else ()), "empty", "hostile")

    @classmethod
    def higher_is_better(cls, key: str) -> bool | None:
        """The direction of a reported metric key, from its registered metric (None: unknown)."""
        metric = cls.metrics.get(key)
        return METRICS.get(metric).higher_is_better if metric is not None else None

    def vlmevalkit_sample_id(self, row: Mapping[str, str]) -> str | None:
        """The id of the sample that a row of VLMEvalKit's prediction file answers (its cells
        as text: the dataset TSV's columns and ``prediction``), None for a row of another task;
        a task with a :attr:`vlmevalkit_dataset` reads it as VLMEvalKit's evaluation does."""
        return None

    @abstractmethod
    def load(self) -> Sequence[Sample[TargetT]]:
        """Return the samples, in a stable order: a list, or samples read when used
        (:class:`~svgeval.tasks.lazy.LazySamples`) where the release is many small files."""

    @abstractmethod
    def score(self, sample: Sample[TargetT], response: str, renderer: Renderer) -> Outcome:
        """Score one model response; must not raise for bad responses (return a failure)."""

    def score_many(self, items: Sequence[tuple[Sample[TargetT], str]],
                   renderer: Renderer) -> list[Outcome]:
        """:meth:`score` of each ``(sample, response)``, in order; a task that sets
        :attr:`scores_many` starts every render of the batch before it waits for any."""
        return [self.score(sample, response, renderer) for sample, response in items]

    def asks_per_sample(self) -> int:
        """How many times the model may be asked for one sample's answer: once, unless the
        task reproduces a re-ask protocol (its ``--set reask=N``; see
        :mod:`svgeval.runner.reask`)."""
        return int(getattr(self.options, "reask", 1))

    def answer_complete(self, response: str) -> bool:
        """False for a reply in which a re-asking protocol asks again (no answer in the
        released format); every reply is complete unless the task says otherwise."""
        return True

    def batch_score(
        self, items: Sequence[BatchItem[TargetT]], context: MetricContext
    ) -> list[MetricValues]:
        """The :attr:`batched_metrics` of a batch: one :class:`MetricValues` per item, holding
        its metric values and ``not_computed`` reasons (none for a task without batched
        metrics)."""
        return [MetricValues() for _ in items]

    def set_score(
        self, groups: Mapping[str, Sequence[BatchItem[TargetT]]], context: MetricContext
    ) -> MetricValues:
        """The :attr:`set_metrics` of each group (keys ``<group>/<metric>``) and why any could
        not be computed; empty for a task without set-level metrics."""
        return MetricValues()

    def close(self) -> None:
        """Let go of what scoring started and keeps between samples (a browser): the runner
        calls it when a run ends, so nothing outlives the run in a notebook or a test; a later
        score starts it again. Nothing for most tasks."""

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        """Per-group means of the per-sample metrics (see :func:`mean_per_group`).

        ``outcomes`` are every scored answer's, failed ones included (the records of
        ``samples.jsonl``): the runner scores an empty response for a failed model call, so the
        task's own failure values apply to it too.
        """
        return mean_per_group(outcomes)
