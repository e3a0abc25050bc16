"""VectorGym Text2SVG model metrics against the released calculators, per sample, with the same
tiny weights on both sides.

Released values: ``vectorgym/metrics/compute_clip_score.py``, ``compute_dino_score.py`` and
``compute_LPIPS.py`` of ServiceNow/VectorGym ``31cb00c5``, unmodified except the caption tuple
turned into a list (the release raises on a tuple), after the OpenRouter validator's path for
every answer (``_extract_code_blocks``: the first block; ``postprocess_svg``: the repair chain;
``BaseValidator.rasterize``: 512 px at 128 dpi, the red X for an SVG CairoSVG refuses), run on
CPU under transformers 4.57.1 (VectorGym pins none: the newest 4.x):
``tests/upstream/vectorgym_models.py`` runs them (its docstring says how to make that
environment) and prints the constants below, bit for bit (docs/suites/vectorgym.md, "Checked
against the released scorer"). Inputs rebuilt here: SVGenius
icon ``i`` (``released_answers.svgenius_items``, 16 icons) with its caption (3 over 77 CLIP tokens),
answered in kind ``KINDS[i]``. Weights: the ViT-B/32-shaped tiny CLIP and the tiny DINOv2 of
``released_models`` (digests checked), the real LPIPS VGG.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.released_answers import reference_batch, require_svgenius_models
from support.released_models import build_b32_and_dino, use_weights

from svgeval.render.isolated import Renderer
from svgeval.tasks.base import BatchItem, CommonOptions, MetricContext
from svgeval.tasks.common import CaptionedReference
from svgeval.tasks.vectorgym import image_tasks
from svgeval.tasks.vectorgym.image_tasks import VectorGymText

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

RELEASED: dict[str, list[float]] = {  # per sample, i = 0..15
    "clip": [
        6.116243839263916, 5.566772937774658, -0.2115190029144287, 5.419445991516113,
        3.9766385555267334, 0.05270820111036301, 6.155845642089844, 2.602264165878296,
        1.4249149560928345, 6.091745376586914, -0.0766826793551445, 0.5833754539489746,
        7.947316646575928, 6.527125835418701, 8.404618263244629, 5.195087909698486,
    ],
    "dino": [
        0.9999999403953552, 0.9378985166549683, 0.9970657825469971, 0.9999807178974152,
        0.9862127602100372, 0.9999999701976776, 0.9966074228286743, 1.0, 0.9400230050086975,
        0.9988048672676086, 0.8272821605205536, 0.9990405142307281, 1.0, 0.8417961895465851,
        0.9999714195728302, 0.03982412815093994,
    ],
    "lpips": [
        0.0, 0.23356683552265167, 0.5224502682685852, 0.10834312438964844, 0.32514744997024536,
        2.8390753868734464e-05, 0.30181562900543213, 0.0, 0.5280322432518005, 0.38784003257751465,
        0.41761845350265503, 0.027343308553099632, 0.0, 0.4329324960708618, 0.010794658213853836,
        0.30984872579574585,
    ],
}
N = 16
LONG = {2, 5, 10}
"""Captions over 77 tokens (one token per non-space character, plus start and end)."""


@pytest.fixture(scope="module")
def released_weights(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    require_svgenius_models()
    root = tmp_path_factory.mktemp("vectorgym_models")
    clip, dino = build_b32_and_dino(root).values()
    return {"SVGEVAL_CLIP_MODEL": str(clip), "SVGEVAL_DINO_MODEL": str(dino)}


@pytest.fixture()
def weights(released_weights: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    use_weights(released_weights, monkeypatch)


def batch(task: Any, renderer: Renderer) -> list[BatchItem]:
    """The 16 answers scored by ``task`` and drawn as the batched stage draws them."""
    return reference_batch(task, CaptionedReference, renderer, N, "test")


def scores(renderer: Renderer, keys: tuple[str, ...], **options: str) -> dict[str, list[Any]]:
    task = VectorGymText(CommonOptions(extra=options))
    values = task.batch_score(batch(task, renderer), MetricContext(renderer, 8, "cpu"))
    return {key: [value.metrics[key] for value in values] for key in keys}


def test_clip_and_dino_equal_the_released_per_sample(
        weights: None, renderer: Renderer, monkeypatch: pytest.MonkeyPatch) -> None:
    """CLIP (``100 cos``, ids cut at 77) and DINO per sample on every answer kind: first
    block, repair, red X, dpi 128 as released; ``clip_truncation=eot`` moves exactly the
    captions over 77 tokens. (LPIPS, slow, is the next test.)"""
    monkeypatch.setattr(image_tasks, "lpips", lambda a, b, **_: [0.0] * len(a))
    values = scores(renderer, ("clip", "dino"))
    assert values["clip"] == pytest.approx(RELEASED["clip"], abs=1e-5)
    assert values["dino"] == pytest.approx(RELEASED["dino"], abs=1e-6)
    eot = scores(renderer, ("clip",), clip_truncation="eot")["clip"]
    for i in range(N):
        assert (eot[i] == pytest.approx(RELEASED["clip"][i], abs=1e-5)) == (i not in LONG), i


@pytest.mark.slow  # the real VGG at 384 px on 2 x 16 pairs
def test_lpips_equals_the_released_per_sample(weights: None, renderer: Renderer) -> None:
    """LPIPS-VGG of the 8-bit renders resized to 384 by PIL, then ImageNet-normalised."""
    assert scores(renderer, ("lpips",))["lpips"] == pytest.approx(RELEASED["lpips"], abs=1e-6)
