"""SigLIP similarities through the real loading code (a tiny random SiglipModel saved locally),
against transformers' SiglipModel called by hand."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from svgeval.metrics.presets import DEFAULT
from svgeval.metrics.siglip import siglip_image_score, siglip_score

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def _pictures(n: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (36, 30, 3), dtype=np.uint8) for _ in range(n)]


def _hand(folder: Path, images: list[np.ndarray], texts: list[str] | None = None,
          other: list[np.ndarray] | None = None) -> list[float]:
    model = transformers.SiglipModel.from_pretrained(folder).eval()
    processor = transformers.SiglipImageProcessor.from_pretrained(folder)

    def pooled(output: object) -> torch.Tensor:
        return getattr(output, "pooler_output", output)  # type: ignore[return-value]

    with torch.inference_mode():
        a = pooled(model.get_image_features(
            pixel_values=processor(images=images, return_tensors="pt")["pixel_values"]))
        if other is not None:
            b = pooled(model.get_image_features(
                pixel_values=processor(images=other, return_tensors="pt")["pixel_values"]))
        else:
            tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
            ids = tokenizer(texts, padding="max_length", max_length=64, truncation=True,
                            return_tensors="pt")["input_ids"]
            b = pooled(model.get_text_features(input_ids=ids))
    return torch.nn.functional.cosine_similarity(a, b).tolist()  # type: ignore[no-any-return]


def test_siglip_image_score_is_the_raw_cosine_of_pooled_embeddings(tiny_siglip_dir: Path) -> None:
    a, b = _pictures(3, seed=1), _pictures(3, seed=2)
    for batch_size in (1, 16):
        got = siglip_image_score(a, b, model_path=str(tiny_siglip_dir), batch_size=batch_size)
        assert got == pytest.approx(_hand(tiny_siglip_dir, a, other=b), abs=1e-5)
    assert siglip_image_score(a, a, model_path=str(tiny_siglip_dir)) == pytest.approx([1.0] * 3)


def test_siglip_score_pads_texts_to_64_tokens(tiny_siglip_dir: Path) -> None:
    images, texts = _pictures(3, seed=3), ["a red circle", "the house icon", "blue star of a cat"]
    got = siglip_score(images, texts, model_path=str(tiny_siglip_dir))
    assert got == pytest.approx(_hand(tiny_siglip_dir, images, texts=texts), abs=1e-5)


def test_background_reading_for_transparent_renders(tiny_siglip_dir: Path) -> None:
    rgba = np.zeros((30, 30, 4), np.uint8)
    rgba[5:20, 5:20] = (200, 30, 30, 255)            # a red square on a transparent canvas
    on_white = rgba[..., :3].copy()
    on_white[rgba[..., 3] == 0] = 255
    black = rgba[..., :3].copy()                     # alpha dropped: VCode's load_image
    path = str(tiny_siglip_dir)
    assert siglip_image_score([rgba], [on_white], model_path=path) == pytest.approx([1.0])
    vcode = replace(DEFAULT, name="vcode-like", background="drop")
    assert siglip_image_score([rgba], [black], preset=vcode, model_path=path) == pytest.approx([1.0])
    assert siglip_image_score([rgba], [on_white], preset=vcode, model_path=path)[0] < 0.9999
