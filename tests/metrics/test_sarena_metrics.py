"""The metrics SArena adds: PSNR against scikit-image, CLIP image-image score against the
model's own embeddings, token counts by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from svgeval.metrics.pixel import psnr
from svgeval.metrics.presets import get_preset


def test_psnr_matches_scikit_image_and_a_hand_value() -> None:
    from skimage.metrics import peak_signal_noise_ratio

    rng = np.random.default_rng(0)
    a = rng.integers(0, 256, (16, 16, 3), dtype=np.uint8)
    b = rng.integers(0, 256, (16, 16, 3), dtype=np.uint8)
    assert psnr(a, b) == pytest.approx(peak_signal_noise_ratio(a, b), rel=1e-12)
    one_level = np.zeros((4, 4, 3), np.uint8)
    # MSE 1 on the 8-bit scale: 10 log10(255^2) = 48.1308...
    assert psnr(one_level, one_level + 1) == pytest.approx(48.130803608679, rel=1e-12)
    assert psnr(a, a) == 100.0  # InternSVG's PSNR.py replaces inf by 100
    assert psnr(np.zeros((2, 2, 3)), np.full((2, 2, 3), 1 / 255)) == pytest.approx(48.1308036)


def test_the_internsvg_preset() -> None:
    preset = get_preset("internsvg")
    assert preset.render_size == 448 and preset.lpips_size is None
    assert preset.lpips_input == "imagenet" and preset.clip_model.endswith("large-patch14")
    # the released metrics/CLIP_Score.py and metrics/FID.py (issue 27): per-sample CLIP values
    # unclamped, token ids cut at 77, Inception batch norm in train mode
    assert not preset.clip_clamp_zero and preset.clip_truncation == "cut"
    assert preset.fid_batchnorm == "train"


def test_clip_image_score_is_100_clamped_cosine(
    tiny_clip_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch
    import transformers

    from svgeval.metrics.clip import clip_image_score

    rng = np.random.default_rng(1)
    images = [rng.integers(0, 256, (28, 28, 3), dtype=np.uint8) for _ in range(3)]
    others = [rng.integers(0, 256, (28, 28, 3), dtype=np.uint8) for _ in range(3)]
    scores = clip_image_score(images, others, model_path=str(tiny_clip_dir))
    model = transformers.CLIPModel.from_pretrained(tiny_clip_dir).eval()
    processor = transformers.CLIPImageProcessor.from_pretrained(tiny_clip_dir)
    with torch.no_grad():
        def embed(batch: list[np.ndarray]) -> torch.Tensor:
            pixels = processor(images=batch, return_tensors="pt")["pixel_values"]
            out = model.get_image_features(pixel_values=pixels)
            return torch.nn.functional.normalize(getattr(out, "pooler_output", out), dim=-1)
        cos = (embed(images) * embed(others)).sum(-1).tolist()
    assert scores == pytest.approx([100 * max(0.0, c) for c in cos], abs=1e-4)
    same = clip_image_score(images, images, model_path=str(tiny_clip_dir))
    assert same == pytest.approx([100.0] * 3, abs=1e-4)
    # InternSVG's released CLIP_Score.py:56 keeps _clip_score_update's unclamped 100 cos
    released = clip_image_score(images, others, preset="internsvg", model_path=str(tiny_clip_dir))
    assert released == pytest.approx([100 * c for c in cos], abs=1e-4)
    assert clip_image_score(images, others, preset="internsvg", clamp=True,
                            model_path=str(tiny_clip_dir)) == pytest.approx(scores, abs=1e-6)


def test_token_counts_are_encode_lengths(tiny_clip_dir: Path) -> None:
    from svgeval.metrics.tokens import token_counts

    # the tiny word-level tokenizer appends [EOS]: three words give four tokens
    assert token_counts(["a red circle", "icon"], model_path=str(tiny_clip_dir)) == [4, 2]


LONG = ("a red blue circle square icon of the house star "
        "a red blue circle square cat of the house icon")
"""20 words, over the tiny CLIP's 16 positions; the 16th is ``cat``, its highest token id."""


def test_clip_score_cuts_long_captions_as_torchmetrics(tiny_clip_dir: Path) -> None:
    """``clip_truncation=cut`` is torchmetrics' ``_clip_score_update`` (the one released line:
    ``input_ids[..., :max_position_embeddings]`` after tokenizing the whole caption, 1.9.0
    ``functional/multimodal/clip_score.py:145-146``); ``eot`` keeps the end token."""
    import torch
    import transformers

    from svgeval.metrics.clip import clip_score

    rng = np.random.default_rng(2)
    images = [rng.integers(0, 256, (28, 28, 3), dtype=np.uint8) for _ in range(2)]
    captions = ["a red circle icon", LONG]
    model = transformers.CLIPModel.from_pretrained(tiny_clip_dir).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_clip_dir)
    processor = transformers.CLIPImageProcessor.from_pretrained(tiny_clip_dir)
    with torch.no_grad():
        pixels = processor(images=images, return_tensors="pt")["pixel_values"]
        image = model.get_image_features(pixel_values=pixels)
        image = torch.nn.functional.normalize(getattr(image, "pooler_output", image), dim=-1)
        enc = tokenizer(captions, padding=True, return_tensors="pt")
        text = model.get_text_features(input_ids=enc["input_ids"][..., :16],
                                       attention_mask=enc["attention_mask"][..., :16])
        text = torch.nn.functional.normalize(getattr(text, "pooler_output", text), dim=-1)
    released = (100 * (image * text).sum(-1)).tolist()  # per sample, never clamped
    cut = clip_score(images, captions, preset="internsvg", model_path=str(tiny_clip_dir))
    assert cut == pytest.approx(released, abs=1e-4)
    eot = clip_score(images, captions, preset="internsvg", truncation="eot",
                     model_path=str(tiny_clip_dir))
    assert eot[0] == pytest.approx(cut[0], abs=1e-5)  # short captions: the same ids
    assert abs(eot[1] - cut[1]) > 1e-2  # long: pooled at another position
    clamped = clip_score(images, captions, preset="internsvg", clamp=True,
                         model_path=str(tiny_clip_dir))
    assert clamped == pytest.approx([max(0.0, v) for v in cut], abs=1e-6)
    assert cut[0] < 0 == clamped[0]  # "a red circle icon": a negative cosine, clamped to 0
