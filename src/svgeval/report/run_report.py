"""``svgeval report RUN``: one run as a static page, ``RUN/report/index.html``.

The summary comes first and needs no script: what was run, the metrics of ``results.json`` with
their sample counts and bootstrap intervals, the failures by kind and reason, the judge's failures
(judged metrics without a verdict) by kind and reason, and the per-group distribution plots. The
gallery below it shows one card per sample (input, the model's render and the reference, the
metrics, the failure, the judge's failures, the prompt and raw response on demand) with filters,
sorting and pages, from the files of :mod:`svgeval.report.gallery`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svgeval.report.gallery import write_gallery
from svgeval.report.page import copy_assets, document, esc, table
from svgeval.report.plots import Plot, distribution_plots
from svgeval.report.renders import RenderCounts, RenderStore
from svgeval.report.runs import LoadedRun
from svgeval.report.sources import SampleSources
from svgeval.report.summary import (
    BEST_AT_NOTE,
    arrow,
    format_metric,
    has_best_at,
    judge_failures_note,
)
from svgeval.runner.records import SampleRecord
from svgeval.tasks.outcome import JudgeFailure, JudgeFailureKind

REASONS_SHOWN = 10
"""Reasons of judge failures listed one by one; the others are counted on one row."""

FailedVerdicts = Mapping[tuple[JudgeFailureKind, str], list[tuple[str, str]]]
"""Judge failures by (kind, reason): the (sample id, metric) pairs left without a verdict."""

GALLERY = """
<section id="gallery">
<h2>Samples</h2>
<form class="controls" id="controls">
<label>Group <select id="f-group"></select></label>
<label>Outcome <select id="f-outcome"></select></label>
<label>Sort <select id="f-sort"></select></label>
<label>Show only the first <input id="f-limit" type="number" min="1" placeholder="all"></label>
<button type="button" id="f-worst">Worst 20</button>
<label>Per page <select id="f-page-size"></select></label>
</form>
<div class="status"><span id="g-status"></span><span class="pager" id="pager-top"></span></div>
<div id="cards" class="cards"></div>
<div class="status"><span></span><span class="pager" id="pager-bottom"></span></div>
<noscript><p class="note">The gallery needs JavaScript; the summary above does not.</p></noscript>
</section>
"""


@dataclass(frozen=True)
class ReportBuild:
    """What :func:`build_report` wrote."""

    index: Path
    """The page."""
    n_samples: int
    """Cards in the gallery."""
    renders: RenderCounts
    """Renders drawn for this build and reused from an earlier one."""


def _options(options: dict[str, Any]) -> str:
    """``tier=all, seed=0, extract=svgeditbench``: the task's options on one line."""
    flat = {key: value for key, value in options.items() if key != "set"}
    flat.update(options.get("set") or {})
    return ", ".join(f"{key}={value}" for key, value in flat.items())


def _tokens(run: LoadedRun) -> str:
    """The run's token totals, or ``not reported`` where no answer came with token counts."""
    usage = run.results.usage
    counts = f"{usage.prompt_tokens:,} prompt, {usage.completion_tokens:,} completion"
    if usage.n_reported is None:  # a results.json written before the answers were counted
        return counts
    if usage.n_reported == 0:
        return "not reported (no answer came with token counts)"
    if usage.n_reported < run.n_answered:
        return f"{counts} (reported for {usage.n_reported:,} of {run.n_answered:,} answers)"
    return counts


def _judge_reason(failure: JudgeFailure) -> str:
    """What a judge failure is counted under: the error of a failed request; for a reply without
    a verdict, that (each reply differs; its card shows the reply's end)."""
    return failure.detail if failure.kind == "error" else "no verdict in the reply"


def _failed_verdicts(samples: Sequence[SampleRecord]) -> FailedVerdicts:
    """The verdicts the judge did not give in ``samples``, the most frequent reason first."""
    found: dict[tuple[JudgeFailureKind, str], list[tuple[str, str]]] = {}
    for record in samples:
        for metric, failure in record.judge_failures.items():
            found.setdefault((failure.kind, _judge_reason(failure)), []).append((record.id, metric))
    return dict(sorted(found.items(), key=lambda item: -len(item[1])))


def _judge(run: LoadedRun, failed: FailedVerdicts) -> str:
    """The judge and, when it failed, how often (``svgeval report`` counts the records shown)."""
    config = run.config
    judge = f"{config.judge}" + (f" at {config.judge_base_url}" if config.judge_base_url else "")
    by_kind: Counter[JudgeFailureKind] = Counter()
    for (kind, _), pairs in failed.items():
        by_kind[kind] += len(pairs)
    note = judge_failures_note(by_kind)
    return f"{judge}: {note}, see Judge failures" if note else judge


def _meta(run: LoadedRun, failed: FailedVerdicts) -> str:
    config, results = run.config, run.results
    items = [
        ("task", f"{config.task} (version {config.task_version})"),
        ("model", config.model + (f" at {config.base_url}" if config.base_url else "")),
        *([("judge", _judge(run, failed))] if config.judge else []),
        ("samples", f"{results.n} of {results.n_expected}"
                    + ("" if results.complete else f" ({results.n_missing} missing)")),
        ("answered", f"{run.n_answered} of {results.n_expected}"),
        ("valid outputs", str(results.n_valid)),
        ("task options", _options(config.task_options)),
        ("data", f"{config.data or 'downloaded release'} (hash {config.dataset_hash[:12]})"),
        ("tokens", _tokens(run)),
        ("started", config.created_at),
        ("svgeval", results.svgeval_version),
    ]
    cells = "".join(f"<dt>{esc(key)}</dt><dd>{esc(value)}</dd>" for key, value in items)
    return f'<dl class="meta">{cells}</dl>'


def _notes(run: LoadedRun, sources: SampleSources) -> str:
    notes = [sources.note, *run.notes]
    if run.incomplete:
        notes.append(
            f"this run is {run.incomplete}: {run.results.n_missing} samples have no record and "
            f"{run.results.n - run.n_answered} a request that failed "
            "(`svgeval run ... --resume` asks them again)"
        )
    notes += [f"{metric} not computed: {why}" for metric, why in run.results.not_computed.items()]
    return "".join(f'<p class="note">{esc(note)}</p>' for note in notes if note)


def _metric_cell(run: LoadedRun, key: str) -> str:
    value = run.results.metrics.get(key)
    if key not in run.results.metrics:
        return ""
    info = run.info(key)
    stats = run.results.stats.get(key)
    extra = ""
    if stats is not None:
        interval = stats.ci95
        if interval is not None:
            low, high = (format_metric(bound, info) for bound in interval)
            extra += f'<span class="ci">[{esc(low)}, {esc(high)}]</span>'
        extra += f'<span class="n">n = {stats.n}</span>'
    return f'<span class="v">{esc(format_metric(value, info))}</span>{extra}'


def _metrics_table(run: LoadedRun) -> str:
    groups = run.groups()
    names = list(dict.fromkeys(key.rsplit("/", 1)[-1] for key in run.results.metrics))
    header = ["group", "n", "valid", "invalid"] + [
        name + arrow(run.info(name)) for name in names
    ]
    rows = []
    for group in groups:
        count = run.results.counts.get(group)  # None for a group of summary numbers only
        rows.append(
            [esc(group)]
            + (["", "", ""] if count is None else [esc(count.n), esc(count.n_valid),
                                                   esc(count.n_invalid)])
            + [_metric_cell(run, f"{group}/{name}") for name in names]
        )
    return table(header, rows, "metrics")


def _failures_table(run: LoadedRun, judge_failed: bool) -> str:
    counts = run.results.counts
    tags = sorted({tag for count in counts.values() for tag in count.failures})
    if not tags and judge_failed:
        return ("<p>No failures of the model's outputs: every output was used. The judge's "
                "failures are under Judge failures.</p>")
    if not tags:
        return '<p class="ok">No failures: every output was used.</p>'
    rows = [
        [esc(group)] + [esc(count.failures.get(tag, "")) for tag in tags]
        for group, count in counts.items()
    ]
    totals = [sum(count.failures.get(tag, 0) for count in counts.values())
              for tag in tags]
    rows.append(["<b>all</b>"] + [f"<b>{total}</b>" for total in totals])
    return table(["group", *tags], rows, "failures")


def _judge_failures(run: LoadedRun, failed: FailedVerdicts) -> str:
    """Judge failures by kind and reason, each with the judged metrics it left without a
    verdict, their samples and metrics; nothing when the judge gave every verdict."""
    if not failed:
        return ""
    rows = []
    for (kind, reason), pairs in list(failed.items())[:REASONS_SHOWN]:
        samples = {sample for sample, _ in pairs}
        metrics = ", ".join(sorted({metric for _, metric in pairs}))
        rows.append([esc(kind), esc(reason), esc(len(pairs)), esc(len(samples)), esc(metrics)])
    others = list(failed.values())[REASONS_SHOWN:]
    if others:
        rows.append(["", esc(f"{len(others)} other reasons"), esc(sum(map(len, others))), "", ""])
    n_failed = sum(map(len, failed.values()))
    n_samples = len({sample for pairs in failed.values() for sample, _ in pairs})
    scope = " (epoch 1: the samples below)" if run.results.epochs is not None else ""
    return (
        f"<h3>Judge failures</h3><p class=\"note\">The judge {esc(run.config.judge)} gave no "
        f"verdict for {n_failed} judged metrics of {n_samples} samples{scope}: these are the "
        "judge's failures, not the model's outputs failing; those metrics are n/a on their "
        "samples and left out of the means. Kinds: error, the request failed for good "
        "(<code>--resume</code> asks again); unparsed, the reply held no verdict. The replies "
        "and errors are in judgments.jsonl.</p>"
        + table(["kind", "reason", "judged metrics", "samples", "metrics"], rows,
                "judge-failures")
    )


def _plots(plots: list[Plot], out_dir: Path) -> str:
    figures = "".join(
        f'<figure><a href="{esc(plot.svg.relative_to(out_dir).as_posix())}">'
        f'<img src="{esc(plot.png.relative_to(out_dir).as_posix())}" alt="{esc(plot.title)}">'
        f'</a><figcaption>{esc(plot.title)} · <a href="{esc(plot.svg.relative_to(out_dir).as_posix())}">'
        f"SVG</a></figcaption></figure>"
        for plot in plots
    )
    return f'<div class="plots">{figures}</div>' if figures else ""


def build_report(
    run: LoadedRun, out_dir: Path, sources: SampleSources, workers: int | None = None
) -> ReportBuild:
    """Write the report of ``run`` into ``out_dir`` (renders are reused from an earlier build)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    directions = {name: run.higher_is_better(name) for name in run.metric_names()}
    store = RenderStore(
        out_dir / "renders", workers=workers, timeout_s=run.config.settings.render_timeout_s
    )
    samples = sources.in_data_order(run.samples)
    gallery = write_gallery(out_dir, samples, sources, store, directions, run.groups())
    plots = distribution_plots(samples, directions, out_dir / "plots", run.groups())
    title = f"{run.config.task} · {run.config.model}"
    best_at = f"; {BEST_AT_NOTE}" if has_best_at(run.config.task, run.results.metrics) else ""
    if run.incomplete:
        title += f" · {run.incomplete}"
    failed = _failed_verdicts(run.samples)
    body = (
        f"<header><h1>{esc(title)}</h1><p class=\"sub\">svgeval report of "
        f"<code>{esc(run.root)}</code></p></header>\n"
        f"<section id=\"summary\"><h2>Summary</h2>{_meta(run, failed)}{_notes(run, sources)}"
        f"<h3>Metrics</h3><p class=\"hint\">mean, bootstrap 95% interval, values averaged; "
        f"↑/↓: higher/lower is better{best_at}</p>{_metrics_table(run)}"
        f"<h3>Failures by kind</h3>{_failures_table(run, bool(failed))}"
        f"{_judge_failures(run, failed)}{_plots(plots, out_dir)}</section>\n{GALLERY}"
    )
    index = out_dir / "index.html"
    index.write_text(
        document(f"svgeval report: {title}", body, ["data/samples.js", "report.js"]),
        encoding="utf-8",
    )
    copy_assets(out_dir)
    return ReportBuild(index=index, n_samples=gallery.n_samples, renders=store.counts)
