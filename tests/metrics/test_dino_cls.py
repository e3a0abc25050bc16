"""DINOv2 CLS cosine of SVGEditBench V2, against the model run by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from svgeval.metrics.dino import IMAGENET_MEAN, IMAGENET_STD, dino_cls


def test_dino_cls_is_the_cls_cosine_of_unnormalised_pixels(tiny_dino_dir: Path) -> None:
    torch = pytest.importorskip("torch")
    from transformers import Dinov2Model

    rng = np.random.default_rng(0)
    a, b = (rng.integers(0, 256, size=(28, 28, 3), dtype=np.uint8) for _ in range(2))
    model = Dinov2Model.from_pretrained(tiny_dino_dir).eval()

    def cls(image: np.ndarray, normalize: bool) -> object:
        pixels = torch.tensor(image, dtype=torch.float32).permute(2, 0, 1)[None] / 255
        if normalize:
            pixels = (pixels - torch.tensor(IMAGENET_MEAN)[:, None, None]) / torch.tensor(
                IMAGENET_STD)[:, None, None]
        with torch.no_grad():
            return model(pixel_values=pixels).last_hidden_state[0, 0]  # after the final norm

    for normalize in (False, True):
        expected = torch.nn.functional.cosine_similarity(cls(a, normalize), cls(b, normalize),
                                                         dim=0).item()
        got = dino_cls([a, a], [a.copy(), b], model_path=str(tiny_dino_dir),
                       imagenet_normalize=normalize, device="cpu")
        assert got[0] == pytest.approx(1.0, abs=1e-6)
        assert got[1] == pytest.approx(expected, abs=1e-5)


def test_a_model_folder_without_an_image_processor_works(tiny_dino_dir: Path,
                                                         tmp_path: Path) -> None:
    """The released model (torch hub) has no preprocessor_config.json and the pixels never pass
    through one: ``dino_cls`` must not ask for it."""
    import shutil

    bare = tmp_path / "dino_without_processor"
    shutil.copytree(tiny_dino_dir, bare)
    (bare / "preprocessor_config.json").unlink()
    rng = np.random.default_rng(1)
    a, b = (rng.integers(0, 256, size=(28, 28, 3), dtype=np.uint8) for _ in range(2))
    for normalize in (False, True):
        expected = dino_cls([a], [b], model_path=str(tiny_dino_dir), device="cpu",
                            imagenet_normalize=normalize)
        assert dino_cls([a], [b], model_path=str(bare), device="cpu",
                        imagenet_normalize=normalize) == pytest.approx(expected, abs=1e-6)


def test_features_once_per_image_give_the_pairwise_cosines(tiny_dino_dir: Path) -> None:
    """SGP-GenBench's diversity from one forward pass per answer equals ``1 - mean`` of the
    pairwise ``dino_cls`` it was computed from before (6 forward pairs for 4 answers)."""
    pytest.importorskip("torch")
    from svgeval.metrics.dino import dino_cls_features
    from svgeval.tasks.sgp_genbench.answers import diversity

    rng = np.random.default_rng(2)
    images = [rng.integers(0, 256, size=(28, 28, 3), dtype=np.uint8) for _ in range(4)]
    pairs = [(a, b) for i, a in enumerate(images) for b in images[i + 1:]]
    cosines = dino_cls([a for a, _ in pairs], [b for _, b in pairs], model_path=str(tiny_dino_dir),
                       imagenet_normalize=True, device="cpu")
    features = dino_cls_features(images, model_path=str(tiny_dino_dir), imagenet_normalize=True,
                                 device="cpu")
    assert features.shape[0] == 4
    assert diversity(features) == pytest.approx(1.0 - float(np.mean(cosines)), abs=1e-6)
