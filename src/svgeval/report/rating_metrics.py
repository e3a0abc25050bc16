"""Metric values for the rows of a ratings file (``svgeval correlate --metrics``), batched and
cached.

Each row's reference and generated SVG are rendered on white through the isolated renderer (an
SVG that does not render is drawn as a white canvas, as people see it) and scored by the
metric functions of :mod:`svgeval.metrics`:

* ``svgauge``: ``svgauge_si`` and ``svgauge_st`` (:mod:`svgeval.metrics.svgauge`, TF-IDF fitted
  on the file's prompts), combined as ``alpha x S_I + beta x S_T``;
* ``clip``: CLIP score of the generated render and the prompt (the ``svgauge`` preset,
  ViT-B/32, reference-free); ``dino``: DINOv2 similarity of the renders; ``lpips``: LPIPS of
  the renders (lower is better).

Values are appended to a JSONL cache keyed by a hash of the metric, the row's texts (and, for
S_T, the prompts the TF-IDF is fitted on), so a second run computes only what is new.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from svgeval.metrics.clip import clip_score
from svgeval.metrics.dino import dino
from svgeval.metrics.lpips import lpips
from svgeval.metrics.model_settings import ModelSettings, chosen
from svgeval.metrics.registry import MetricUnavailable
from svgeval.metrics.svgauge import (
    caption,
    combine,
    load_encoder,
    load_projection,
    load_projection_file,
    semantic_similarity,
    visual_similarity,
)
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import Picture

Row = dict[str, Any]
Images = list[np.ndarray]
CHUNK = 256
COLUMNS: Mapping[str, tuple[str, ...]] = {
    "svgauge": ("svgauge_si", "svgauge_st"),
    "clip": ("clip",),
    "dino": ("dino",),
    "lpips": ("lpips",),
}
"""The columns each computable metric fills (``svgauge`` is then combined from its parts)."""


def draw(svgs: Sequence[str], size: int, renderer: Renderer) -> Images:
    """Renders at ``size`` px on white; a white canvas for an SVG that does not render."""
    white = np.ones((size, size, 3))
    images = []
    for svg in svgs:
        drawn = renderer.render(svg, RenderSpec.square(size, background="white"))
        images.append(drawn.floats if isinstance(drawn, Picture) else white)
    return images


def _key(metric: str, row: Mapping[str, Any], corpus_hash: str) -> str:
    text = "\x00".join([metric, str(row["prompt"]), str(row["reference"]),
                        str(row["generated"]), corpus_hash if metric == "svgauge" else ""])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_cache(path: Path) -> dict[str, dict[str, float | None]]:
    """Cached values by key (a cut-off last line is ignored)."""
    cache: dict[str, dict[str, float | None]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            cache[entry["key"]] = entry["values"]
    return cache


def _svgauge_parts(rows: Sequence[Row], prompts: Sequence[str], renderer: Renderer,
                   batch_size: int, device: str | None,
                   how: ModelSettings) -> list[dict[str, float | None]]:
    load_projection_file(model_settings=how)  # stop before loading a network when there is none
    encoder = load_encoder(device=device, model_settings=how)
    projection = load_projection(encoder)
    size = encoder.input_size
    generated = draw([r["generated"] for r in rows], size, renderer)
    s_i = visual_similarity(draw([r["reference"] for r in rows], size, renderer), generated,
                            encoder=encoder, projection=projection, batch_size=batch_size)
    captions = caption(generated, device=device, batch_size=batch_size, model_settings=how)
    s_t = semantic_similarity([r["prompt"] for r in rows], captions, corpus=prompts,
                              device=device, batch_size=batch_size, model_settings=how)
    return [{"svgauge_si": i, "svgauge_st": t} for i, t in zip(s_i, s_t)]


def _image_metric(name: str, rows: Sequence[Row], renderer: Renderer, batch_size: int,
                  device: str | None, how: ModelSettings) -> list[dict[str, float | None]]:
    options: dict[str, Any] = {"preset": "svgauge", "device": device, "batch_size": batch_size,
                               "model_settings": how}
    generated = draw([r["generated"] for r in rows], 224, renderer)
    if name == "clip":
        values = clip_score(generated, [r["prompt"] for r in rows], **options)
    else:
        references = draw([r["reference"] for r in rows], 224, renderer)
        values = (dino if name == "dino" else lpips)(references, generated, **options)
    return [{name: v} for v in values]


def compute_metrics(rows: list[Row], names: Sequence[str], cache_path: Path,
                    renderer: Renderer, *, alpha: float, beta: float, batch_size: int = 32,
                    device: str | None = None, model_settings: ModelSettings | None = None,
                    warn: Callable[[str], None] = lambda line: None) -> None:
    """Fill the columns of each metric in ``names`` into ``rows`` (in place), from the cache
    or computed in chunks that are appended to it; a metric that cannot run here is left empty
    and ``warn`` says why. ``model_settings``: the metrics' local weights (``--model-path``),
    precision and preprocessing (default: from the environment)."""
    how = chosen(model_settings)
    prompts = [str(row["prompt"]) for row in rows]
    corpus_hash = hashlib.sha256("\x00".join(prompts).encode("utf-8")).hexdigest()
    cache = read_cache(cache_path)
    for name in names:
        keys = [_key(name, row, corpus_hash) for row in rows]
        todo = [i for i, key in enumerate(keys) if key not in cache]
        try:
            for start in range(0, len(todo), CHUNK):
                chunk = [rows[i] for i in todo[start : start + CHUNK]]
                found = (_svgauge_parts(chunk, prompts, renderer, batch_size, device, how)
                         if name == "svgauge"
                         else _image_metric(name, chunk, renderer, batch_size, device, how))
                with cache_path.open("a", encoding="utf-8") as handle:
                    for i, values in zip(todo[start : start + CHUNK], found):
                        cache[keys[i]] = values
                        handle.write(json.dumps({"key": keys[i], "values": values}) + "\n")
        except MetricUnavailable as error:
            warn(f"{name} not computed: {error}")
        for row, key in zip(rows, keys):
            row.update(cache.get(key, dict.fromkeys(COLUMNS[name])))
    if "svgauge" in names:
        parts = combine([r["svgauge_si"] for r in rows], [r["svgauge_st"] for r in rows],
                        alpha, beta)
        for row, value in zip(rows, parts):
            row["svgauge"] = value
