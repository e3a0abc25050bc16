"""The batched metric stage: model-based metrics computed after scoring, many samples at a time.

Per-sample scoring (:meth:`Task.score`) runs as answers arrive and records pixel and code
metrics at once. Metrics that need a network (CLIP, DINO, LPIPS, HPS, ...) are declared by the
task in :attr:`Task.batched_metrics`; this stage loads each network once and feeds it
``--metric-batch-size`` samples at a time on ``--device``. Each finished batch's records are
appended to ``samples.jsonl`` as the latest of their keys (:mod:`~svgeval.runner.record_lines`)
by a writer thread while the next batch computes, so an interrupted stage keeps what it
computed, and a resumed or re-scored run computes only the values a record lacks; at the end
the file is compacted to one line a record.

A batch that runs out of memory is computed again in halves, and one sample that does not fit
stops the stage (:mod:`svgeval.runner.metric_memory`), every batch before it stored.

A failed sample has no SVG (``BatchItem.output_svg`` is None): the task compares its stand-in
picture (a white canvas for most) in the ``*_all`` readings; the paper's reading leaves out only the samples with no answer to extract (see :class:`BatchItem`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svgeval.runner.metric_memory import MetricsOutOfMemory, ran_out_of_memory
from svgeval.runner.progress import NoProgress, PhaseProgress
from svgeval.runner.record_lines import RecordLines
from svgeval.runner.records import RecordKey, SampleRecord
from svgeval.tasks.base import BatchItem, MetricContext, Sample, Task
from svgeval.tasks.outcome import FailureKind, MetricValues


@dataclass(frozen=True)
class MetricBackend:
    """Where the model metrics compute: in this process (:meth:`local`) or on a Ray actor
    (:mod:`svgeval.runner.ray_executor`); ``batch_size`` samples per :attr:`batch_score` call."""

    batch_size: int
    batch_score: Callable[[list[BatchItem[Any]]], list[MetricValues]]
    """:meth:`Task.batch_score` of one batch."""
    set_score: Callable[[dict[str, list[BatchItem[Any]]]], MetricValues]
    """:meth:`Task.set_score` of every group."""

    @classmethod
    def local(cls, task: Task[Any], context: MetricContext) -> MetricBackend:
        return cls(
            context.batch_size,
            lambda items: task.batch_score(items, context),
            lambda groups: task.set_score(groups, context),
        )


def _backend(task: Task[Any], where: MetricContext | MetricBackend) -> MetricBackend:
    return where if isinstance(where, MetricBackend) else MetricBackend.local(task, where)


def needs_batched_metrics(task: Task[Any], record: SampleRecord) -> bool:
    """True when a record lacks one of the task's batched metrics (None counts as computed)."""
    return any(
        key not in record.metrics and f"{key}_all" not in record.metrics
        for key in task.batched_metrics
    ) and (record.failure is None or record.failure.is_models)


def batch_item(sample: Sample[Any], record: SampleRecord) -> BatchItem[Any]:
    """What the stage draws for a record: its answer, or no SVG (None) for a failure."""
    if record.failure is None and record.extracted is not None:
        return BatchItem(sample, record.extracted, in_paper_reading=True)
    # the released code draws an answer it cannot render as a white canvas and counts it;
    # an answer it cannot extract it leaves out
    unrenderable = record.failure is not None and record.failure.kind == FailureKind.RENDER
    return BatchItem(sample, None, in_paper_reading=unrenderable)


def in_run_order(records: Mapping[RecordKey, SampleRecord],
                 samples: Mapping[str, Sample[Any]]) -> Iterator[SampleRecord]:
    """The records of ``samples``, each read when it is reached, in the run's order (sample,
    then epoch), not in the order their scoring finished: a model metric's value moves in its
    last bits with where a picture sits in its batch (on a CPU, torch's kernels block a batch
    by rows), so batches made in finishing order gave numbers that changed with thread timing
    (about 1e-8)."""
    rank = {sample_id: index for index, sample_id in enumerate(samples)}
    keys = sorted((key for key in records if key[0] in rank),
                  key=lambda key: (rank[key[0]], key[1]))
    return (records[key] for key in keys)


def _chunks(items: Sequence[SampleRecord], size: int) -> Iterator[Sequence[SampleRecord]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def fill_batched_metrics(
    task: Task[Any],
    samples: Mapping[str, Sample[Any]],
    records: MutableMapping[RecordKey, SampleRecord],
    context: MetricContext | MetricBackend,
    samples_file: Path,
    phases: PhaseProgress | None = None,
) -> None:
    """Compute the missing batched metrics of ``records`` (updated in place) and store each
    batch in ``samples_file``; ``phases`` is told of each batch."""
    if not task.batched_metrics:
        return
    backend = _backend(task, context)
    todo = [r for r in in_run_order(records, samples) if needs_batched_metrics(task, r)]
    if not todo:
        return
    phases = phases or NoProgress()
    phases.start(f"model metrics ({', '.join(task.batched_metrics)})", len(todo), "samples")
    stored = RecordLines(samples_file)
    # a batch is stored while the next computes (a GPU's wait lets the writer run); one
    # write at a time, in order, and a stage that stops keeps every batch it stored
    with ThreadPoolExecutor(1, thread_name_prefix="svgeval-metric-store") as writer:
        storing: Future[None] | None = None
        for chunk in _chunks(todo, backend.batch_size):
            scores = _scores_in_memory(backend, [batch_item(samples[r.id], r) for r in chunk])
            updated = {
                record.key: record.model_copy(
                    update={
                        "metrics": {**record.metrics, **score.metrics},
                        "not_computed": {**record.not_computed, **score.not_computed},
                    }
                )
                for record, score in zip(chunk, scores)
            }
            records.update(updated)
            if storing is not None:
                storing.result()  # the batch before is stored (or its write error raised)
            storing = writer.submit(_store, stored, updated)
            phases.advance(len(chunk))
        if storing is not None:
            storing.result()
    stored.compact()


def _scores_in_memory(backend: MetricBackend, items: list[BatchItem[Any]]) -> list[MetricValues]:
    """``backend.batch_score(items)``; out of memory, the halves one after the other, and
    :class:`MetricsOutOfMemory` when one sample does not fit."""
    try:
        return backend.batch_score(items)
    except Exception as error:
        if not ran_out_of_memory(error):
            raise
        if len(items) == 1:
            raise MetricsOutOfMemory(
                f"the model metrics ran out of memory on one sample ({items[0].sample.id}): "
                "free memory or run them on a larger device (--device); the finished batches "
                "are kept, continue with --resume") from None
    middle = len(items) // 2
    return (_scores_in_memory(backend, items[:middle])
            + _scores_in_memory(backend, items[middle:]))


def _store(stored: RecordLines, updated: Mapping[RecordKey, SampleRecord]) -> None:
    """Append ``updated`` to ``stored``, each record with the prompt and answer its stored
    line keeps (the stage's copies may have dropped them)."""
    stored.append(
        (kept or record).model_copy(
            update={"metrics": record.metrics, "not_computed": record.not_computed})
        for kept, record in zip(stored.latest(updated), updated.values()))


def set_level_metrics(
    task: Task[Any],
    samples: Mapping[str, Sample[Any]],
    records: Mapping[RecordKey, SampleRecord],
    context: MetricContext | MetricBackend,
    phases: PhaseProgress | None = None,
) -> dict[int, MetricValues]:
    """Epoch -> the task's set-level metrics over every scored sample of each group of that
    epoch (see :meth:`Task.set_score`); empty when the task declares none. A task whose set
    metrics read every epoch at once (:attr:`Task.set_metrics_across_epochs`) gets them under
    epoch 0. ``phases`` is told of each epoch."""
    if not task.set_metrics:
        return {}
    epochs: dict[int, dict[str, list[BatchItem[Any]]]] = {}
    for record in in_run_order(records, samples):
        if record.failure is None or record.failure.is_models:
            groups = epochs.setdefault(0 if task.set_metrics_across_epochs else record.epoch, {})
            groups.setdefault(record.group, []).append(batch_item(samples[record.id], record))
    backend = _backend(task, context)
    phases = phases or NoProgress()
    phases.start(f"set metrics ({', '.join(task.set_metrics)})", len(epochs), "epochs")
    values = {}
    for epoch, groups in sorted(epochs.items()):
        values[epoch] = backend.set_score(groups)
        phases.advance(1)
    return values
