"""FID and CLIP-FID: the Fréchet distance against closed forms, the pipeline with random weights."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from svgeval.metrics.fid import (
    clip_fid,
    fid,
    inception_batch,
    inception_features,
    inception_input,
)
from svgeval.metrics.frechet import feature_statistics, fid_from_features, frechet_distance
from svgeval.metrics.registry import METRICS, MetricUnavailable


def _drawings(n: int, seed: int, size: int = 64) -> list[np.ndarray]:
    """Coloured rectangles on white, like simple icon renders."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        image = np.full((size, size, 3), 255, np.uint8)
        for _ in range(3):
            y0, x0 = rng.integers(0, size - 8, 2)
            h, w = rng.integers(4, size // 2, 2)
            image[y0 : y0 + h, x0 : x0 + w] = rng.integers(0, 256, 3)
        out.append(image)
    return out


def _spd(rng: np.random.Generator, d: int) -> np.ndarray:
    a = rng.normal(size=(d, d))
    return a @ a.T / d + 0.1 * np.eye(d)


def _trace_sqrt_product(s1: np.ndarray, s2: np.ndarray) -> float:
    """Tr((S1 S2)^(1/2)) = Tr((S1^(1/2) S2 S1^(1/2))^(1/2)) through symmetric eigendecompositions,
    independent of scipy's sqrtm."""
    w, v = np.linalg.eigh(s1)
    root = (v * np.sqrt(w)) @ v.T
    inner = np.linalg.eigvalsh(root @ s2 @ root)
    return float(np.sqrt(np.clip(inner, 0, None)).sum())


def test_identical_statistics_are_zero() -> None:
    rng = np.random.default_rng(0)
    mu, sigma = rng.normal(size=8), _spd(rng, 8)
    assert frechet_distance(mu, sigma, mu, sigma) == pytest.approx(0.0, abs=1e-9)


def test_diagonal_gaussians_have_the_closed_form() -> None:
    # diagonal S: Tr(S1 + S2 - 2 sqrt(S1 S2)) = sum (sqrt(a) - sqrt(b))^2
    rng = np.random.default_rng(1)
    mu1, mu2 = rng.normal(size=16), rng.normal(size=16)
    a, b = rng.uniform(0.1, 3.0, 16), rng.uniform(0.1, 3.0, 16)
    expected = np.sum((mu1 - mu2) ** 2) + np.sum((np.sqrt(a) - np.sqrt(b)) ** 2)
    assert frechet_distance(mu1, np.diag(a), mu2, np.diag(b)) == pytest.approx(expected, rel=1e-10)
    # one dimension: (m1 - m2)^2 + (s1 - s2)^2 with standard deviations s
    assert frechet_distance(np.array([1.0]), np.array([[4.0]]), np.array([-2.0]),
                            np.array([[9.0]])) == pytest.approx(9.0 + 1.0)


def test_full_covariances_match_an_eigendecomposition() -> None:
    rng = np.random.default_rng(2)
    for d in (2, 5, 32):
        mu1, mu2, s1, s2 = rng.normal(size=d), rng.normal(size=d), _spd(rng, d), _spd(rng, d)
        expected = (np.sum((mu1 - mu2) ** 2) + np.trace(s1) + np.trace(s2)
                    - 2 * _trace_sqrt_product(s1, s2))
        assert frechet_distance(mu1, s1, mu2, s2) == pytest.approx(expected, rel=1e-8)
        assert frechet_distance(mu2, s2, mu1, s1) == pytest.approx(expected, rel=1e-8)


def test_statistics_use_the_sample_covariance() -> None:
    feats = np.random.default_rng(3).normal(size=(10, 4))
    mu, sigma = feature_statistics(feats)
    centred = feats - feats.mean(0)
    assert np.allclose(mu, feats.mean(0))
    assert np.allclose(sigma, centred.T @ centred / 9)
    with pytest.raises(ValueError, match="N >= 2"):
        feature_statistics(feats[:1])


def test_fewer_samples_than_dimensions_stay_finite() -> None:
    # rank-deficient covariances (N < D), as with small sets of 2048-d features
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(6, 64)), rng.normal(size=(6, 64)) + 0.5
    scale = np.trace(np.cov(a, rowvar=False))
    assert abs(fid_from_features(a, a)) < 1e-9 * scale
    # sqrtm of the singular product is only accurate to ~1e-6 relative here
    assert abs(fid_from_features(a, a, method="sqrtm")) < 1e-5 * scale
    assert np.isfinite(fid_from_features(a, b)) and fid_from_features(a, b) > 10


def test_low_rank_trace_equals_sqrtm() -> None:
    rng = np.random.default_rng(5)
    for n_a, n_b, d in ((6, 9, 64), (3, 3, 16), (40, 50, 8)):
        a, b = rng.normal(size=(n_a, d)), rng.normal(size=(n_b, d)) * 1.5 + 0.3
        sqrtm = fid_from_features(a, b, method="sqrtm")
        assert fid_from_features(a, b, method="low-rank") == pytest.approx(sqrtm, rel=1e-6)
        assert fid_from_features(a, b) == pytest.approx(sqrtm, rel=1e-6)


def test_mismatched_statistics_are_refused() -> None:
    with pytest.raises(ValueError, match="mismatched"):
        frechet_distance(np.zeros(3), np.eye(3), np.zeros(4), np.eye(4))


def test_fid_and_clip_fid_are_registered_lower_is_better() -> None:
    for name in ("fid", "clip_fid"):
        info = METRICS.get(name)
        assert info.higher_is_better is False and info.value_range.startswith("[0")


@pytest.mark.parametrize("mode", ["pytorch-fid", "clean", "tf1"])
def test_inputs_are_299_and_in_range(mode: str) -> None:
    pytest.importorskip("torch")
    image = _drawings(1, seed=5, size=50)[0]
    x = inception_input(image, mode)
    assert x.shape == (3, 299, 299) and x.dtype == np.float32
    # bilinear resizing in float32 may overshoot by a rounding (1.0000002 with one thread)
    assert -1.0 - 1e-6 <= x.min() and x.max() <= 1.0 + 1e-6
    flat = inception_input(np.full((40, 30, 3), 255, np.uint8), mode)
    white = 1.0 if mode == "pytorch-fid" else 127.0 / 128.0
    assert np.allclose(flat, white, atol=1e-6)


def test_tf1_resize_of_the_input_size_is_the_identity() -> None:
    image = np.random.default_rng(6).integers(0, 256, (299, 299, 3), dtype=np.uint8)
    x = inception_input(image, "tf1")
    assert np.array_equal(x * 128 + 128, image.transpose(2, 0, 1).astype(np.float32))


@pytest.mark.parametrize("where", ["cpu", "device"])
def test_a_batch_is_each_image_s_input_resized_at_once(where: str) -> None:
    """pytorch-fid's resize of a whole batch (on the metric's device under ``--preprocess
    device``) gives each image's own input, bit for bit and in the same (contiguous) layout;
    other modes and mixed sizes go one image at a time."""
    torch = pytest.importorskip("torch")
    drawings = _drawings(3, seed=9, size=50)
    for mode, images, pre in [("pytorch-fid", drawings, None), ("pytorch-fid", drawings, 40),
                              ("clean", drawings, None),
                              ("pytorch-fid", [drawings[0], drawings[1][:30]], None)]:
        batch = inception_batch(images, mode, "cpu", preprocess=where, pre_resize=pre)
        one_by_one = np.stack([inception_input(i, mode, pre_resize=pre) for i in images])
        assert batch.is_contiguous() and batch.dtype == torch.float32
        assert np.array_equal(batch.numpy(), one_by_one), (mode, pre)


@pytest.fixture(scope="module")
def two_sets(inception_weights: Path) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """Two sets of 4 drawings and the Inception features of the first (batches of 3 and 1)."""
    a, b = _drawings(4, seed=7, size=48), _drawings(4, seed=8, size=48)
    return a, b, inception_features(a, model_path=str(inception_weights), batch_size=3)


def test_fid_of_a_set_with_itself_is_zero(
        inception_weights: Path, two_sets: tuple[list[np.ndarray], list[np.ndarray], np.ndarray]) -> None:
    a, b, feats = two_sets
    assert feats.shape == (4, 2048) and np.ptp(feats, axis=0).max() > 0
    scale = np.trace(np.cov(feats, rowvar=False))
    assert abs(fid_from_features(feats, feats)) < 1e-9 * scale
    other = fid(a, b, model_path=str(inception_weights), batch_size=8)
    assert other > 1e-3 * scale
    feats_b = inception_features(b, model_path=str(inception_weights))
    assert fid_from_features(feats_b, feats) == pytest.approx(other, rel=1e-6)


def test_batch_size_does_not_change_the_features(
        inception_weights: Path, two_sets: tuple[list[np.ndarray], list[np.ndarray], np.ndarray]) -> None:
    a, _, feats = two_sets
    one = inception_features(a[:2], model_path=str(inception_weights), batch_size=1)
    # float32 convolutions may sum in another order per batch size
    assert np.allclose(one, feats[:2], rtol=1e-4, atol=1e-4 * np.abs(feats).max())


def test_inception_reads_a_lazy_set_a_batch_at_a_time(
        inception_weights: Path, two_sets: tuple[list[np.ndarray], list[np.ndarray], np.ndarray]) -> None:
    """A set-level metric hands over pictures read when indexed (a group kept compressed):
    no more of them alive than a batch, each read once, the same features as from a list."""
    import weakref

    from svgeval.tasks.lazy import LazySequence

    a, _, feats = two_sets
    pictures = a * 2  # eight pictures, batches of 3
    reads: list[int] = []
    alive, most = [0], [0]

    def read(index: int) -> np.ndarray:
        reads.append(index)
        picture = pictures[index].copy()
        alive[0] += 1
        most[0] = max(most[0], alive[0])
        weakref.finalize(picture, lambda: alive.__setitem__(0, alive[0] - 1))
        return picture

    lazy = inception_features(LazySequence(range(8), read), model_path=str(inception_weights),
                              batch_size=3)
    assert reads == list(range(8)) and most[0] <= 3
    assert np.array_equal(lazy[:3], feats[:3])  # the first batch: the same three pictures


def test_inception_weights_are_found_in_the_torch_hub_cache(
        inception_weights: Path, two_sets: tuple[list[np.ndarray], list[np.ndarray], np.ndarray],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from svgeval.metrics import _models

    monkeypatch.setenv("TORCH_HOME", str(inception_weights.parents[2]))
    monkeypatch.delenv("SVGEVAL_FID_MODEL", raising=False)
    monkeypatch.delenv("SVGEVAL_MODEL_DIR", raising=False)
    _models.clear_cache()
    a, _, feats = two_sets
    assert np.allclose(inception_features(a[:1]), feats[:1], rtol=1e-4, atol=1e-4)


def test_missing_inception_weights_say_what_and_how(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    from svgeval.metrics import _models

    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("SVGEVAL_FID_MODEL", raising=False)
    monkeypatch.delenv("SVGEVAL_MODEL_DIR", raising=False)
    _models.clear_cache()
    with pytest.raises(MetricUnavailable) as info:
        fid(_drawings(2, seed=11), _drawings(2, seed=12))
    message = str(info.value)
    assert "pt_inception-2015-12-05-6726825d.pth" in message and "SVGEVAL_FID_MODEL" in message


def test_fid_needs_two_images_per_set(inception_weights: Path) -> None:
    with pytest.raises(ValueError, match="at least 2"):
        fid(_drawings(1, seed=13), _drawings(3, seed=14), model_path=str(inception_weights))


def test_clip_fid_uses_raw_clip_image_embeddings(tiny_clip_dir: Path) -> None:
    import torch
    from transformers import CLIPImageProcessor, CLIPModel

    a, b = _drawings(4, seed=15, size=40), _drawings(4, seed=16, size=40)
    model = CLIPModel.from_pretrained(tiny_clip_dir).eval()
    processor = CLIPImageProcessor.from_pretrained(tiny_clip_dir)

    def raw(images: list[np.ndarray]) -> np.ndarray:
        pixels = processor(images=images, return_tensors="pt")["pixel_values"]
        with torch.inference_mode():
            emb = model.get_image_features(pixel_values=pixels)
        return getattr(emb, "pooler_output", emb).double().numpy()  # type: ignore[no-any-return]

    expected = fid_from_features(raw(a), raw(b))
    got = clip_fid(a, b, model_path=str(tiny_clip_dir), batch_size=3)
    assert got == pytest.approx(expected, rel=1e-4)
    assert clip_fid(a, a, model_path=str(tiny_clip_dir)) == pytest.approx(0.0, abs=1e-6 * expected)


def _released_train_mode_features(weights: Path, images: list[np.ndarray]) -> np.ndarray:
    """InternSVG's ``metrics/FID.py:29-32`` / StarVector's ``compute_fid.py:25-30``: the network
    built and loaded, never switched to eval mode (a new ``nn.Module`` is in train mode), one
    batch of up to 50 pictures at a time."""
    import torch

    from svgeval.metrics._inception import network_class

    net = network_class()()
    net.load_state_dict(torch.load(weights, weights_only=True), strict=False)
    assert net.training
    x = torch.from_numpy(np.stack([inception_input(i, "pytorch-fid") for i in images]))
    with torch.no_grad():
        return np.asarray(net(x).double().numpy())


def test_train_mode_batch_norm_is_the_released_fid_calculator(
        inception_weights: Path, two_sets: tuple[list[np.ndarray], list[np.ndarray], np.ndarray],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``batchnorm="train"`` (the internsvg and starvector presets) equals the released
    train-mode network; eval mode (pytorch-fid, VLMEvalKit) differs, and the shared network's
    running statistics survive a train-mode pass."""
    from svgeval.metrics import fid as fid_module

    a, b, eval_feats = two_sets
    a, b, path = a[:3], b[:3], str(inception_weights)
    released = _released_train_mode_features(inception_weights, a)
    by_preset = fid(a, b, preset="internsvg", model_path=path, batch_size=1)
    assert by_preset == pytest.approx(fid_from_features(
        released, _released_train_mode_features(inception_weights, b)), rel=1e-4)
    assert np.abs(released - eval_feats[:3]).max() > 1e-2 * np.abs(eval_feats).max()
    again = inception_features(a, model_path=path, batchnorm="eval", batch_size=3)
    assert np.array_equal(again, eval_feats[:3])  # running statistics restored
    # batches of RELEASED_BATCH in sample order: a picture's feature depends on its batch
    monkeypatch.setattr(fid_module, "RELEASED_BATCH", 2)
    pairs = inception_features(a, model_path=path, batchnorm="train")
    chunk = _released_train_mode_features(inception_weights, a[:2])
    assert np.allclose(pairs[:2], chunk, rtol=1e-4, atol=1e-4 * np.abs(chunk).max())
    assert np.abs(pairs[:2] - released[:2]).max() > 1e-3 * np.abs(chunk).max()
    with pytest.raises(ValueError, match="batchnorm must be one of eval, train"):
        inception_features(a, model_path=path, batchnorm="batch")
