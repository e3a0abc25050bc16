"""A run directory read back for reporting: its config, results and samples, checked.

Reports never call a model: everything comes from the typed records of a run directory
(:mod:`svgeval.runner.records`). A directory that is not a finished run stops with one line
(:class:`ReportError`, a ``ValueError`` the command line prints as such).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from svgeval.runner.records import Results, RunConfig, SampleRecord
from svgeval.runner.run_dir import RunDir, latest_by_id
from svgeval.tasks import get_task


class ReportError(ValueError):
    """A report cannot be built from what it was given; the message says what to do."""


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

    @property
    def name(self) -> str:
        """The directory's name, e.g. ``gpt`` for ``runs/gpt``."""
        return self.root.resolve().name

    def higher_is_better(self, metric: str) -> bool | None:
        """The direction of a per-sample metric (``mse``) or a results key (``easy/acc``),
        declared by the registered metric behind it (None: unknown)."""
        return metric_direction(self.config.task, metric)

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


def metric_direction(task: str, metric: str) -> bool | None:
    """True when higher is better for ``metric`` of ``task`` (a ``<group>/`` prefix is
    ignored); None when the task or the metric declares no direction."""
    name = metric.rsplit("/", 1)[-1]
    try:
        return get_task(task).higher_is_better(name)
    except KeyError:
        return None


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
    first_epoch = (record for record in run_dir.read_samples() if record.epoch == 1)
    samples = list(latest_by_id(first_epoch).values())  # one record per sample
    return LoadedRun(root=root, config=config, results=results, samples=samples)


def run_labels(runs: Sequence[LoadedRun]) -> list[str]:
    """A short, distinct label per run: its directory name, or its path where names repeat."""
    names = [run.name for run in runs]
    return [
        name if names.count(name) == 1 else str(run.root).rstrip("/")
        for name, run in zip(names, runs)
    ]
