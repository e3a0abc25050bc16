"""SSIM and IoU against independent references."""

from __future__ import annotations

import numpy as np
import pytest
from skimage.metrics import structural_similarity

from svgeval.metrics.pixel import iou, mse, opaque_rgba_mse, ssim


@pytest.mark.parametrize("seed", range(5))
def test_ssim_equals_scikit_image_uniform_11(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 256, (48, 40, 3), dtype=np.uint8)
    b = np.clip(a.astype(int) + rng.integers(-40, 41, a.shape), 0, 255).astype(np.uint8)
    expected = structural_similarity(a, b, win_size=11, channel_axis=-1, data_range=255)
    assert ssim(a, b) == pytest.approx(expected, abs=1e-12)
    # float renders in [0, 1] are read as the 8-bit images they came from
    assert ssim(a / 255.0, b / 255.0) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("shape", "window"), [
    ((512, 384, 3), 7),  # a render, not square
    ((72, 90, 4), 11),  # RGBA, not square
    ((33, 29), 7),  # grey
    ((7, 7, 3), 7),  # one window: the SSIM map is one pixel
])
def test_uniform_ssim_equals_scikit_image(shape: tuple[int, ...], window: int) -> None:
    """OpenCV's box means give scikit-image's numbers, sample covariance, reflected borders,
    cropping and the channels' mean included; similar and unrelated images alike."""
    rng = np.random.default_rng(len(shape) * window)
    a = rng.integers(0, 256, shape, dtype=np.uint8)
    near = np.clip(a.astype(int) + rng.integers(-30, 31, shape), 0, 255).astype(np.uint8)
    for b in (near, rng.integers(0, 256, shape, dtype=np.uint8), a):
        channels = {"channel_axis": -1} if len(shape) == 3 else {}
        expected = structural_similarity(a, b, win_size=window, data_range=255, **channels)
        assert ssim(a, b, window=window) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_an_image_smaller_than_the_window_is_refused() -> None:
    image = np.zeros((6, 40, 3), np.uint8)
    with pytest.raises(ValueError, match="window is 7 px: it must be odd and at most"):
        ssim(image, image, window=7)
    with pytest.raises(ValueError, match="window is 8 px"):
        ssim(np.zeros((20, 20), np.uint8), np.zeros((20, 20), np.uint8), window=8)


def test_ssim_gaussian_variant_is_a_different_number() -> None:
    rng = np.random.default_rng(7)
    a = rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)
    b = rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)
    gauss = structural_similarity(a, b, gaussian_weights=True, sigma=1.5,
                                  use_sample_covariance=False, channel_axis=-1, data_range=255)
    assert ssim(a, b, gaussian=True) == pytest.approx(gauss, abs=1e-12)
    assert ssim(a, b, gaussian=True) != pytest.approx(ssim(a, b), abs=1e-6)
    assert ssim(a, a) == pytest.approx(1.0)


def test_iou_of_masks_and_images() -> None:
    a = np.zeros((4, 4), bool)
    b = np.zeros((4, 4), bool)
    a[:2] = True
    b[1:3] = True
    assert iou(a, b) == pytest.approx(4 / 12)
    assert iou(np.zeros((2, 2), bool), np.zeros((2, 2), bool)) == 0.0
    white = np.ones((4, 4, 3))
    black_dot = white.copy()
    black_dot[0, 0] = 0
    assert iou(black_dot, black_dot) == 1.0
    rgba = np.zeros((4, 4, 4), np.uint8)
    rgba[0, 0, 3] = 10
    assert iou(rgba, rgba) == 1.0


def test_released_mse_is_three_quarters_of_the_rgb_mse() -> None:
    """SVGenius compute_mse.py and VectorGym calculate_mse compare RGBA with an opaque alpha."""
    rng = np.random.default_rng(0)
    a, b = rng.random((8, 8, 3)), rng.random((8, 8, 3))
    assert opaque_rgba_mse(a, b) == pytest.approx(0.75 * float(np.mean((a - b) ** 2)), rel=1e-12)


def test_mse_is_numpys_mean_of_squares_to_the_last_bit() -> None:
    """The in-place computation gives the bits of the textbook expression, for renders
    (float64 in [0, 1]), float32 images and uint8 pixels."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        shape = (int(rng.integers(1, 80)), int(rng.integers(1, 80)), 3)
        a, b = rng.random(shape), rng.random(shape)
        pairs = [(a, b), (a.astype(np.float32), b.astype(np.float32)),
                 (rng.integers(0, 256, shape, dtype=np.uint8),
                  rng.integers(0, 256, shape, dtype=np.uint8))]
        for x, y in pairs:
            expected = float(np.mean((np.asarray(x, np.float64) - np.asarray(y, np.float64)) ** 2))
            assert mse(x, y) == expected
