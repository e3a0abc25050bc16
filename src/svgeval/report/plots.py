"""Plots for reports and papers, each written as PNG (for pages) and SVG (for papers).

* :func:`distribution_plots`: per metric, the distribution of the per-sample values in each
  group (subtask or tier) of one run, as box plots with the mean marked.
* :func:`group_plots`: per metric, the mean of each group for each run side by side, with the
  run's bootstrap 95% interval as error bars ("metric by tier per model").

matplotlib is imported only when a plot is drawn, and drawn through its object interface (no
global pyplot state). SVG files carry no date and a fixed id salt, so the same run gives the
same bytes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from svgeval.runner.records import Results, SampleRecord

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@contextmanager
def _style() -> Iterator[None]:
    """Fixed SVG ids and text drawn as paths (same bytes on every machine), small fonts."""
    import matplotlib

    with matplotlib.rc_context(
        {"svg.hashsalt": "svgeval", "svg.fonttype": "path", "font.size": 9.0}
    ):
        yield


@dataclass(frozen=True)
class Plot:
    """One plot: its metric and the two files it was written to."""

    metric: str
    title: str
    png: Path
    svg: Path


def _stem(metric: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", metric)


def _label(metric: str, higher_is_better: bool | None) -> str:
    if higher_is_better is None:
        return metric
    return f"{metric} ({'higher' if higher_is_better else 'lower'} is better)"


def _save(figure: Figure, folder: Path, stem: str, metric: str, title: str) -> Plot:
    folder.mkdir(parents=True, exist_ok=True)
    png, svg = folder / f"{stem}.png", folder / f"{stem}.svg"
    figure.savefig(png, dpi=110)
    figure.savefig(svg, metadata={"Date": None})
    return Plot(metric=metric, title=title, png=png, svg=svg)


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    return figure


@_style()
def distribution_plots(
    samples: Sequence[SampleRecord],
    directions: Mapping[str, bool | None],
    folder: Path,
    groups: Sequence[str] = (),
) -> list[Plot]:
    """Per metric of ``directions``, box plots of its per-sample values in each group
    (``groups`` first, in their order, then any other group of ``samples``)."""
    plots = []
    groups = list(dict.fromkeys([*groups, *(record.group for record in samples)]))
    for metric, higher in directions.items():
        series = {
            group: [
                value
                for record in samples
                if record.group == group
                for value in [record.metrics.get(metric)]
                if value is not None and not math.isnan(value)
            ]
            for group in groups
        }
        present = {group: values for group, values in series.items() if values}
        if not present:
            continue
        figure = _figure(max(4.0, 0.9 * len(present) + 1.5), 3.0)
        axes = figure.add_subplot()
        axes.boxplot(list(present.values()), showmeans=True, meanline=False)
        axes.set_xticks(range(1, len(present) + 1))
        axes.set_xticklabels(
            [f"{group}\nn={len(values)}" for group, values in present.items()], fontsize=8
        )
        axes.set_ylabel(_label(metric, higher))
        axes.grid(axis="y", alpha=0.3)
        title = f"{metric} per sample, by group (box: quartiles, triangle: mean)"
        plots.append(_save(figure, folder, _stem(metric), metric, title))
    return plots


@_style()
def group_plots(
    runs: Sequence[tuple[str, Results]],
    directions: Mapping[str, bool | None],
    folder: Path,
) -> list[Plot]:
    """Per metric of ``directions``, each run's mean per group with its 95% interval."""
    plots = []
    for metric, higher in directions.items():
        groups = list(
            dict.fromkeys(
                key.rsplit("/", 1)[0]
                for _, results in runs
                for key, value in results.metrics.items()
                if key.rsplit("/", 1)[-1] == metric and value is not None
            )
        )
        if not groups:
            continue
        figure = _figure(max(4.5, 0.5 * len(groups) * len(runs) + 2.0), 3.2)
        axes = figure.add_subplot()
        width = 0.8 / len(runs)
        for position, (label, results) in enumerate(runs):
            means, low, high = [], [], []
            for group in groups:
                key = f"{group}/{metric}"
                mean = results.metrics.get(key)
                stats = results.stats.get(key)
                interval = stats.ci95 if stats is not None and stats.ci95 is not None else None
                means.append(math.nan if mean is None else mean)
                low.append(0.0 if mean is None or interval is None else mean - interval[0])
                high.append(0.0 if mean is None or interval is None else interval[1] - mean)
            offsets = [i + (position - (len(runs) - 1) / 2) * width for i in range(len(groups))]
            axes.bar(offsets, means, width, yerr=[low, high], capsize=2, label=label)
        axes.set_xticks(range(len(groups)))
        axes.set_xticklabels(groups, fontsize=8)
        axes.set_ylabel(_label(metric, higher))
        axes.grid(axis="y", alpha=0.3)
        axes.legend(fontsize=7)
        title = f"{metric} by group and run (whiskers: 95% bootstrap interval)"
        plots.append(_save(figure, folder, _stem(metric), metric, title))
    return plots
