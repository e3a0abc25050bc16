"""The Fréchet variants, OmniSVG's reference sampler and the FID input readings (torchvision
network, pre-resize, background), against numbers the released scorers gave on the same inputs.

Released numbers: ``tests/upstream/frechet.py`` (``PYTHONPATH=tests python -m upstream.frechet``,
in the test environment with the upstream packages of ``.venv/ref-packages``) runs OmniSVG's
``calculate_frechet_distance`` and its ``np.random.seed(42); np.random.choice`` sampler
unmodified (``metrics/compute_fid.py`` at f2e033e; numpy 2.4.6, scipy 1.17.1) and cd-fvd 0.1.1's
``FeatureStats`` and ``compute_fvd_from_stats`` on the inputs of ``support.frechet_inputs``, and
prints the numbers below.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.frechet_inputs import CD_FVD_REAL, omnisvg_check_features

from svgeval.metrics import _pixels
from svgeval.metrics.fid import fid, inception_features, inception_input
from svgeval.metrics.frechet import (
    feature_statistics,
    fid_from_features,
    frechet_distance,
    sample_indices,
    sample_references,
)
from svgeval.metrics.presets import DEFAULT


def test_omnisvg_variant_gives_the_released_number() -> None:
    a, b = omnisvg_check_features()
    # released calculate_frechet_distance(np.mean, np.cov of a and b): 6.000555113528543
    assert fid_from_features(a, b, variant="omnisvg") == pytest.approx(6.000555113528543, abs=1e-12)
    # the same statistics without the epsilon (pytorch-fid, sqrtm finite): 6.000556316517722
    assert fid_from_features(a, b, method="sqrtm") == pytest.approx(6.000556316517722, abs=1e-12)
    assert fid_from_features(a, b) == pytest.approx(6.000556316517722, abs=1e-9)


def test_omnisvg_variant_of_unit_gaussians_one_apart_per_axis() -> None:
    # released: 2.000000000000001 for mu 0 vs 1 in 2-d, both covariances I
    got = frechet_distance(np.zeros(2), np.eye(2), np.ones(2), np.eye(2), variant="omnisvg")
    assert got == pytest.approx(2.000000000000001, abs=1e-14)


def test_cd_fvd_variant_fits_population_covariances() -> None:
    # cd-fvd FeatureStats on (0,0),(2,0),(0,2),(2,2): mean (1,1), covariance I (np.cov: 4/3 I);
    # fake = real + (1,1): FVD 2.0
    real = CD_FVD_REAL
    mu, sigma = feature_statistics(real, population=True)
    assert np.allclose(mu, [1, 1]) and np.allclose(sigma, np.eye(2))
    assert np.allclose(feature_statistics(real)[1], 4 / 3 * np.eye(2))
    for method in ("sqrtm", "low-rank"):
        assert fid_from_features(real, real + 1, variant="cd-fvd", method=method) == pytest.approx(2.0)


def test_population_low_rank_form_equals_its_sqrtm() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(5, 12)), rng.normal(size=(7, 12)) + 0.5
    sqrtm = fid_from_features(a, b, method="sqrtm", variant="cd-fvd")
    assert fid_from_features(a, b, method="low-rank", variant="cd-fvd") == pytest.approx(sqrtm, rel=1e-6)
    assert sqrtm != pytest.approx(fid_from_features(a, b, method="sqrtm"), rel=1e-3)


def test_unknown_variant_is_refused() -> None:
    with pytest.raises(ValueError, match="variant must be one of"):
        frechet_distance(np.zeros(1), np.eye(1), np.zeros(1), np.eye(1), variant="tf")


@pytest.mark.parametrize(("n", "count", "first", "last"), [
    (150, 4, [18, 73, 78, 118], 118),
    (1000, 30, [76, 101, 136, 174, 210], 986),
    (255_412, 7_662, [41, 44, 89, 117, 119], 255_398),   # MMSVG-Illustration today
    (904_011, 27_120, [18, 31, 43, 53, 60], 904_009),    # MMSVG-Icon today
])
def test_reference_sample_is_the_released_one(n: int, count: int, first: list[int], last: int) -> None:
    chosen = sample_indices(n, 0.03, 42)
    assert len(chosen) == count and chosen[: len(first)] == first and chosen[-1] == last
    assert chosen == sorted(set(chosen))


def test_sample_references_keeps_everything_without_a_fraction() -> None:
    items = [f"ref{i}" for i in range(150)]
    assert sample_references(items, None) == items
    assert sample_references(items, 0.03, 42) == ["ref18", "ref73", "ref78", "ref118"]
    assert DEFAULT.fid_reference_fraction is None and DEFAULT.fid_reference_seed == 42


def test_transparent_pixels_become_white_black_or_their_stored_colour() -> None:
    rgba = np.zeros((2, 2, 4), np.uint8)
    rgba[0, 0] = (200, 10, 10, 0)      # fully transparent, a stored red
    rgba[1, 1] = (0, 0, 255, 128)      # half-transparent blue
    white = _pixels.as_rgb_uint8(rgba)
    assert white[0, 0].tolist() == [255, 255, 255] and white[1, 1].tolist() == [127, 127, 255]
    black = _pixels.as_rgb_uint8(rgba, background="black")
    assert black[0, 0].tolist() == [0, 0, 0] and black[1, 1].tolist() == [0, 0, 128]
    dropped = _pixels.as_rgb_uint8(rgba, background="drop")  # PIL convert("RGB")
    from PIL import Image

    assert np.array_equal(dropped, np.asarray(Image.fromarray(rgba).convert("RGB")))
    with pytest.raises(ValueError, match="background must be one of"):
        _pixels.as_rgb_uint8(rgba, background="grey")


def test_torchvision_input_is_pil_bilinear_299_imagenet_normalised() -> None:
    from PIL import Image

    rng = np.random.default_rng(4)
    image = rng.integers(0, 256, (40, 52, 3), dtype=np.uint8)
    x = inception_input(image, "torchvision")
    resized = np.asarray(Image.fromarray(image).resize((299, 299), Image.Resampling.BILINEAR))
    mean, std = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])
    expected = ((resized / 255.0 - mean) / std).transpose(2, 0, 1)
    assert x.shape == (3, 299, 299) and np.allclose(x, expected, atol=1e-5)


def test_pre_resize_squashes_to_256_with_pil_bilinear_first() -> None:
    pytest.importorskip("torch")
    from PIL import Image

    rng = np.random.default_rng(5)
    image = rng.integers(0, 256, (300, 200, 3), dtype=np.uint8)
    squashed = np.asarray(Image.fromarray(image).resize((256, 256), Image.Resampling.BILINEAR))
    assert np.array_equal(inception_input(image, "pytorch-fid", pre_resize=256),
                          inception_input(squashed, "pytorch-fid"))
    assert not np.allclose(inception_input(image, "pytorch-fid", pre_resize=256),
                           inception_input(image, "pytorch-fid"))


def test_torchvision_network_loads_its_file_and_refuses_the_fid_one(
        torchvision_inception_weights: Path, inception_weights: Path) -> None:
    images = [np.full((30, 30, 3), v, np.uint8) for v in (0, 128, 255)]
    feats = inception_features(images, network="torchvision",
                               model_path=str(torchvision_inception_weights.parent))
    assert feats.shape == (3, 2048) and np.ptp(feats, axis=0).max() > 0
    with pytest.raises(Exception, match="1008 classes"):
        inception_features(images, network="torchvision", model_path=str(inception_weights))
    same = fid(images, images[::-1], network="torchvision",
               model_path=str(torchvision_inception_weights))
    assert abs(same) < 1e-9 * np.trace(np.cov(feats, rowvar=False))  # one set, another order
