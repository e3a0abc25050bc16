"""DreamSim's loading code and formula, on a tiny random ensemble built locally (no hub here):
the distance equals ``1 - cos`` of centred concatenated embeddings computed independently with
transformers and numpy, and missing weights are reported, never scored."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from svgeval.metrics.dreamsim import dreamsim
from svgeval.metrics.registry import MetricUnavailable

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def images(count: int, size: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (size, size, 3), dtype=np.uint8) for _ in range(count)]


def embedding(folder: Path, image: np.ndarray) -> np.ndarray:
    """DreamSim's ensemble embedding written out step by step: 224 px bicubic (Pillow), [0, 1],
    ImageNet statistics for DINO (last hidden state's CLS, before the final norm), CLIP statistics
    for both CLIP towers (projected image embeddings), concatenated and centred."""
    from PIL import Image

    resized = np.asarray(Image.fromarray(image).resize((224, 224), Image.Resampling.BICUBIC))
    x = resized.astype(np.float64).transpose(2, 0, 1)[None] / 255.0

    def normalised(mean: tuple[float, ...], std: tuple[float, ...]) -> object:
        values = (x - np.array(mean)[None, :, None, None]) / np.array(std)[None, :, None, None]
        return torch.tensor(values, dtype=torch.float32)

    imagenet = normalised((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
    clip = normalised((0.48145466, 0.4578275, 0.40821073), (0.26862954, 0.26130258, 0.27577711))
    with torch.no_grad():
        dino = transformers.ViTModel.from_pretrained(folder / "dino")
        parts = [dino(pixel_values=imagenet, output_hidden_states=True).hidden_states[-1][0, 0]]
        for name in ("clip", "open_clip"):
            tower = transformers.CLIPVisionModelWithProjection.from_pretrained(folder / name)
            parts.append(tower(pixel_values=clip).image_embeds[0])
    joined = np.concatenate([p.double().numpy() for p in parts])
    return np.asarray(joined - joined.mean())


def test_distance_is_one_minus_cosine_of_centred_ensemble_embeddings(
        tiny_dreamsim_dir: Path) -> None:
    a, b = images(3, 96, seed=1), images(3, 224, seed=2)
    got = dreamsim(a, b, model_path=str(tiny_dreamsim_dir), batch_size=2)
    expected = []
    for x, y in zip(a, b):
        ex, ey = embedding(tiny_dreamsim_dir, x), embedding(tiny_dreamsim_dir, y)
        expected.append(1.0 - float(ex @ ey / np.linalg.norm(ex) / np.linalg.norm(ey)))
    assert got == pytest.approx(expected, abs=1e-5)
    assert all(0.0 < d <= 2.0 for d in got)
    assert dreamsim(a, a, model_path=str(tiny_dreamsim_dir)) == pytest.approx([0.0] * 3, abs=1e-6)


def test_the_environment_variable_points_at_the_weights(
        tiny_dreamsim_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = images(1, 64, seed=3), images(1, 64, seed=4)
    monkeypatch.setenv("SVGEVAL_DREAMSIM_MODEL", str(tiny_dreamsim_dir))
    assert dreamsim(a, b) == pytest.approx(dreamsim(a, b, model_path=str(tiny_dreamsim_dir)))


def test_missing_weights_are_unavailable_with_what_to_provide(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVGEVAL_MODEL_DIR", str(tmp_path))
    monkeypatch.delenv("SVGEVAL_DREAMSIM_MODEL", raising=False)
    with pytest.raises(MetricUnavailable, match="DreamSim"):
        dreamsim(images(1, 32, 5), images(1, 32, 6), model_path=str(tmp_path / "absent"))
