"""Tiny random SigLIP and BLIP captioner saved to disk for the SVGauge tests (loaded back
through the metric's own loading code), and a projection fitted with the tiny SigLIP."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from support.tiny_models import WORDS, save_tokenizer


@pytest.fixture(scope="session")
def tiny_siglip_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    transformers = pytest.importorskip("transformers")
    import torch

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny_siglip")
    config = transformers.SiglipConfig(
        text_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                     "num_attention_heads": 2, "vocab_size": len(WORDS),
                     "max_position_embeddings": 16},
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
                       "num_attention_heads": 2, "image_size": 32, "patch_size": 8},
    )
    transformers.SiglipModel(config).save_pretrained(folder)
    transformers.SiglipImageProcessor(size={"height": 32, "width": 32}).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_captioner_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    transformers = pytest.importorskip("transformers")
    import torch

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny_blip")
    config = transformers.BlipConfig(
        text_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                     "num_attention_heads": 2, "vocab_size": len(WORDS),
                     "max_position_embeddings": 32, "bos_token_id": 2, "eos_token_id": 2,
                     "sep_token_id": 2, "pad_token_id": 0},
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                       "num_attention_heads": 2, "image_size": 32, "patch_size": 8},
    )
    transformers.BlipForConditionalGeneration(config).save_pretrained(folder)
    save_tokenizer(folder)
    image = transformers.BlipImageProcessor(size={"height": 32, "width": 32})
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    transformers.BlipProcessor(image_processor=image, tokenizer=tokenizer).save_pretrained(folder)
    return folder


def icon_images(count: int, size: int = 32, seed: int = 0) -> list[np.ndarray]:
    """Random coloured rectangles on white, (size, size, 3) uint8."""
    rng = np.random.default_rng(seed)
    images = []
    for _ in range(count):
        image = np.full((size, size, 3), 255, np.uint8)
        x0, y0 = rng.integers(0, size // 2, 2)
        x1, y1 = rng.integers(size // 2, size, 2)
        image[y0:y1, x0:x1] = rng.integers(0, 255, 3)
        images.append(image)
    return images


@pytest.fixture(scope="session")
def tiny_projection(tiny_siglip_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from svgeval.metrics.svgauge import fit_on_renders

    path = tmp_path_factory.mktemp("projection") / "projection.npz"
    fit_on_renders(icon_images(40, seed=1), encoder_path=str(tiny_siglip_dir), n_components=16,
                   device="cpu").save(path)
    return path
