"""A sketch maker: any SVG as a hand-drawn-looking raster sketch, and a VectorGym-layout dataset.

VectorGym's sketches were drawn by people (paper Sec. 3.1); this module makes stand-ins so that
Sketch2SVG runs on any SVG collection offline. The SVG is rendered (CairoSVG, isolated, on
white); the outlines of its shapes are traced as iso-contours at 0.5 of each colour channel
(``skimage.measure.find_contours``), thinned to every few points, displaced by seeded smooth
noise (a random walk, a few pixels) and drawn as dark pencil strokes with no fills, each stroke
twice with independent jitter, as a quick hand sketch. The same SVG, id and seed always give
the same PNG.

:func:`build_dataset` writes ``OUT/data/test-00000-of-00001.parquet`` with the dataset card's
columns (:data:`~svgeval.tasks.vectorgym.data.COLUMNS`): the sketch, the original SVG, and the
caption slot (empty unless a caption file fills it).
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw

from svgeval.builders.skips import SkipLog
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage, RenderFailure
from svgeval.tasks.vectorgym.data import COLUMNS

if TYPE_CHECKING:
    import pyarrow as pa

SKETCH_SIZE = 512
STEP = 4
"""Keep every STEP-th contour point: fewer points look more hand-drawn."""
JITTER_PX = 1.2
"""Standard deviation of each step of the stroke's random walk, in pixels."""
MIN_POINTS = 6
INK = (40, 40, 40)


def _strokes(image: FloatImage) -> list[NDArray[np.float64]]:
    """The outlines of the drawing: contours at 0.5 of each channel, (row, col) points."""
    from skimage.measure import find_contours

    contours: list[NDArray[np.float64]] = []
    for channel in range(3):
        plane = image[..., channel]
        if float(plane.max() - plane.min()) < 0.25:
            continue
        contours += [c for c in find_contours(plane, 0.5)  # type: ignore[no-untyped-call]
                     if len(c) >= MIN_POINTS * STEP // 2]
    return contours


def _jittered(points: NDArray[np.float64], rng: np.random.Generator) -> list[tuple[float, float]]:
    """Every STEP-th point (x, y) displaced by a smooth random walk clipped to 3 px."""
    thinned = points[::STEP] if len(points) > 2 * STEP else points
    walk = np.clip(np.cumsum(rng.normal(0.0, JITTER_PX, size=thinned.shape), axis=0), -3, 3)
    moved = thinned + walk
    return [(float(x), float(y)) for y, x in moved]


def sketch_image(image: FloatImage, seed: int) -> bytes:
    """A pencil sketch (PNG, RGB, white background) of a render in [0, 1]."""
    rng = np.random.default_rng(seed)
    height, width = image.shape[:2]
    canvas = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(canvas)
    for contour in _strokes(image):
        for _ in range(2):
            points = _jittered(contour, rng)
            if len(points) >= 2:
                draw.line(points, fill=INK, width=int(rng.integers(1, 3)), joint="curve")
    buffer = io.BytesIO()
    canvas.save(buffer, "PNG")
    return buffer.getvalue()


def sketch_svg(svg: str, renderer: Renderer, seed: int = 0, key: str = "") -> bytes | None:
    """The sketch of ``svg`` (seeded by ``seed`` and ``key``), or None when it does not render."""
    rendered = renderer.render(svg, RenderSpec.square(SKETCH_SIZE, background="white"))
    if isinstance(rendered, RenderFailure):
        return None
    return sketch_image(rendered.floats, seed * 1_000_003 + zlib.crc32(key.encode("utf-8")))


def build_dataset(
    svgs: Mapping[str, str], out: Path, renderer: Renderer, seed: int = 0,
    captions: Mapping[str, str] | None = None, skipped: SkipLog | None = None,
) -> Path:
    """Write the VectorGym-layout parquet file of ``svgs`` (id -> SVG) under ``out``; an SVG
    that does not render is left out (counted in ``skipped``). Returns the file."""
    rows = []
    for svg_id, svg in sorted(svgs.items()):
        png = sketch_svg(svg, renderer, seed, svg_id)
        if png is None:
            if skipped is not None:
                skipped.add(svg_id, "does not render")
            continue
        rows.append({
            "svg_id": svg_id, "sketch_category": "generated",
            "text_caption": (captions or {}).get(svg_id),
            "sketch_image": {"bytes": png, "path": f"{svg_id}.png"},
            "editing_prompt": None, "editing_target_svg": None, "split": "test",
            "editing_annotation_index": None, "original_svg": svg, "is_chart": False,
        })
    return write_parquet(out / "data" / "test-00000-of-00001.parquet", rows)


def schema() -> pa.Schema:
    """The dataset card's columns and types (``sketch_image``: the ``datasets`` Image struct)."""
    import pyarrow as pa

    columns = pa.schema([
        ("svg_id", pa.string()), ("sketch_category", pa.string()),
        ("text_caption", pa.string()),
        ("sketch_image", pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
        ("editing_prompt", pa.string()), ("editing_target_svg", pa.string()),
        ("split", pa.string()), ("editing_annotation_index", pa.int64()),
        ("original_svg", pa.string()), ("is_chart", pa.bool_()),
    ])
    assert tuple(columns.names) == COLUMNS
    return columns


def write_parquet(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    """``rows`` (dicts keyed by the card's columns) as a parquet file at ``path``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(list(rows), schema=schema()), path)
    return path
