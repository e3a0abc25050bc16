"""StarVector SVG-Bench model metrics against the released calculators, per sample, with the
same tiny weights on both sides.

Released values: ``starvector/metrics/compute_clip_score.py``, ``compute_dino_score.py``,
``compute_LPIPS.py`` and ``compute_fid.py`` of joanrod/star-vector ``0e083c19``, unmodified
except the caption tuple turned into a list (the release raises on a tuple), after the
validator's ``post_process_svg`` and ``rasterize_svg(512, dpi=100)`` of every answer, run on CPU
under transformers 4.49.0 (its pin): ``tests/upstream/starvector_models.py`` runs them (its
docstring says how to make that environment) and prints the constants below, bit for bit but
the FIDs (``scipy.linalg.sqrtm`` of singular covariances: 3e-7 relative)
(docs/suites/starvector.md, "Checked against the released scorer"). Inputs rebuilt here: SVGenius icon ``i`` (``released_answers.svgenius_items``,
16 icons) with its caption (3 over 77 CLIP tokens), answered in kind ``KINDS[i]`` (every kind
once: the answer as given, repaired, the placeholder). Weights: ``released_models`` (a
ViT-B/32-shaped CLIP whose OpenAI-layout copy ``clip.load`` read for CLIP-FID; the digests prove
both sides loaded the same numbers), the tests' random FID Inception
(``tiny_models.inception_weights``) and the real LPIPS VGG.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.released_answers import reference_batch, require_svgenius_models
from support.released_models import build_b32_and_dino, use_weights

from svgeval.render.isolated import Renderer
from svgeval.tasks.base import BatchItem, CommonOptions, MetricContext
from svgeval.tasks.common import CaptionedReference
from svgeval.tasks.starvector.tasks import StarVectorImg2Svg, StarVectorText2Svg

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

RELEASED: dict[str, list[float]] = {  # per sample, i = 0..15
    "clip_score": [
        6.116243839263916, 5.566772937774658, -0.2115190029144287, 5.419445991516113,
        3.9766385555267334, 0.05270820111036301, 6.155845642089844, 2.705578565597534,
        1.789198398590088, 6.091745376586914, -0.0766826793551445, 0.8074458837509155,
        8.345755577087402, 6.527125835418701, 8.404618263244629, 5.074073314666748,
    ],
    "dino": [
        0.9999999403953552, 0.9378985166549683, 0.9970657825469971, 0.9999807178974152,
        0.9862127602100372, 0.9999999701976776, 0.9966074228286743, 0.9860880374908447,
        0.8187999725341797, 0.9988048672676086, 0.8272821605205536, 0.9876331388950348,
        0.8945218622684479, 0.8417961895465851, 0.9999714195728302, 0.0545540452003479,
    ],
    "lpips": [
        0.0, 0.23023365437984467, 0.5032820701599121, 0.09430664777755737, 0.29639071226119995,
        6.247811688808724e-05, 0.2771560847759247, 0.3585623502731323, 0.5415276288986206,
        0.36635270714759827, 0.3983166813850403, 0.4441666007041931, 0.2485186755657196,
        0.41952449083328247, 0.009719748049974442, 0.26666325330734253,
    ],
}
RELEASED_FID = 67.21030112106536  # train-mode batch norm, as released
RELEASED_FID_EVAL = 3080.0410996334795  # the same calculator after .eval()
RELEASED_CLIP_FID = 0.27863376856793104
N = 16
LONG = {2, 5, 10}
"""Captions over 77 tokens (one token per non-space character, plus start and end)."""


@pytest.fixture(scope="module")
def released_weights(tmp_path_factory: pytest.TempPathFactory, inception_weights: Path,
                     ) -> dict[str, str]:
    require_svgenius_models()
    root = tmp_path_factory.mktemp("starvector_models")
    clip, dino = build_b32_and_dino(root).values()
    return {"SVGEVAL_CLIP_MODEL": str(clip), "SVGEVAL_CLIP_FID_MODEL": str(clip),
            "SVGEVAL_DINO_MODEL": str(dino), "SVGEVAL_FID_MODEL": str(inception_weights)}


@pytest.fixture()
def weights(released_weights: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    use_weights(released_weights, monkeypatch)


def batch(task: Any, renderer: Renderer) -> list[BatchItem]:
    """The 16 answers scored by ``task`` and drawn as the batched stage draws them."""
    return reference_batch(task, CaptionedReference, renderer, N, "svg-stack")


def clip_scores(renderer: Renderer, **options: str) -> list[Any]:
    task = StarVectorText2Svg(CommonOptions(extra=options))
    scores = task.batch_score(batch(task, renderer), MetricContext(renderer, N, "cpu"))
    return [score.metrics["clip_score"] for score in scores]


def test_clip_score_equals_the_released_per_sample(weights: None, renderer: Renderer) -> None:
    """``100 cos`` per sample, unclamped, token ids cut at 77 (the default) equals the release
    on every answer kind and caption; ``clip_truncation=eot`` moves exactly the long captions."""
    assert clip_scores(renderer) == pytest.approx(RELEASED["clip_score"], abs=1e-5)
    eot = clip_scores(renderer, clip_truncation="eot")
    for i in range(N):
        same = eot[i] == pytest.approx(RELEASED["clip_score"][i], abs=1e-5)
        assert same == (i not in LONG), i


def test_dino_and_clip_fid_equal_the_released(weights: None, renderer: Renderer) -> None:
    """DINO per sample (``(cos + 1) / 2`` of mean-pooled DINOv2 tokens) and CLIP-FID over the
    16 (``clip.load``'s ViT-B/32 features) of the image-to-SVG renders."""
    from svgeval.metrics.dino import dino
    from svgeval.metrics.fid import clip_fid

    task = StarVectorImg2Svg(CommonOptions())
    drawn = task.drawn(batch(task, renderer), renderer)
    preset = task.metric_preset()
    values = dino(drawn.outputs, drawn.references, preset=preset, batch_size=N, device="cpu")
    assert values == pytest.approx(RELEASED["dino"], abs=1e-6)
    assert clip_fid(drawn.references, drawn.outputs, preset=preset, method="sqrtm",
                    device="cpu") == pytest.approx(RELEASED_CLIP_FID, rel=1e-5)


@pytest.mark.slow  # the real VGG at 512 px on 2 x 16 pairs
def test_lpips_equals_the_released_per_sample(weights: None, renderer: Renderer) -> None:
    """LPIPS (VGG on ImageNet-normalised 512 px renders, no resize) per sample through the
    task, on every answer kind."""
    task = StarVectorImg2Svg(CommonOptions())
    scores = task.batch_score(batch(task, renderer), MetricContext(renderer, 8, "cpu"))
    assert [s.metrics["lpips"] for s in scores] == pytest.approx(RELEASED["lpips"], abs=1e-6)


@pytest.mark.slow  # the full Inception v3 at 299 px on 4 x 16 pictures
def test_fid_equals_the_released_train_mode_value_and_eval_by_option(
        weights: None, renderer: Renderer) -> None:
    """FID with Inception's batch norm in train mode (released) and, by ``fid=eval``, in eval
    mode (the released calculator after ``.eval()``)."""
    from svgeval.metrics.fid import fid

    task = StarVectorImg2Svg(CommonOptions())
    drawn = task.drawn(batch(task, renderer), renderer)
    for options, released in (({}, RELEASED_FID), ({"fid": "eval"}, RELEASED_FID_EVAL)):
        preset = StarVectorImg2Svg(CommonOptions(extra=options)).metric_preset()
        assert fid(drawn.references, drawn.outputs, preset=preset, method="sqrtm",
                   device="cpu") == pytest.approx(released, rel=1e-6), options
