"""How a :class:`~svgeval.report.compare.Comparison` is shown: a console table, and a static
page with the paired statistics and, per metric, the samples that differ most with both runs'
renders side by side (and the reference, where the data is found). ``comparison.json`` beside
the page holds the same numbers for scripts.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from rich.table import Table as RichTable
from rich.text import Text

from svgeval.report.compare import Comparison, PairedMetric, PairedSample
from svgeval.report.page import copy_assets, document, esc, number, table
from svgeval.report.renders import PageRender, RenderStore, run_failures
from svgeval.report.runs import LoadedRun
from svgeval.report.sources import SampleSources, output_svg
from svgeval.runner.records import SampleRecord

HEADER = ["group/metric", "n", "mean A", "mean B", "B − A", "95% interval", "B better", "B worse"]


def _row(metric: PairedMetric) -> list[str]:
    interval = (
        f"[{number(metric.ci95[0])}, {number(metric.ci95[1])}]" if metric.ci95 else "n/a"
    )
    direction = {True: " ↑", False: " ↓", None: ""}[metric.higher_is_better]
    if metric.best_at is not None:
        direction = f" →{metric.best_at:g}"
    return [metric.key + direction, str(metric.n), number(metric.mean_a), number(metric.mean_b),
            number(metric.mean_diff), interval, f"{metric.better:.1%}", f"{metric.worse:.1%}"]


def _side(label: str, run: LoadedRun) -> str:
    """``gpt (openai:gpt-4o)``, with ``, incomplete: 420/600 answered`` for a run lacking
    answers."""
    return f"{label} ({run.config.model}" + (f", {run.incomplete})" if run.incomplete else ")")


def comparison_table(comparison: Comparison) -> RichTable:
    """The paired statistics as a console table (plain text cells: nothing read as markup)."""
    label_a, label_b = comparison.labels
    result = RichTable(title=Text(f"A = {_side(label_a, comparison.a)} · "
                                  f"B = {_side(label_b, comparison.b)}"))
    for index, name in enumerate(HEADER):
        result.add_column(name, justify="left" if index == 0 else "right")
    for metric in comparison.metrics:
        result.add_row(*map(Text, _row(metric)))
    return result


def _figure(label: str, rendered: PageRender | None) -> str:
    if rendered is None:
        inner = '<div class="noimg">no SVG</div>'
    elif rendered.src is not None:
        inner = f'<img src="{esc(rendered.src)}" alt="{esc(label)}" width="160" height="160">'
    else:
        inner = f'<div class="noimg error">render failed: {esc(rendered.error)}</div>'
    return f'<figure class="render">{inner}<figcaption>{esc(label)}</figcaption></figure>'


class _Pairs:
    """Renders of the samples shown side by side."""

    def __init__(self, comparison: Comparison, sources: SampleSources, store: RenderStore):
        self.records = {
            side: {record.id: record for record in run.samples}
            for side, run in (("A", comparison.a), ("B", comparison.b))
        }
        self.sources, self.store = sources, store
        shown = {pair.id for pairs in comparison.largest.values() for pair in pairs}
        svgs = [
            svg
            for sample_id in sorted(shown)
            for svg in (*(output_svg(self.records[side][sample_id]) for side in "AB"),
                        sources.reference_svg(sample_id))
            if svg is not None
        ]
        failed = {**run_failures(comparison.a.samples), **run_failures(comparison.b.samples)}
        self.renders = store.render_all(svgs, failed)

    def _render(self, svg: str | None) -> PageRender | None:
        return self.store.lookup(self.renders, svg)

    def _outcome(self, record: SampleRecord) -> str:
        return "valid" if record.failure is None else record.failure.tag

    def card(self, pair: PairedSample, labels: tuple[str, str], higher: bool | None) -> str:
        """One sample side by side: A's render, B's, the reference, and the two values."""
        first, second = self.records["A"][pair.id], self.records["B"][pair.id]
        figures = _figure(f"A: {labels[0]} ({self._outcome(first)})",
                          self._render(output_svg(first)))
        figures += _figure(f"B: {labels[1]} ({self._outcome(second)})",
                           self._render(output_svg(second)))
        if self.sources.available:
            figures += _figure("reference", self._render(self.sources.reference_svg(pair.id)))
        improved = (pair.diff > 0) == bool(higher) if higher is not None else None
        css = {True: "diff-up", False: "diff-down", None: ""}[improved]
        return (
            f'<article class="card"><header><span class="sid">{esc(pair.id)}</span>'
            f'<span class="group">{esc(pair.group)}</span></header>'
            f'<div class="renders">{figures}</div>'
            f'<p>{esc(pair.metric)}: A {esc(number(pair.a))} → B {esc(number(pair.b))} '
            f'<b class="{css}">({esc(f"{pair.diff:+.4g}")})</b></p></article>'
        )


def build_comparison(
    comparison: Comparison, out_dir: Path, sources: SampleSources, workers: int | None = None
) -> Path:
    """Write the comparison page and ``comparison.json`` into ``out_dir``; return the page."""
    out_dir.mkdir(parents=True, exist_ok=True)
    store = RenderStore(out_dir / "renders", workers=workers,
                        timeout_s=comparison.a.config.settings.render_timeout_s)
    pairs = _Pairs(comparison, sources, store)
    label_a, label_b = comparison.labels
    notes = [*comparison.notes, sources.note]
    outcomes = ", ".join(f"{name}: {count}" for name, count in comparison.outcomes.items())
    sections = []
    for metric, shown in comparison.largest.items():
        if not shown:
            continue
        higher = comparison.a.higher_is_better(metric)
        cards = "".join(pairs.card(pair, comparison.labels, higher) for pair in shown)
        sections.append(f"<h3>{esc(metric)}: the {len(shown)} samples that differ most</h3>"
                        f'<div class="pairs">{cards}</div>')
    body = (
        f"<header><h1>{esc(label_a)} vs {esc(label_b)}</h1><p class=\"sub\">"
        f"{esc(comparison.a.config.task)}: A = {esc(_side(label_a, comparison.a))}, "
        f"B = {esc(_side(label_b, comparison.b))}</p></header>"
        + "".join(f'<p class="note">{esc(note)}</p>' for note in notes if note)
        + f"<p>outcomes: {esc(outcomes)}</p><h2>Paired differences (B − A)</h2>"
        + '<p class="hint">mean over samples where both runs have a value; bootstrap 95% '
        "interval of the mean difference; ↑/↓: higher/lower is better</p>"
        + table(HEADER, ([esc(cell) for cell in _row(m)] for m in comparison.metrics), "paired")
        + "<h2>Samples that differ most</h2>" + ("".join(sections) or "<p>No sample differs.</p>")
    )
    page = out_dir / "index.html"
    page.write_text(document(f"svgeval compare: {label_a} vs {label_b}", body), encoding="utf-8")
    copy_assets(out_dir)
    record = {
        "a": str(comparison.a.root), "b": str(comparison.b.root),
        "metrics": [dataclasses.asdict(metric) for metric in comparison.metrics],
        "largest": {name: [dataclasses.asdict(p) for p in shown]
                    for name, shown in comparison.largest.items()},
        "outcomes": comparison.outcomes, "notes": comparison.notes,
    }
    (out_dir / "comparison.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    return page
