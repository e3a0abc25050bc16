"""StarVector SVG-Bench: the oracle and a wrong baseline through ``svgeval run`` on parquet files
in the hub's schema (tiny CLIP/DINO/LPIPS), the released pixel metrics by
hand, and the data errors a user can hit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.released_answers import answered
from support.vectorgym_data import BLUE, RED
from typer.testing import CliRunner

from svgeval.builders.starvector.builtin import write_rows as write
from svgeval.cli import app
from svgeval.metrics.pixel import masked_mse
from svgeval.render.isolated import Renderer
from svgeval.tasks.base import CommonOptions, Sample
from svgeval.tasks.common import CaptionedReference
from svgeval.tasks.starvector import tasks
from svgeval.tasks.starvector.data import load_rows
from svgeval.tasks.starvector.tasks import StarVectorImg2Svg, StarVectorText2Svg

cli = CliRunner()


def bench_file(path: Path) -> Path:
    return write(path, [
        {"Filename": "a.svg", "Svg": RED, "caption_blip2": "a red square",
         "caption_llava": "a red square icon"},
        {"Filename": "b.svg", "Svg": BLUE, "caption_blip2": "a blue circle",
         "caption_llava": "a blue circle icon"},
    ])


@pytest.fixture()
def tiny_weights(monkeypatch: pytest.MonkeyPatch, tiny_dino_dir: Path, tiny_clip_dir: Path,
                 tiny_lpips_dir: Path) -> None:
    """Tiny DINO, CLIP and LPIPS (the real VGG is checked in tests/metrics); no hub."""
    pytest.importorskip("torch")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("SVGEVAL_DINO_MODEL", str(tiny_dino_dir))
    monkeypatch.setenv("SVGEVAL_CLIP_MODEL", str(tiny_clip_dir))
    monkeypatch.setenv("SVGEVAL_CLIP_FID_MODEL", str(tiny_clip_dir))
    monkeypatch.setenv("SVGEVAL_LPIPS_MODEL", str(tiny_lpips_dir))


def run(task: str, model: str, data: Path, out: Path, *extra: str) -> dict[str, Any]:
    args = ["run", task, "--data", str(data), "--model", model, "--out", str(out),
            "--render-workers", "2", *extra]
    outcome = cli.invoke(app, args)
    assert outcome.exit_code == 0, outcome.output
    results: dict[str, Any] = json.loads((out / "results.json").read_text())
    return results


def test_img2svg_oracle_is_perfect_and_identity_scores_lower(
        tmp_path: Path, tiny_weights: None) -> None:
    data = bench_file(tmp_path / "test-00000-of-00001.parquet")
    best = run("starvector-img2svg", "oracle", data, tmp_path / "oracle")["metrics"]
    for key in ("l2", "masked_l2", "l2_worst"):
        assert best[f"svg-stack/{key}"] == 0.0
    assert best["svg-stack/ssim"] == pytest.approx(1.0)
    assert best["svg-stack/lpips"] == pytest.approx(0.0, abs=1e-6)
    assert best["svg-stack/lpips_standard"] == pytest.approx(0.0, abs=1e-6)
    assert best["svg-stack/dino"] == pytest.approx(1.0, abs=1e-6)
    assert best["svg-stack/clip_fid"] == pytest.approx(0.0, abs=1e-3)
    # identity answers nothing here (no input SVG): a white canvas, the released reading
    worse = run("starvector-img2svg", "identity", data, tmp_path / "wrong")["metrics"]
    assert worse["svg-stack/l2"] > 0.05 and worse["svg-stack/ssim"] < 1.0
    assert worse["svg-stack/lpips"] > 0.01 and worse["svg-stack/dino"] < 1.0
    assert worse["svg-stack/l2_worst"] == 1.0 and worse["svg-stack/ssim_worst"] == 0.0
    assert worse["svg-stack/clip_fid"] > 0.0
    assert worse["svg-stack/masked_l2"] == 0.0  # the released Masked-L2 rewards a blank answer


def test_text2svg_oracle_beats_a_wrong_answer(tmp_path: Path, tiny_weights: None) -> None:
    data = bench_file(tmp_path / "t.parquet")
    best = run("starvector-text2svg", "oracle", data, tmp_path / "oracle")["metrics"]
    assert best["text2svg-stack/clip_fid"] == pytest.approx(0.0, abs=1e-3)
    assert best["text2svg-stack/clip_score"] is not None
    worse = run("starvector-text2svg", "identity", data, tmp_path / "wrong")["metrics"]
    assert worse["text2svg-stack/clip_fid"] > 0.0
    assert worse["text2svg-stack/clip_score_worst"] == 0.0


def test_pixel_metrics_follow_the_released_formulas(renderer: Renderer) -> None:
    task = StarVectorImg2Svg(CommonOptions())
    sample = Sample("a", "svg-stack", [], RED, target=CaptionedReference(reference=RED, caption=""))
    score = task.score(sample, BLUE, renderer)
    red, blue = (renderer.render(s, tasks.RENDER).floats for s in (RED, BLUE))
    assert red is not None and blue is not None
    assert score.metrics["l2"] == pytest.approx(float(np.mean((red - blue) ** 2)))
    both = ((red < 1).any(-1) & (blue < 1).any(-1))[..., None]
    assert score.metrics["masked_l2"] == pytest.approx(float(np.mean((red * both - blue * both)
                                                                     ** 2)))
    broken = task.score(sample, "<svg><rect></svg>", renderer)
    assert broken.failure is not None and broken.metrics["ssim_worst"] == 0.0


def test_answers_as_given_repaired_or_white_and_the_options(renderer: Renderer) -> None:
    task = StarVectorImg2Svg(CommonOptions())
    sample = Sample("a", "svg-stack", [], RED, target=CaptionedReference(reference=RED, caption=""))
    red = renderer.render(RED, tasks.RENDER).floats
    assert red is not None
    white_l2 = float(np.mean((red - 1.0) ** 2))
    broken = RED.replace("/>", ">", 1)  # an element left open: repaired, then drawn
    repaired = task.score(sample, broken, renderer)
    assert repaired.valid and repaired.extraction_rule == "starvector+repaired"
    assert repaired.metrics["l2"] == pytest.approx(0.0, abs=1e-6)
    chat = f"Here it is:\n```svg\n{RED}\n```"  # the release scores the text: the placeholder
    placeholder = task.score(sample, chat, renderer)
    assert placeholder.failure is not None and placeholder.failure.tag == "extract"
    assert placeholder.metrics["l2"] == pytest.approx(white_l2)
    read = StarVectorImg2Svg(CommonOptions(extra={"extract": "auto"})).score(sample, chat, renderer)
    assert read.valid and read.metrics["l2"] == 0.0
    plain = StarVectorImg2Svg(CommonOptions(extra={"repair": "none"}))
    unrepaired = plain.score(sample, broken, renderer)
    assert unrepaired.failure is not None and unrepaired.metrics["l2"] == pytest.approx(white_l2)


# Released values: star-vector (joanrod/star-vector at 0e083c19) SVGValidator.post_process_svg,
# _save_svg_files' rasterize_svg(resolution=512, dpi=100) and SVGMetrics(im2svg.yaml) L2 and SSIM
# on the issue-27 test set (tests/support/released_answers.py: 32 SVGenius icons, sv<i> answered in kind
# KINDS[i % 16]); printed by tests/upstream/starvector.py (issue 27 ran it in a separate virtual
# environment with transformers 4.49.0, which these two metrics do not use); see docs/suites/starvector.md
# "Checked against the released scorer". (L2, SSIM) per sample.
RELEASED_L2_SSIM = {
    "sv0": (0.0, 1.0),
    "sv1": (0.060886841267347336, 0.845793070795894),
    "sv2": (0.08420193940401077, 0.6576446761993506),
    "sv3": (0.0001687776093604043, 0.9876690222020069),
    "sv4": (0.3047143220901489, 0.5923794748691046),
    "sv5": (4.22987022830057e-06, 0.9999356064361055),
    "sv6": (0.04524196311831474, 0.868936372145047),
    "sv7": (0.06944872438907623, 0.8506725138105665),
    "sv8": (0.22022408246994019, 0.6360506156759143),
    "sv9": (0.1307002156972885, 0.670565547751575),
    "sv10": (0.18411703407764435, 0.6742251182659785),
    "sv11": (0.09142494946718216, 0.7277661051623299),
    "sv12": (0.34722790122032166, 0.5927741164388352),
    "sv13": (0.1941991001367569, 0.7002389793971338),
    "sv14": (0.00017237605061382055, 0.995230637494055),
    "sv15": (0.40087470412254333, 0.5051521934912463),
    "sv16": (0.0, 1.0),
    "sv17": (0.031107546761631966, 0.9116173481603047),
    "sv18": (0.3317171335220337, 0.5491679982831619),
    "sv19": (0.002278121653944254, 0.9598199380280371),
    "sv20": (0.04752485081553459, 0.876113487935312),
    "sv21": (9.394238276172473e-08, 0.999994319230134),
    "sv22": (0.09569809585809708, 0.7833339951786434),
    "sv23": (0.15314465761184692, 0.6833351708743148),
    "sv24": (0.10976410657167435, 0.8516179543098333),
    "sv25": (0.2906493544578552, 0.5946215249341119),
    "sv26": (0.06552305072546005, 0.8556601962760011),
    "sv27": (0.3375264108181, 0.6026362738143438),
    "sv28": (0.03549936041235924, 0.8384705922456828),
    "sv29": (0.07692284137010574, 0.8219990270448512),
    "sv30": (0.013548646122217178, 0.9786041658825892),
    "sv31": (0.17863906919956207, 0.5687978047408676),
}


def test_equals_the_released_scorer_on_every_answer_kind(renderer: Renderer) -> None:
    """L2 to 1e-7 (the release's float32 tensors), SSIM exact: the answer as given, the repair
    chain, the white placeholder and dpi 100 all as released."""
    task = StarVectorImg2Svg(CommonOptions())
    answers = answered(32, "sv")
    assert set(answers) == set(RELEASED_L2_SSIM)
    for sample_id, (kind, reference, answer) in answers.items():
        target = Sample(sample_id, "svg-stack", [], reference,
                        target=CaptionedReference(reference=reference, caption=""))
        score = task.score(target, answer, renderer)
        l2, ssim = RELEASED_L2_SSIM[sample_id]
        assert score.metrics["l2"] == pytest.approx(l2, abs=1e-7), (sample_id, kind)
        assert score.metrics["ssim"] == pytest.approx(ssim, abs=1e-12), (sample_id, kind)


def test_masked_mse_by_hand() -> None:
    white = np.ones((1, 2, 3))
    a = white.copy()
    a[0, 0] = 0.0  # black pixel in a, same pixel grey in b; pixel 1 drawn in b only
    b = white.copy()
    b[0, 0] = 0.5
    b[0, 1] = 0.0
    # only pixel 0 is drawn in both: (0 - 0.5)^2 on 3 of 6 values
    assert masked_mse(a, b) == pytest.approx(3 * 0.25 / 6)


def test_captions_are_seeded_released_prefixes(tmp_path: Path) -> None:
    data = bench_file(tmp_path / "t.parquet")
    samples = StarVectorText2Svg(CommonOptions(data=data, seed=3)).load()
    again = StarVectorText2Svg(CommonOptions(data=data, seed=3)).load()
    assert [s.target for s in samples] == [s.target for s in again]
    caption = samples[0].target.caption
    assert caption.startswith(tasks.CAPTION_PREFIXES) and "red square" in caption


def test_data_errors_are_one_line(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.parquet", [{"name": "x", "Svg": RED}])
    with pytest.raises(Exception, match="needs a Filename"):
        load_rows(bad, "svg-stack", "test")
    no_captions = write(tmp_path / "nc.parquet", [{"Filename": "x", "Svg": RED}])
    with pytest.raises(Exception, match="no caption column"):
        StarVectorText2Svg(CommonOptions(data=no_captions)).load()
    with pytest.raises(Exception, match="no test-\\*.parquet"):
        load_rows(tmp_path, "svg-stack", "test")


def test_fid_and_long_captions_follow_the_released_code_by_default() -> None:
    """The released FIDCalculator runs Inception in train mode and torchmetrics cuts caption
    ids at 77 (issue 27; the relations are tested in tests/metrics); both have an option."""
    released = StarVectorText2Svg(CommonOptions()).metric_preset()
    assert (released.fid_batchnorm, released.clip_truncation, released.clip_clamp_zero) == (
        "train", "cut", False)
    other = StarVectorText2Svg(
        CommonOptions(extra={"fid": "eval", "clip_truncation": "eot"})).metric_preset()
    assert (other.fid_batchnorm, other.clip_truncation) == ("eval", "eot")
    assert StarVectorImg2Svg(CommonOptions()).metric_preset().fid_batchnorm == "train"


def test_the_phases_after_the_samples_say_where_they_stand(
        tmp_path: Path, tiny_weights: None) -> None:
    """Each phase after the samples (the model metrics, FID) is said when it starts and counted
    to its end, where the samples' line alone stood still for minutes (issue 43)."""
    data = bench_file(tmp_path / "test-00000-of-00001.parquet")
    outcome = cli.invoke(app, ["run", "starvector-img2svg", "--data", str(data), "--model",
                               "oracle", "--out", str(tmp_path / "run"), "--render-workers", "2",
                               "--metric-batch-size", "1"])
    assert outcome.exit_code == 0, outcome.output
    lines = outcome.output.splitlines()
    assert "model metrics (lpips, lpips_standard, dino): 2 samples" in lines
    assert "set metrics (fid, clip_fid): 1 epochs" in lines
    assert any(line.startswith("set metrics (fid, clip_fid): 1/1 epochs · ") for line in lines)
    assert lines.index("model metrics (lpips, lpips_standard, dino): 2 samples") < lines.index(
        "set metrics (fid, clip_fid): 1 epochs")
