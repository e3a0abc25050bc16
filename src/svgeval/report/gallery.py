"""The data behind a report's gallery: a light index of every sample, and its text on demand.

``data/samples.js`` holds what the gallery filters, sorts and pages through: each sample's id,
group, outcome, the judge's failures (``judge``, only on a sample the judge gave no verdict on
for some metric), metrics and the paths of its renders (a few hundred bytes a sample). The long
texts (prompt, raw response, extracted answer) go to ``data/details-NNNN.js`` files of
:data:`CHUNK` samples each, which the page loads only when a reader opens a sample's details,
so a 10,000-sample run opens as fast as a small one. Both are JSON in script files (pages opened
from disk cannot fetch JSON), escaped by :func:`~svgeval.report.page.script_json`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svgeval.report.page import script_json
from svgeval.report.renders import PageRender, RenderStore, run_failures
from svgeval.report.sources import SampleSources, output_svg
from svgeval.runner.records import SampleRecord, Usage

CHUNK = 50
"""Samples per details file."""
TEXT_LIMIT = 100_000
"""Characters of one text kept in a details file; the rest is in ``samples.jsonl``."""
SHORT_ANSWER = 200
"""An extracted answer shorter than this that is not SVG (an option letter) shows on its card."""


def clip(text: str | None, limit: int = TEXT_LIMIT) -> str | None:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if text is None or len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit:,} more characters in samples.jsonl)"


def prompt_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """Chat messages as plain text, images replaced by a placeholder."""
    parts = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            pieces = [
                str(part.get("text", "")) if part.get("type") == "text" else "[image]"
                for part in content
            ]
            content = "\n".join(pieces)
        parts.append(f"[{message.get('role', 'user')}]\n{content}")
    return "\n\n".join(parts)


def finite(value: float | None) -> float | None:
    """``value``, or None for a missing or NaN value (JSON has no NaN)."""
    return None if value is None or math.isnan(value) else value


def _image(rendered: PageRender | None, missing: str) -> dict[str, str]:
    if rendered is None:
        return {"missing": missing}
    if rendered.src is not None:
        return {"src": rendered.src}
    return {"error": rendered.error or "render failed"}


@dataclass(frozen=True)
class GalleryData:
    """What :func:`write_gallery` wrote: sample count and the folder of its files."""

    n_samples: int
    folder: Path


def _usage_text(usage: Usage | None) -> str:
    """A sample's token counts, or ``not reported`` when its answer came without them."""
    if usage is None:
        return "not reported"
    return f"{usage.prompt_tokens:,} prompt + {usage.completion_tokens:,} completion tokens"


def _details(record: SampleRecord) -> dict[str, Any]:
    timing = record.timing
    return {
        "prompt": clip(prompt_text(record.prompt)),
        "response": clip(record.response),
        "extracted": clip(record.extracted),
        "rule": record.extraction_rule,
        "finish": record.finish_reason,
        "usage": _usage_text(record.usage),
        "timing": f"{timing.attempts} attempt(s), {timing.total_s:.2f} s",
    }


def _judge_failures(record: SampleRecord) -> list[dict[str, Any]]:
    """The judge's failures on a sample: each kind and detail once, with the judged metrics it
    left without a verdict."""
    metrics: dict[tuple[str, str], list[str]] = {}
    for metric, failure in record.judge_failures.items():
        metrics.setdefault((failure.kind, failure.detail), []).append(metric)
    return [{"kind": kind, "detail": clip(detail, 2000), "metrics": names}
            for (kind, detail), names in metrics.items()]


def _entry(
    index: int,
    record: SampleRecord,
    sources: SampleSources,
    store: RenderStore,
    renders: dict[str, PageRender],
    svg_task: bool,
) -> dict[str, Any]:
    failure = record.failure
    entry: dict[str, Any] = {
        "id": record.id,
        "group": record.group,
        "kind": failure.kind.value if failure else None,
        "tag": failure.tag if failure else None,
        "detail": clip(failure.detail, 2000) if failure else None,
        "m": {name: finite(value) for name, value in record.metrics.items()},
        "chunk": index // CHUNK,
        "img": {},
    }
    if record.judge_failures:
        entry["judge"] = _judge_failures(record)
    extracted = record.extracted
    if extracted is not None and output_svg(record) is None and len(extracted) < SHORT_ANSWER:
        entry["answer"] = extracted
    if record.expected is not None:
        entry["expected"] = record.expected
    images: dict[str, dict[str, str]] = entry["img"]
    input_svg = sources.input_svg(record.id)
    if input_svg is not None:
        images["input"] = _image(store.lookup(renders, input_svg), "")
    if svg_task:
        images["output"] = _image(store.lookup(renders, output_svg(record)), "no SVG in the answer")
        if sources.available:
            reference = store.lookup(renders, sources.reference_svg(record.id))
            images["reference"] = _image(reference, "the reference holds no SVG")
    return entry


def svgs_to_render(samples: Sequence[SampleRecord], sources: SampleSources) -> list[str]:
    """Every SVG the gallery shows: inputs, the model's outputs, references."""
    found: list[str | None] = []
    for record in samples:
        found += [
            sources.input_svg(record.id), output_svg(record), sources.reference_svg(record.id)
        ]
    return [svg for svg in found if svg is not None]


def write_gallery(
    out_dir: Path,
    samples: Sequence[SampleRecord],
    sources: SampleSources,
    store: RenderStore,
    directions: Mapping[str, bool | None],
    groups: Sequence[str],
    page_size: int = 50,
) -> GalleryData:
    """Render what the gallery shows and write ``data/samples.js`` and the details files."""
    renders = store.render_all(svgs_to_render(samples, sources), run_failures(samples))
    svg_task = any(output_svg(record) for record in samples) or any(
        sources.reference_svg(record.id) for record in samples
    )
    entries = [
        _entry(index, record, sources, store, renders, svg_task)
        for index, record in enumerate(samples)
    ]
    kinds = Counter(entry["kind"] for entry in entries if entry["kind"])
    meta = {
        "metrics": [{"name": name, "higher": higher} for name, higher in directions.items()],
        "groups": list(dict.fromkeys([*groups, *(record.group for record in samples)])),
        "kinds": sorted(kinds.items()),
        "pageSize": page_size,
    }
    folder = out_dir / "data"
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("details-*.js"):
        stale.unlink()
    index_js = f"window.SVGEVAL = {script_json({'meta': meta, 'samples': entries})};\n"
    (folder / "samples.js").write_text(index_js, encoding="utf-8")
    for chunk in range(0, len(samples), CHUNK):
        details = {record.id: _details(record) for record in samples[chunk : chunk + CHUNK]}
        number = chunk // CHUNK
        (folder / f"details-{number:04d}.js").write_text(
            f"window.svgevalDetails({number}, {script_json(details)});\n", encoding="utf-8"
        )
    return GalleryData(n_samples=len(samples), folder=folder)
