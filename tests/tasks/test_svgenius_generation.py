"""SVGenius text-to-SVG and image-to-SVG: the release, the oracle, failure readings, the batched
metric stage and the image the model receives."""

from __future__ import annotations

import base64
import importlib.util
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.fake_openai_server import FakeOpenAIServer
from svgenius_support import run_task, sample_records, svgenius_root
from typer.testing import CliRunner

from svgeval.cli import app
from svgeval.models.baselines import OracleModel
from svgeval.render.isolated import Renderer
from svgeval.runner.metric_stage import fill_batched_metrics
from svgeval.runner.records import SampleRecord
from svgeval.tasks.base import BatchItem, CommonOptions, MetricContext, Sample
from svgeval.tasks.svgenius.generation_task import CaptionTarget
from svgeval.tasks.svgenius.img2svg import SvgeniusImg2Svg
from svgeval.tasks.svgenius.text2svg import SvgeniusText2Svg

SQUARE = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1024 1024">'
          '<path d="M112 112H912V912H112Z" fill="#d02020"/></svg>')
CIRCLE = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1024 1024">'
          '<path d="M512 112A400 400 0 1 0 512 912A400 400 0 1 0 512 112Z" fill="#2020d0"/></svg>')


def sample(answer: str = SQUARE) -> Sample:
    return Sample("easy/000", "easy", [], f"Answer: {answer}",
                  target=CaptionTarget(caption="a red square", answer=answer))


@pytest.fixture()
def no_weights(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Every model metric looks for its weights in an empty folder (and never on the hub)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for metric in ("CLIP", "AESTHETIC", "HPS", "DINO", "LPIPS"):
        monkeypatch.setenv(f"SVGEVAL_{metric}_MODEL", str(tmp_path / "none"))


def test_failure_readings(renderer: Renderer) -> None:
    task = SvgeniusImg2Svg(CommonOptions())
    good = task.score(sample(), f"Answer: {SQUARE}", renderer)
    assert good.valid and good.metrics["mse"] == 0.0 and good.metrics["pss"] == 100.0
    assert good.metrics["ssim"] == pytest.approx(1.0)
    # no SVG: left out of the paper reading, a white canvas (and PSS 0) in the _all reading
    missing = task.score(sample(), "I cannot draw.", renderer)
    assert missing.failure is not None and missing.failure.tag == "extract"
    assert missing.metrics["mse"] is None and missing.metrics["pss"] is None
    assert missing.metrics["pss_all"] == 0.0 and missing.metrics["mse_all"] > 0.1
    # an SVG that does not render: the released code draws a white canvas and counts it
    broken = task.score(sample(), 'Answer: <svg xmlns="http://www.w3.org/2000/svg"><rect></svg>',
                        renderer)
    assert broken.failure is not None and broken.failure.kind.value == "render"
    assert broken.metrics["mse"] == missing.metrics["mse_all"] == broken.metrics["mse_all"]


@pytest.mark.shared_data
def test_release_loads_every_tier() -> None:
    for task in (SvgeniusText2Svg, SvgeniusImg2Svg):
        samples = task(CommonOptions(data=svgenius_root())).load()
        counts = {tier: sum(1 for s in samples if s.group == tier) for tier in ("easy", "medium",
                                                                               "hard")}
        assert counts == {"easy": 100, "medium": 99, "hard": 100}


@pytest.mark.shared_data
def test_text2svg_oracle_without_weights(tmp_path: Path, no_weights: None) -> None:
    results = run_task(SvgeniusText2Svg, OracleModel(), tmp_path / "r", extra={}, limit=2)
    for tier in ("easy", "medium", "hard"):
        assert results["metrics"][f"{tier}/pss"] == 100.0
        assert results["metrics"][f"{tier}/clip"] is None
    assert {"clip", "rclip", "aes", "hps"} <= set(results["not_computed"])
    if importlib.util.find_spec("torch") is not None:  # the reason names where it looked
        assert str(tmp_path / "none") in results["not_computed"]["clip"]
    else:  # without the models extra it names the extra to install
        assert 'pip install -e ".[models]"' in results["not_computed"]["clip"]


@pytest.mark.shared_data
def test_text2svg_oracle_rclip_is_100_with_a_tiny_clip(
    tmp_path: Path, no_weights: None, tiny_clip_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SVGEVAL_CLIP_MODEL", str(tiny_clip_dir))
    monkeypatch.setenv("SVGEVAL_CLIP_FID_MODEL", str(tiny_clip_dir))
    results = run_task(SvgeniusText2Svg, OracleModel(), tmp_path / "r", limit=2)
    for tier in ("easy", "medium", "hard"):
        assert results["metrics"][f"{tier}/rclip"] == pytest.approx(100.0)
        assert results["metrics"][f"{tier}/clip"] is not None
        # a set-level metric, once per tier: the oracle's renders are the references
        assert results["metrics"][f"{tier}/clip_fid"] == pytest.approx(0.0, abs=1e-4)
    assert "fid" in results["not_computed"]  # no Inception weights here


@pytest.mark.shared_data
def test_img2svg_oracle_with_tiny_models(
    tmp_path: Path, no_weights: None, tiny_dino_dir: Path, tiny_lpips_dir: Path,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SVGEVAL_DINO_MODEL", str(tiny_dino_dir))
    monkeypatch.setenv("SVGEVAL_LPIPS_MODEL", str(tiny_lpips_dir))
    pytest.importorskip("torch")
    results = run_task(SvgeniusImg2Svg, OracleModel(), tmp_path / "r", limit=1)
    for tier in ("easy", "medium", "hard"):
        metrics = {k.split("/")[1]: v for k, v in results["metrics"].items() if k.startswith(tier)}
        assert metrics["mse"] == 0.0 and metrics["ssim"] == pytest.approx(1.0)
        assert metrics["pss"] == 100.0 and metrics["dino"] == pytest.approx(1.0, abs=1e-6)
        assert metrics["lpips"] == pytest.approx(0.0, abs=1e-6)


def test_the_stage_computes_only_what_a_record_lacks(tmp_path: Path, renderer: Renderer) -> None:
    calls: list[int] = []

    class Counting(SvgeniusImg2Svg):
        def batch_score(self, items: Any, context: MetricContext) -> Any:
            calls.append(len(items))
            return super().batch_score(items, context)

    task = Counting(CommonOptions())
    samples = {f"easy/{i:03d}": Sample(f"easy/{i:03d}", "easy", [], "", target=CaptionTarget(
        caption="c", answer=SQUARE)) for i in range(3)}
    done = {(key, 1): SampleRecord(id=key, group="easy", prompt=[], prompt_hash="h",
                                   extracted=CIRCLE, metrics={}) for key in samples}
    done["easy/002", 1] = done["easy/002", 1].model_copy(
        update={"metrics": {"lpips": 0.5, "dino": 0.5}}
    )
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(r.model_dump_json() + "\n" for r in done.values()))
    fill_batched_metrics(task, samples, done, MetricContext(renderer, batch_size=8), path)
    assert calls == [2]
    stored = [json.loads(line) for line in path.read_text().splitlines()]
    assert {r["id"] for r in stored} == set(samples)
    computed = {r["id"]: r["metrics"] for r in stored}
    for key in ("easy/000", "easy/001"):
        assert {"lpips", "lpips_all", "dino", "dino_all"} <= set(computed[key])
    assert computed["easy/002"] == {"lpips": 0.5, "dino": 0.5}  # recorded: left alone
    fill_batched_metrics(task, samples, done, MetricContext(renderer, batch_size=8), path)
    assert calls == [2]  # nothing left to compute


@pytest.mark.shared_data
def test_img2svg_sends_the_released_png_as_a_data_url(tmp_path: Path) -> None:
    with FakeOpenAIServer(reply=lambda body: "no svg") as server:
        result = CliRunner().invoke(app, [
            "run", "svgenius-img2svg", "--data", str(svgenius_root()), "--tier", "easy",
            "--limit", "1", "--out", str(tmp_path / "r"),
            "--model", "openai-compatible:vlm", "--base-url", server.base_url,
        ])
        [request] = server.chat_requests
    assert result.exit_code == 0, result.output
    assert request.body is not None
    text, image = request.body["messages"][0]["content"]
    assert text["type"] == "text" and "reference image" in text["text"]
    url = image["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    item = json.loads((svgenius_root() / "src/tasks/generation/multimodel_svg/"
                       "easy_svg_captions.json").read_text())[0]
    png = svgenius_root() / "src/data/easy/process" / Path(item["image"]).name
    assert base64.b64decode(url.split(",", 1)[1]) == png.read_bytes()
    assert sample_records(tmp_path / "r")[0]["failure"]["kind"] == "extract"


def test_a_group_is_drawn_as_its_batches_are(renderer: Renderer) -> None:
    """The set-level metrics read a group's pictures kept compressed (``drawn_group``): the
    same pictures, stand-ins and validity as the batched stage draws (``drawn``)."""
    task = SvgeniusImg2Svg(CommonOptions())
    answers = [SQUARE, CIRCLE, None, "<svg", CIRCLE]
    items = [BatchItem(sample(SQUARE if i % 2 else CIRCLE), answer, in_paper_reading=True)
             for i, answer in enumerate(answers)]
    group, batch = task.drawn_group(items, renderer, chunk=2), task.drawn(items, renderer)
    assert group.valid == batch.valid == [True, True, False, False, True]
    assert len(group.outputs) == len(group.references) == 5
    for kept, drawn in ((group.outputs, batch.outputs), (group.references, batch.references)):
        assert all(np.array_equal(a, b) for a, b in zip(kept, drawn, strict=True))
        assert [a.dtype for a in kept[1:3]] == [np.dtype(np.uint8)] * 2  # a slice reads too
