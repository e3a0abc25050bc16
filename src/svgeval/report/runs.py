"""A run directory read back for reporting: its config, results and samples, checked.

Reports never call a model: everything comes from the typed records of a run directory
(:mod:`svgeval.runner.records`). A directory that is not a finished run stops with one line
(:class:`ReportError`, a :class:`~svgeval.errors.UserError` the command line prints as such),
and so does one whose files are not of one run: a ``results.json`` of another task, model or
task version than its ``config.json``, or one that counts samples the records do not hold
(another run's, or one written before an interrupted ``--resume``). The one difference that is
reported rather than refused is a last line of ``samples.jsonl`` cut short by a kill, which the
readers leave out: :attr:`LoadedRun.notes` says so, with the count ``results.json`` has.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from svgeval.audit import BASELINES
from svgeval.errors import UserError
from svgeval.metrics.registry import MetricInfo
from svgeval.report.summary import answered_note, metric_info, n_answered
from svgeval.runner.records import Results, SampleRecord
from svgeval.runner.run_config import RunConfig
from svgeval.runner.run_dir import RunDir, cut_short, latest_by_id, latest_by_key

DEGENERATE_MODELS = frozenset(
    {"identity", "empty", "hostile", *(f"audit:{name}" for name in BASELINES if name != "oracle")}
)
"""Model specs of degenerate baselines (the offline baselines and the audit's, but the oracle):
answers made without doing the task, whose values are never marked best."""


class ReportError(UserError, ValueError):
    """A report cannot be built from what it was given; the message says what to do. A
    ValueError as well, the error it was before, which callers may catch."""


@dataclass(frozen=True)
class LoadedRun:
    """The records of one run directory."""

    root: Path
    """The run directory."""
    config: RunConfig
    """``config.json``."""
    results: Results
    """``results.json``."""
    samples: list[SampleRecord]
    """The last record of each sample, in file order."""
    notes: tuple[str, ...] = ()
    """What a reader must know about the files (a record left out)."""

    @property
    def name(self) -> str:
        """The directory's name, e.g. ``gpt`` for ``runs/gpt``."""
        return self.root.resolve().name

    def higher_is_better(self, metric: str) -> bool | None:
        """The direction of a per-sample metric (``mse``) or a results key (``easy/acc``),
        declared by the registered metric behind it (None: unknown)."""
        info = self.info(metric)
        return info.higher_is_better if info is not None else None

    def info(self, metric: str) -> MetricInfo | None:
        """The registered metric behind a per-sample metric or a results key (None: unknown)."""
        return metric_info(self.config.task, metric)

    @property
    def n_answered(self) -> int:
        """Work units the model answered (:func:`~svgeval.report.summary.n_answered`)."""
        return n_answered(self.results)

    @property
    def answered_all(self) -> bool:
        """True when every sample asked for has a record with an answer."""
        return answered_note(self.results) is None

    @property
    def degenerate(self) -> bool:
        """True for a degenerate baseline's run (:data:`DEGENERATE_MODELS`)."""
        return self.config.model in DEGENERATE_MODELS

    @property
    def incomplete(self) -> str | None:
        """``incomplete: 420/600 answered`` for a run that lacks answers (None otherwise)."""
        if self.answered_all:
            return None
        return f"incomplete: {self.n_answered}/{self.results.n_expected} answered"

    @property
    def samples_asked(self) -> int:
        """Samples the run asked for (each once, whatever its ``--epochs``)."""
        epochs = self.results.epochs.k if self.results.epochs is not None else 1
        return self.results.n_expected // epochs

    def groups(self) -> list[str]:
        """The run's groups (subtasks, tiers) in the order of ``results.json``."""
        seen = dict.fromkeys(self.results.counts)
        seen.update(dict.fromkeys(key.rsplit("/", 1)[0] for key in self.results.metrics))
        return list(seen)

    def metric_names(self) -> list[str]:
        """Every per-sample metric name of the run, in first-seen order."""
        names: dict[str, None] = {}
        for record in self.samples:
            names.update(dict.fromkeys(record.metrics))
        return list(names)


def load_run(root: Path) -> LoadedRun:
    """Read and check the run directory ``root``."""
    if not root.is_dir():
        raise ReportError(f"{root} is not a directory; pass a run directory (the --out of a run)")
    run_dir = RunDir(root)
    config = run_dir.read_config()
    if config is None:
        raise ReportError(f"{root} has no config.json; is it a run directory?")
    results = run_dir.read_results()
    if results is None:
        raise ReportError(
            f"{root} has no results.json (an interrupted run); `svgeval score {root}` writes it"
        )
    _check_one_run(root, config, results)
    records = run_dir.read_samples()
    notes = _check_records(root, results, list(latest_by_key(records).values()),
                           cut_short(run_dir.samples, SampleRecord))
    first_epoch = (record for record in records if record.epoch == 1)
    samples = list(latest_by_id(first_epoch).values())  # one record per sample
    return LoadedRun(root=root, config=config, results=results, samples=samples, notes=notes)


def _check_one_run(root: Path, config: RunConfig, results: Results) -> None:
    """Refuse a ``results.json`` of another task, task version or model than ``config.json``."""
    found = [(name, mine, theirs) for name, mine, theirs in (
        ("task", config.task, results.task),
        ("task version", config.task_version, results.task_version),
        ("model", config.model, results.model),
    ) if mine != theirs]
    if found:
        what = "; ".join(f"{name} {theirs!r} in results.json, {mine!r} in config.json"
                         for name, mine, theirs in found)
        raise ReportError(
            f"{root}: results.json and config.json are of different runs ({what}); put back the "
            f"run's own files, or run `svgeval score {root}` to compute results.json again"
        )


def _check_records(root: Path, results: Results, records: Sequence[SampleRecord],
                   cut: bool) -> tuple[str, ...]:
    """Refuse a ``results.json`` counting samples the records do not hold, unless the one
    missing is a last line cut short, which the returned note reports.

    A group no record belongs to is a pooled group when it counts the records of the groups
    under it (``binding`` those of ``binding/color``, SGP-CompBench's major types) or, with no
    group under it, every record (SGP-Bench's and VGBench's ``all``,
    :func:`~svgeval.tasks.aggregate.with_pooled_group`)."""
    held: dict[str, int] = {}
    for record in records:
        held[record.group] = held.get(record.group, 0) + 1

    def pooled_count(group: str) -> int:
        under = sum(n for name, n in held.items() if name.startswith(group + "/"))
        return under or len(records)

    pooled = {group for group, count in results.counts.items()
              if group not in held and count.n == pooled_count(group)}
    short = {group: (held.get(group, 0), count.n) for group, count in results.counts.items()
             if group not in pooled and held.get(group, 0) < count.n}
    if not short:
        return ()
    lacking = sum(counted - found for found, counted in short.values())
    if cut and lacking == 1:
        note = (f"{root / 'samples.jsonl'} ends with a line cut short (a write interrupted by a "
                f"kill), left out: {len(records)} samples are shown, results.json counts "
                f"{results.n}; `svgeval score {root}` scores the run's answers again")
        return (note,)
    group, (found, counted) = next(iter(short.items()))
    raise ReportError(
        f"{root}: results.json counts {counted} samples in group {group}, samples.jsonl holds "
        f"{found}: results.json is another run's, or older than the records (an interrupted "
        f"--resume); run `svgeval score {root}` to compute it from the records"
    )


def run_labels(runs: Sequence[LoadedRun]) -> list[str]:
    """A short, distinct label per run: its directory name, or its path where names repeat."""
    names = [run.name for run in runs]
    return [
        name if names.count(name) == 1 else str(run.root).rstrip("/")
        for name, run in zip(names, runs)
    ]
