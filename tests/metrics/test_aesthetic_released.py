"""The LAION aesthetic score against OmniSVG's released ``metrics/compute_aesthetic.py``, per
picture, with the same tiny weights on both sides.

Released values: ``compute_aesthetic_score`` of OmniSVG/OmniSVG ``f2e033e`` unmodified, with
OpenAI's ``clip`` (openai/CLIP ``d05afc4``) reading the tiny CLIP as a TorchScript archive where
``ViT-L/14`` would be downloaded, and the tiny head where the release caches
``sac+logos+ava1-l14-linearMSE.pth``, on CPU (float32), each picture read from its PNG file;
printed by ``tests/upstream/aesthetic.py`` (run in svgeval's test environment, transformers
5.24.0, torch 2.13.0). Inputs rebuilt here: ``support.aesthetic_inputs`` (its CLIP's weights
digest checked).

What the two share, read from the release: OpenAI's CLIP ViT-L/14 (the same weights as the hub's
``openai/clip-vit-large-patch14``, which svgeval loads through transformers), its preprocessing
(PIL bicubic resize of the short side to 224, centre crop, CLIP's mean and std), the image
embedding L2-normalised, then the improved predictor's five linear layers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support import aesthetic_inputs as inputs
from support.released_models import weights_digest

from svgeval.metrics.clip import aesthetic

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

CLIP_DIGEST = "7aba8a01e52c60dd"
RELEASED_AESTHETIC = {
    "disc": 7.671845436096191,
    "stripes": 7.57932710647583,
    "gradient": 7.721075057983398,
    "blocks_600x400": 7.730935096740723,
    "noise_224": 7.740329742431641,
    "blank": 7.561941146850586,
}


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    root = tmp_path_factory.mktemp("aesthetic_models")
    clip = inputs.build_l14_clip(root / "clip")
    assert weights_digest(clip, "CLIPModel") == CLIP_DIGEST
    return clip, inputs.write_head(root / inputs.HEAD_FILE)


def test_the_aesthetic_score_equals_the_released_one_on_every_picture(
        weights: tuple[Path, Path]) -> None:
    clip, head = weights
    pictures = inputs.pictures()
    got = aesthetic(list(pictures.values()), model_path=str(clip), head_path=str(head),
                    device="cpu")
    assert dict(zip(pictures, got)) == pytest.approx(RELEASED_AESTHETIC, abs=1e-5)


def test_one_picture_at_a_time_as_the_release_scores_them_gives_the_same_values(
        weights: tuple[Path, Path]) -> None:
    clip, head = weights
    pictures = inputs.pictures()
    got = aesthetic(list(pictures.values()), model_path=str(clip), head_path=str(head),
                    device="cpu", batch_size=1)
    assert got == pytest.approx(list(RELEASED_AESTHETIC.values()), abs=1e-5)
    # the pictures differ in score far more than the tolerance: the check can tell them apart
    assert np.ptp(list(RELEASED_AESTHETIC.values())) > 0.1
