"""Where a run's scoring and batched model metrics execute: ``--executor local`` or ``ray``.

:class:`Runner` asks its :class:`Executor` three things: score one sample
(:meth:`Executor.score`), compute the batched and set-level model metrics
(:meth:`Executor.batch_stage`), and wrap a model so that its calls share the endpoint's
concurrency limit (:meth:`Executor.limit`). The local executor is the default and needs no Ray:
scoring runs in a thread pool whose threads wait on one isolated :class:`Renderer`. The Ray
executor (:mod:`svgeval.runner.ray_executor`) runs the same functions on Ray workers, each with
its own isolated renderer; the executor is not part of a run's identity, because the records it
writes are the same (timings aside).
"""

from __future__ import annotations

import asyncio
import traceback
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar, get_args

from svgeval.errors import UserError
from svgeval.models.base import Model
from svgeval.render.backends import make_renderer
from svgeval.render.isolated import Renderer, RenderWorkersLost
from svgeval.run_request import Executor as ExecutorName
from svgeval.runner.metric_memory import batch_size
from svgeval.runner.metric_stage import MetricBackend, fill_batched_metrics, set_level_metrics
from svgeval.runner.progress import PhaseProgress
from svgeval.runner.records import RecordKey, SampleRecord
from svgeval.runner.run_config import RunSettings
from svgeval.runner.score_batches import ScoreBatches
from svgeval.tasks.base import MetricContext, Sample, Task
from svgeval.tasks.outcome import Failure, FailureKind, MetricValues, Outcome

EXECUTORS: tuple[str, ...] = get_args(ExecutorName)

SCORING_THREADS_PER_WORKER = 8
"""Samples scored at once per render worker: enough waiting renders to fill a chunk of eight
(see :mod:`svgeval.render.batch`) while the workers draw the previous one."""

SCORE_BATCH_SIZE = 32
"""Samples per batch for a task that scores many at once (:mod:`svgeval.runner.score_batches`):
SVGEditBench's 64 renders, eight chunks of the render batcher (of the sizes measured, the one
with the fewest context switches, at the same wall time: ``bench/RESULTS.md``)."""

SCORE_BATCHES_PER_WORKER = 2
"""Batches scored at once per render worker: the one drawn and the next."""

T = TypeVar("T")


class ExecutorError(UserError):
    """An executor that cannot start or lost a worker; one line saying what to do."""


def score_sample(task: Task[Any], sample: Sample[Any], response: str,
                 renderer: Renderer) -> Outcome:
    """The task's outcome of one response; a scorer crash is the sample's ``scorer_error``.
    Render workers lost for good (:class:`RenderWorkersLost`) are svgeval's failure, not the
    sample's: the error is raised and the run stops, keeping the samples it finished."""
    try:
        return task.score(sample, response, renderer)
    except RenderWorkersLost:
        raise
    except Exception as error:  # noqa: BLE001 - a bug in a scorer must not take the run down
        last = traceback.format_exception_only(type(error), error)[-1].strip()
        return Outcome.of(sample, failure=Failure(kind=FailureKind.SCORER_ERROR, detail=last))


def score_batch(task: Task[Any], items: Sequence[tuple[Sample[Any], str]],
                renderer: Renderer) -> list[Outcome]:
    """:meth:`Task.score_many` of a batch; should it raise (a bug in the scorer), each sample
    is scored alone (:func:`score_sample`), so only the samples it fails record the error."""
    try:
        return task.score_many(items, renderer)
    except RenderWorkersLost:
        raise
    except Exception:  # noqa: BLE001 - found again, sample by sample, below
        return [score_sample(task, sample, response, renderer) for sample, response in items]


def settings_renderer(settings: RunSettings, workers: int | None) -> Renderer:
    """The isolated renderer ``settings`` ask for (renderer, timeout, cache), with ``workers``."""
    return make_renderer(settings.renderer, workers, settings.render_timeout_s,
                         settings.render_cache)


def metric_context(renderer: Renderer, settings: RunSettings) -> MetricContext:
    """What the run's batched model metrics compute with in this process: ``renderer``, a
    batch size (sized from this machine's memory unless given), the device, and the run's
    precision, preprocessing and local weights (:meth:`RunSettings.model_settings`)."""
    return MetricContext(renderer, batch_size(settings.metric_batch_size, settings.device),
                         settings.device, settings.model_settings())


class Executor(ABC):
    """Runs the scoring of one run; :meth:`close` releases its workers. Its model metrics
    compute with the run's settings, handed to them in their :class:`MetricContext`
    (:func:`metric_context`), here and in every worker process it starts."""

    def __init__(self, task: Task[Any], settings: RunSettings) -> None:
        self.task = task
        self.settings = settings
        self._threads = ThreadPoolExecutor(max_workers=self.threads())

    def threads(self) -> int:
        """Driver threads: each waits on one scoring call."""
        return 2

    async def in_thread(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in the executor's threads (it blocks; the event loop must not)."""
        return await asyncio.get_running_loop().run_in_executor(self._threads, function, *args)

    @abstractmethod
    async def score(self, sample: Sample[Any], response: str) -> Outcome:
        """The outcome of ``response`` to ``sample`` (see :func:`score_sample`)."""

    @abstractmethod
    def metric_backend(self) -> MetricBackend:
        """Where the batched and set-level model metrics compute."""

    async def batch_stage(
        self,
        samples: Mapping[str, Sample[Any]],
        records: MutableMapping[RecordKey, SampleRecord],
        samples_file: Path,
        phases: PhaseProgress,
    ) -> dict[int, MetricValues]:
        """Fill the batched metrics of ``records`` (stored in ``samples_file`` batch by batch) and
        return the set-level metrics of each epoch (see :mod:`svgeval.runner.metric_stage`);
        ``phases`` is told how each phase goes."""
        if not self.task.batched_metrics and not self.task.set_metrics:
            return {}
        backend = self.metric_backend()
        await self.in_thread(fill_batched_metrics, self.task, samples, records, backend,
                             samples_file, phases)
        return await self.in_thread(set_level_metrics, self.task, samples, records, backend,
                                    phases)

    def limit(self, model: Model, concurrency: int) -> Model:
        """``model``, its calls limited to ``concurrency`` in flight per endpoint across every
        process of the run; locally the model's own limit already is that."""
        return model

    def close(self) -> None:
        self._threads.shutdown(wait=True)


class LocalExecutor(Executor):
    """Scoring in this process's threads, rendering in one isolated :class:`Renderer` pool."""

    def __init__(self, task: Task[Any], settings: RunSettings) -> None:
        self.renderer = settings_renderer(settings, settings.render_workers)
        super().__init__(task, settings)
        self._batches = ScoreBatches(self._score_many, SCORE_BATCH_SIZE,
                                     SCORE_BATCHES_PER_WORKER * self.renderer.workers)

    def threads(self) -> int:
        return SCORING_THREADS_PER_WORKER * self.renderer.workers

    async def score(self, sample: Sample[Any], response: str) -> Outcome:
        if self.task.scores_many:
            return await self._batches.score(sample, response)
        return await self.in_thread(score_sample, self.task, sample, response, self.renderer)

    async def _score_many(self, items: Sequence[tuple[Sample[Any], str]]) -> list[Outcome]:
        return await self.in_thread(score_batch, self.task, items, self.renderer)

    def metric_backend(self) -> MetricBackend:
        return MetricBackend.local(self.task, metric_context(self.renderer, self.settings))

    def close(self) -> None:
        super().close()
        self.renderer.close()
