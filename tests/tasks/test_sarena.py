"""SArena: the released readings, the composite by hand, and end-to-end runs of the oracle and
the identity baseline on a tiny folder in the unzipped ``SArena.zip`` layout."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.sarena_data import build_sarena
from typer.testing import CliRunner

from svgeval.cli import app
from svgeval.metrics.pixel import psnr, ssim
from svgeval.render.isolated import Renderer
from svgeval.tasks import get_task
from svgeval.tasks.base import CommonOptions, Sample
from svgeval.tasks.options import InvalidOption
from svgeval.tasks.sarena.common import extract_choice, extract_svg
from svgeval.tasks.sarena.composite import composite, composite_from_results
from svgeval.tasks.sarena.edit import running_token_means
from svgeval.tasks.sarena.image_tasks import read_picture


@pytest.fixture(scope="module")
def sarena(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sarena(tmp_path_factory.mktemp("sarena") / "SArena")


@pytest.fixture()
def models(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tiny_clip_dir: Path,
           tiny_dino_dir: Path, tiny_lpips_dir: Path, inception_weights: Path) -> None:
    """Tiny random models for every model metric (the real LPIPS VGG is checked in
    tests/metrics and against the released calculator)."""
    monkeypatch.setenv("SVGEVAL_LPIPS_MODEL", str(tiny_lpips_dir))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("SVGEVAL_CLIP_MODEL", str(tiny_clip_dir))
    monkeypatch.setenv("SVGEVAL_CLIP_FID_MODEL", str(tiny_clip_dir))
    monkeypatch.setenv("SVGEVAL_TOKENIZER_MODEL", str(tiny_clip_dir))
    monkeypatch.setenv("SVGEVAL_DINO_MODEL", str(tiny_dino_dir))
    monkeypatch.setenv("SVGEVAL_FID_MODEL", str(inception_weights))


def run(task: str, model: str, data: Path, out: Path, *extra: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["run", task, "--model", model, "--data", str(data),
                                      "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    results: dict[str, Any] = json.loads((out / "results.json").read_text())
    return results


def test_the_two_extraction_readings() -> None:
    response = "<svg a>1</svg> then ```svg\n<svg b>2</svg>\n``` <svg c>3</svg>"
    assert extract_svg(response, "internsvg").svg == "<svg a>1</svg>"
    assert extract_svg(response, "vlmevalkit").svg == "<svg b>2</svg>"
    assert extract_svg("x <svg>1</svg> y <svg>2</svg> z", "vlmevalkit").svg == (
        "<svg>1</svg> y <svg>2</svg>")  # first <svg to last </svg>
    assert extract_svg("no drawing", "internsvg").svg is None
    assert extract_choice("  B. because", "internsvg") == "B"
    assert extract_choice("The answer is C.", "internsvg") == "T"  # the first character
    assert extract_choice("The answer is C.", "vlmevalkit") == "C"
    assert extract_choice("none", "vlmevalkit") is None


def test_composite_by_hand() -> None:
    # 0.3 x 80 + 0.3 x 90 + 0.2 x 70 + 0.2 x (1 - 0.2) x 100 = 24 + 27 + 14 + 16
    assert composite(80.0, 0.9, 0.7, 0.2) == pytest.approx(81.0)
    # VLMEvalKit's crossed keys: 0.2 x 100 x LPIPS + 0.2 x 100 x (1 - SSIM) = 4 + 6
    assert composite(80.0, 0.9, 0.7, 0.2, "vlmevalkit") == pytest.approx(61.0)
    t2s = {"icon/clip_i2i": 80.0}
    i2s = {"icon/dino": 0.9, "icon/ssim": 0.7, "icon/lpips": 0.2}
    assert composite_from_results(t2s, i2s, "icon") == pytest.approx(81.0)
    assert composite_from_results(t2s, i2s, "illustration") is None


def test_ground_truth_pictures_are_composited_on_white(tmp_path: Path) -> None:
    from PIL import Image

    pixels = np.zeros((448, 448, 4), np.uint8)
    pixels[:10, :10] = (255, 0, 0, 255)  # opaque red corner on a transparent picture
    Image.fromarray(pixels).save(tmp_path / "p.png")
    picture = read_picture(tmp_path / "p.png")
    assert picture.shape == (448, 448, 3)
    assert picture[0, 0].tolist() == [1.0, 0.0, 0.0] and picture[100, 100].tolist() == [1.0] * 3


def test_understanding_oracle_and_identity(sarena: Path, tmp_path: Path) -> None:
    best = run("sarena-icon-understanding", "oracle", sarena, tmp_path / "o")["metrics"]
    assert best["all/accuracy"] == 100.0 and best["color/accuracy"] == 100.0
    worst = run("sarena-icon-understanding", "identity", sarena, tmp_path / "i")["metrics"]
    assert worst["all/accuracy"] == 0.0  # no answer: wrong, and counted


def test_img2svg_oracle_scores_best_and_a_blank_answer_lower(
    sarena: Path, tmp_path: Path, models: None
) -> None:
    worst = run("sarena-icon-img2svg", "identity", sarena, tmp_path / "i", "--limit", "2")[
        "metrics"]
    # no answer: the black picture, counted; its token count left out
    assert worst["icon/ssim"] < 0.2 and worst["icon/psnr"] < 10.0 and worst["icon/dino"] < 1.0
    assert worst["icon/tokens"] is None and worst["icon/lpips"] > 0.1
    best = run("sarena-icon-img2svg", "oracle", sarena, tmp_path / "o", "--limit", "1")
    metrics = best["metrics"]
    assert metrics["icon/ssim"] == pytest.approx(1.0) and metrics["icon/psnr"] == 100.0
    assert metrics["icon/dino"] == pytest.approx(1.0, abs=1e-6)
    assert metrics["icon/lpips"] == pytest.approx(0.0, abs=1e-6)
    assert metrics["icon/lpips_standard"] == pytest.approx(0.0, abs=1e-6)
    assert metrics["icon/tokens"] is not None and metrics["icon/tokens"] > 0


def test_text2svg_oracle_scores_best(sarena: Path, tmp_path: Path, models: None) -> None:
    metrics = run("sarena-illustration-text2svg", "oracle", sarena, tmp_path / "o",
                  "--limit", "2")["metrics"]
    assert metrics["illustration/clip_i2i"] == pytest.approx(100.0, abs=1e-3)
    assert metrics["illustration/clip_t2i"] is not None
    assert metrics["illustration/fid"] == pytest.approx(0.0, abs=1e-3)
    assert metrics["illustration/fid_c"] == pytest.approx(0.0, abs=1e-3)
    worst = run("sarena-illustration-text2svg", "identity", sarena, tmp_path / "i",
                "--limit", "2")["metrics"]
    assert worst["illustration/clip_i2i"] < metrics["illustration/clip_i2i"]
    assert worst["illustration/fid"] > 1.0


def test_chemistry_has_no_caption_so_no_clip_t2i(sarena: Path) -> None:
    chemistry = get_task("sarena-chemistry-text2svg")
    samples = chemistry(CommonOptions(data=sarena)).load()
    assert [sample.target.caption for sample in samples] == ["", "", ""]
    assert "clip_t2i" not in chemistry.metrics and chemistry.batched_metrics == ("clip_i2i",)
    icons = get_task("sarena-icon-text2svg")(CommonOptions(data=sarena)).load()
    assert icons[0].target.caption == "a red square icon"  # stripped, as released


def test_edit_oracle_best_and_the_unedited_svg_lower(
    sarena: Path, tmp_path: Path, models: None
) -> None:
    best = run("sarena-icon-edit", "oracle", sarena, tmp_path / "o", "--limit", "1")["metrics"]
    for group in ("flip", "color_simple", "all"):
        assert best[f"{group}/ssim"] == pytest.approx(1.0) and best[f"{group}/psnr"] == 100.0
    same = run("sarena-icon-edit", "identity", sarena, tmp_path / "i", "--set", "edit=flip")
    assert same["metrics"]["flip/psnr"] < 30.0 and "color_simple/psnr" not in same["metrics"]
    assert same["counts"]["flip"]["n_valid"] == 3  # the unedited SVG renders: a valid answer


def test_edit_prompt_asks_for_code_only(sarena: Path) -> None:
    [first, *_] = get_task("sarena-icon-edit")(
        CommonOptions(data=sarena, extra={"edit": "flip"})).load()
    assert first.id == "flip/1" and first.group == "flip"
    assert first.messages[0]["content"].endswith("\nOnly output the svg code, no other text.")
    assert first.input_svg is not None and first.input_svg.startswith("<svg")


def test_missing_data_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = CliRunner().invoke(app, ["run", "sarena-icon-img2svg", "--model", "oracle",
                                      "--data", str(tmp_path / "nowhere"), "--out",
                                      str(tmp_path / "r")])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "--data" in lines[0], lines
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    result = CliRunner().invoke(app, ["run", "sarena-icon-img2svg", "--model", "oracle",
                                      "--out", str(tmp_path / "r2")])
    assert result.exit_code != 0 and "pass the folder with --data PATH" in result.output


def test_img2svg_sends_the_lines_picture(sarena: Path) -> None:
    [first, *_] = get_task("sarena-icon-img2svg")(CommonOptions(data=sarena)).load()
    text, image = first.messages[0]["content"]
    assert text["text"].startswith("<image>\nWrite the SVG code")
    encoded = image["image_url"]["url"].split(",", 1)[1]
    picture = sarena / "Icon" / "generation" / "images" / "1.png"
    assert base64.b64decode(encoded) == picture.read_bytes()


def test_a_failed_answer_is_the_black_picture_and_counted(
    sarena: Path, renderer: Renderer
) -> None:
    task = get_task("sarena-chemistry-img2svg")(CommonOptions(data=sarena))
    [first, *_] = task.load()
    truth = read_picture(sarena / "chemistry" / "images" / "1.png")
    black = np.zeros_like(truth)
    for response in ("no code", '<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>'):
        score = task.score(first, response, renderer)
        assert score.failure is not None and score.metrics["tokens"] is None
        assert score.metrics["ssim"] == pytest.approx(ssim(black, truth, preset="internsvg"))
        assert score.metrics["psnr"] == pytest.approx(psnr(black, truth))


@pytest.mark.parametrize(("subset", "name"), [("mini", "SArena_MINI.zip"),
                                              ("vlmevalkit", "SArena.zip")])
def test_the_hub_archive_is_unzipped_once_into_the_cache(
    sarena: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, subset: str, name: str
) -> None:
    import zipfile

    huggingface_hub = pytest.importorskip("huggingface_hub")
    archive = tmp_path / "snapshots" / "abc123" / name
    archive.parent.mkdir(parents=True)
    with zipfile.ZipFile(archive, "w") as opened:  # VLMEvalKit's zips hold Icon/ at the top
        for path in sarena.rglob("*.jsonl"):
            opened.write(path, path.relative_to(sarena))
    asked: list[tuple[str, str]] = []

    def download(repo: str, name: str, repo_type: str) -> str:
        asked.append((repo, name))
        return str(archive)

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)
    monkeypatch.setenv("SVGEVAL_CACHE", str(tmp_path / "cache"))
    task = get_task("sarena-icon-understanding")(CommonOptions(extra={"subset": subset}))
    assert len(task.load()) == 4
    archive.unlink()  # the second load reads the unzipped copy
    assert len(task.load()) == 4
    assert asked == [("JoeLeelyf/SArena-VLMEvalKit", name)] * 2
    assert list((tmp_path / "cache").rglob("sarena_un.jsonl"))  # unzipped there


def write_results(folder: Path, task: str, metrics: dict[str, float]) -> Path:
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps({
        "svgeval_version": "0", "task": task, "task_version": "1", "model": "m", "n": 3,
        "n_expected": 3, "n_valid": 3,
        "complete": True, "metrics": metrics, "counts": {}}))
    return folder


def test_composite_command_prints_both_readings(tmp_path: Path) -> None:
    t2s = write_results(tmp_path / "t", "sarena-icon-text2svg", {"icon/clip_i2i": 80.0})
    i2s = write_results(tmp_path / "i", "sarena-icon-img2svg",
                        {"icon/dino": 0.9, "icon/ssim": 0.7, "icon/lpips": 0.2})
    result = CliRunner().invoke(app, ["sarena", "composite", str(t2s), str(i2s), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == pytest.approx(
        {"track": "icon", "composite": 81.0, "vlmevalkit": 61.0})
    other = write_results(tmp_path / "o", "sarena-chemistry-img2svg", {})
    result = CliRunner().invoke(app, ["sarena", "composite", str(t2s), str(other)])
    assert result.exit_code == 1 and "two tracks" in result.output


def test_a_malformed_line_names_its_file_and_line(tmp_path: Path) -> None:
    from svgeval.tasks.data_files import MalformedData

    path = tmp_path / "Icon" / "understanding" / "sarena_un.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text('{"id": 1, "conversations": [{"value": "q"}, {"value": "A."}]}\n'
                    '{"id": 2, "conversations": [{"value": "q"}]}\n')
    with pytest.raises(MalformedData, match=r"sarena_un.jsonl: line 2: conversations"):
        get_task("sarena-icon-understanding")(CommonOptions(data=tmp_path)).load()


# Released token lengths of the editing run of issue 27 (sarena_numbers.json "icon_edit"):
# InternSVG 77a891e evaluate_edit.py and VLMEvalKit e8e78f05 on flip (7 rendered answers),
# translate (7) and color_simple (6), token counts with the all-MiniLM-L6-v2 tokenizer on both
# sides, under transformers 4.52.4 (a separate virtual environment). ``tests/upstream/sarena.py``
# reruns the released evaluate_edit.py on the rebuilt edits and prints these three (type, mean,
# count) in its os.listdir order, equal when last run.
EDIT_TRUE_MEANS = [("flip", 21453 / 7, 7), ("translate", 22846 / 7, 7),
                   ("color_simple", 14389 / 6, 6)]


def test_edit_token_length_is_the_released_running_mean() -> None:
    from svgeval.tasks.sarena.edit import running_token_means

    # InternSVG's os.listdir order (flip, translate, color_simple): its printed values
    running, summary = running_token_means(EDIT_TRUE_MEANS)
    assert running == pytest.approx({"flip": 3064.714285714286, "translate": 3164.214285714286,
                                     "color_simple": 2934.4}, abs=1e-9)
    assert summary == pytest.approx(3060.445, abs=1e-9)  # printed 'Token-Length': 3060.445
    # VLMEvalKit's alphabetical order, svgeval's default
    running, summary = running_token_means(sorted(EDIT_TRUE_MEANS))
    assert running == pytest.approx({"color_simple": 2398.1666666666665,
                                     "flip": 2757.076923076923, "translate": 2934.4}, abs=1e-9)
    assert summary == pytest.approx(2711.4669230769227, abs=1e-9)


def test_edit_token_order_printed_by_a_released_run_reproduces_its_summary() -> None:
    """The issue-27 run's InternSVG log printed its types in the order flip, translate,
    color_simple (its os.listdir order) and the summary 3,060.445; the task's aggregate given
    that order reproduces it, alphabetical (the default) gives VLMEvalKit's 2,711.467. The
    per-sample counts were not recorded, only each type's sum and number of rendered answers;
    a running mean reads nothing else, so each type's answers here are its mean, the sum's
    remainder on the first."""
    from svgeval.tasks.outcome import Outcome
    from svgeval.tasks.sarena.edit import SArenaIconEdit

    outcomes = []
    for kind, mean, n in EDIT_TRUE_MEANS:
        total = round(mean * n)
        for j in range(n):
            count = total // n + (total % n if j == 0 else 0)
            sample = Sample(f"{kind}-{j}", kind, [], "", target=None)
            outcomes.append(Outcome.of(sample, metrics={"tokens": float(count)}))

    def summary(**options: str) -> tuple[float, dict[str, float]]:
        metrics = SArenaIconEdit(CommonOptions(extra=options)).aggregate(outcomes).metrics
        return metrics["all/tokens"], {kind: metrics[f"{kind}/tokens"] for kind, _, _ in
                                       EDIT_TRUE_MEANS}

    printed, running = summary(token_order="flip,translate,color_simple")
    assert printed == pytest.approx(3060.445, abs=1e-9)
    assert running == pytest.approx({"flip": 3064.714285714286, "translate": 3164.214285714286,
                                     "color_simple": 2934.4}, abs=1e-9)
    assert summary()[0] == pytest.approx(2711.4669230769227, abs=1e-9)
    # types left unnamed follow alphabetically: (flip), then color_simple, translate
    assert summary(token_order="flip")[0] == pytest.approx(
        running_token_means([EDIT_TRUE_MEANS[0], EDIT_TRUE_MEANS[2], EDIT_TRUE_MEANS[1]])[1])
    for wrong in ("flip,flip", "flips", "alphabetic"):
        with pytest.raises(InvalidOption, match="token_order"):
            SArenaIconEdit(CommonOptions(extra={"token_order": wrong}))


def test_edit_tokens_released_by_default_pooled_on_request(
    sarena: Path, tmp_path: Path, models: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from svgeval.tasks.sarena import edit

    monkeypatch.setattr(edit.SArenaIconEdit, "batched_metrics", ())  # tokens only: no models
    pooled = run("sarena-icon-edit", "identity", sarena, tmp_path / "p", "--set", "tokens=pooled")
    released = run("sarena-icon-edit", "identity", sarena, tmp_path / "r")
    kinds = sorted(group for group in pooled["counts"] if group != "all")
    expected, summary = edit.running_token_means(
        [(kind, pooled["metrics"][f"{kind}/tokens"], pooled["counts"][kind]["n_valid"])
         for kind in kinds])
    assert len(kinds) >= 2 and expected[kinds[-1]] == pytest.approx(pooled["metrics"]["all/tokens"])
    for kind in kinds:
        assert released["metrics"][f"{kind}/tokens"] == pytest.approx(expected[kind])
    assert released["metrics"]["all/tokens"] == pytest.approx(summary)
    assert released["metrics"]["all/ssim"] == pooled["metrics"]["all/ssim"]


def test_text2svg_options_choose_each_released_reading(sarena: Path) -> None:
    task = get_task("sarena-icon-text2svg")
    released = task(CommonOptions(data=sarena)).metric_preset()
    assert (released.fid_batchnorm, released.clip_clamp_zero, released.clip_truncation) == (
        "train", False, "cut")
    other = task(CommonOptions(data=sarena, extra={
        "fid": "eval", "clip_clamp": "zero", "clip_truncation": "eot"})).metric_preset()
    assert (other.fid_batchnorm, other.clip_clamp_zero, other.clip_truncation) == (
        "eval", True, "eot")
