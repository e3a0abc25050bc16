"""Plots: one PNG and one SVG per metric, the same bytes for the same run."""

from __future__ import annotations

from pathlib import Path

from lxml import etree
from PIL import Image

from svgeval.report.plots import distribution_plots, group_plots
from svgeval.runner.records import MetricSummary, Results, SampleRecord


def record(index: int, group: str, value: float | None) -> SampleRecord:
    return SampleRecord(id=f"{group}/{index}", group=group, prompt=[], prompt_hash="h",
                        metrics={"mse": value, "ratio": None})


def test_distributions_per_group_are_reproducible(tmp_path: Path) -> None:
    samples = [record(i, group, i / 10 if i % 4 else None)
               for group in ("b", "a") for i in range(8)]
    first = distribution_plots(samples, {"mse": False, "ratio": False}, tmp_path / "1", ["a"])
    second = distribution_plots(samples, {"mse": False, "ratio": False}, tmp_path / "2", ["a"])
    assert [plot.metric for plot in first] == ["mse"]  # ratio has no value to plot
    assert first[0].svg.read_bytes() == second[0].svg.read_bytes()
    assert Image.open(first[0].png).format == "PNG"


def test_metric_by_group_per_run(tmp_path: Path) -> None:
    def results(mean: float) -> Results:
        keys = {"easy/acc": mean, "hard/acc": mean / 2}
        return Results(task="t", task_version="1", model="m", n=2, n_expected=2, n_valid=2,
                       complete=True, metrics=keys, counts={}, svgeval_version="0",
                       stats={k: MetricSummary(n=2, stderr=1.0, ci95=(v - 1, v + 1))
                              for k, v in keys.items()})

    plots = group_plots([("x", results(80.0)), ("y", results(60.0))], {"acc": True}, tmp_path)
    assert [plot.svg.name for plot in plots] == ["acc.svg"]
    assert Image.open(plots[0].png).format == "PNG"
    assert etree.parse(str(plots[0].svg)).getroot().tag == "{http://www.w3.org/2000/svg}svg"
