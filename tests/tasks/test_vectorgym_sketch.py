"""The sketch maker and ``svgeval vectorgym build``: seeded pencil sketches of any SVG."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
from PIL import Image
from support.vectorgym_data import BLUE, RED
from typer.testing import CliRunner

from svgeval.builders.vectorgym.sketch import sketch_svg
from svgeval.cli import app
from svgeval.render.isolated import Renderer
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.vectorgym.image_tasks import VectorGymSketch, VectorGymText


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=float) / 255


def test_sketches_are_seeded_strokes_without_fills(renderer: Renderer) -> None:
    first = sketch_svg(RED, renderer, seed=1, key="red")
    assert first is not None and first == sketch_svg(RED, renderer, seed=1, key="red")
    assert first != sketch_svg(RED, renderer, seed=2, key="red")
    assert first != sketch_svg(RED, renderer, seed=1, key="other")
    image = pixels(first)
    ink = image < 0.5
    assert image.shape == (512, 512) and 0.002 < ink.mean() < 0.1  # lines, not areas
    assert image[200:312, 200:312].min() == 1.0  # the square's inside stays white: no fill
    # the strokes follow the square's outline (64 -> 448 px at 512 / 64 scale), jittered
    rows, cols = np.nonzero(ink)
    assert 50 < rows.min() < 80 and 432 < rows.max() < 462 and 50 < cols.min() < 80
    assert sketch_svg('<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>', renderer) is None


def test_build_writes_a_dataset_every_task_reads(tmp_path: Path) -> None:
    icons = tmp_path / "icons"
    icons.mkdir()
    (icons / "red.svg").write_text(RED)
    (icons / "blue.svg").write_text(BLUE)
    (icons / "broken.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>')
    captions = tmp_path / "captions.json"
    captions.write_text(json.dumps({"red": "a red square"}))
    out = tmp_path / "bench"
    result = CliRunner().invoke(app, ["vectorgym", "build", str(icons), "--out", str(out),
                                      "--seed", "3", "--captions", str(captions)])
    assert result.exit_code == 0, result.output
    assert "does not render" in result.output
    samples = VectorGymSketch(CommonOptions(data=out)).load()
    assert [s.id for s in samples] == ["blue", "red"] and samples[1].reference == RED
    with Renderer() as renderer:
        expected = sketch_svg(RED, renderer, seed=3, key="red")
    assert expected is not None
    url = samples[1].messages[0]["content"][1]["image_url"]["url"]
    assert url.endswith(__import__("base64").b64encode(expected).decode())
    assert [s.id for s in VectorGymText(CommonOptions(data=out)).load()] == ["red"]
