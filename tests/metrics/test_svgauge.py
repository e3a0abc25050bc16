"""SVGauge: the whitening, S_I, S_T (Eq. 2) and the combination, against numpy and by hand;
the models are tiny random SigLIP and BLIP saved to disk, SBERT the real packaged MiniLM."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.tiny_svgauge_models import (
    icon_images,
    tiny_captioner_dir,
    tiny_projection,
    tiny_siglip_dir,
)

from svgeval.metrics import _models
from svgeval.metrics.projection import Projection, fit_projection, probe_image
from svgeval.metrics.registry import MetricUnavailable
from svgeval.metrics.svgauge import (
    combine,
    load_encoder,
    load_projection,
    semantic_from_cosines,
    svgauge,
    tfidf_cosines,
    visual_similarity,
)

__all__ = ["tiny_captioner_dir", "tiny_projection", "tiny_siglip_dir"]


def random_features(n: int = 200, d: int = 12, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + rng.normal(size=d)


def fit(features: np.ndarray, k: int) -> Projection:
    return fit_projection(features, n_components=k, encoder="e", probe=np.ones(3), render_size=8)


def test_whitening_gives_identity_covariance_on_the_fit_data() -> None:
    features = random_features()
    projected = fit(features, 12).apply(features)
    np.testing.assert_allclose(projected.mean(axis=0), 0, atol=1e-10)
    np.testing.assert_allclose(np.cov(projected, rowvar=False), np.eye(12), atol=1e-8)


def test_whitening_matches_numpy_svd_up_to_sign() -> None:
    features = random_features(seed=3)
    projection = fit(features, 5)
    centred = features - features.mean(axis=0)
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    np.testing.assert_allclose(projection.eigenvalues, singular[:5] ** 2 / (len(features) - 1))
    np.testing.assert_allclose(np.abs(projection.components @ vt[:5].T), np.eye(5), atol=1e-8)


def test_fit_keeps_no_more_directions_than_the_data_spans() -> None:
    assert len(fit(random_features(n=6), 128).eigenvalues) == 5


def test_projection_round_trips_through_a_file(tmp_path: Path) -> None:
    projection = fit(random_features(), 4)
    projection.save(tmp_path / "p.proj")
    loaded = Projection.load(tmp_path / "p.proj")
    np.testing.assert_array_equal(loaded.components, projection.components)
    assert (loaded.encoder, loaded.render_size, loaded.n_fit) == ("e", 8, 200)


def test_semantic_similarity_follows_eq_2() -> None:
    assert semantic_from_cosines([0.5, -0.2, 1.0], [1.0, 0.5, 0.0]) == pytest.approx(
        [0.5 * 1.0, -0.2 * 0.9, 0.8])


def test_tfidf_cosine_is_one_for_the_same_text_and_zero_without_shared_words() -> None:
    pytest.importorskip("sklearn", reason="TF-IDF comes from scikit-learn (models extra)")
    prompts = ["a red circle", "a blue square", "the house icon"]
    values = tfidf_cosines(prompts, ["a red circle", "green tree", "house icon"])
    assert values[0] == pytest.approx(1.0) and values[1] == 0.0 and 0 < values[2] < 1


def test_combination_and_the_reference_free_variant() -> None:
    assert combine([0.5], [0.25]) == pytest.approx([0.6 * 0.5 + 0.4 * 0.25])
    assert combine([None], [0.25], alpha=0.0, beta=1.0) == [0.25]
    assert combine([None], [0.25]) == [None]


def test_visual_similarity_of_an_image_with_itself_is_one(tiny_siglip_dir: Path,
                                                           tiny_projection: Path) -> None:
    encoder = load_encoder(model_path=str(tiny_siglip_dir), device="cpu")
    projection = load_projection(encoder, str(tiny_projection))
    images = icon_images(4, seed=5)
    same = visual_similarity(images, images, encoder=encoder, projection=projection)
    assert same == pytest.approx([1.0] * 4)
    other = visual_similarity(images, images[::-1], encoder=encoder, projection=projection)
    assert all(-1 <= v < 1 for v in other)
    # S_I by hand: whitened mean patch features, cosine
    grid = encoder.features(images[:2])
    white = (grid - projection.mean) @ projection.components.T / np.sqrt(projection.eigenvalues)
    expected = white[0] @ white[1] / np.linalg.norm(white[0]) / np.linalg.norm(white[1])
    assert visual_similarity(images[:1], images[1:2], encoder=encoder,
                             projection=projection)[0] == pytest.approx(expected)


def test_a_projection_of_another_encoder_is_refused(tiny_siglip_dir: Path, tmp_path: Path) -> None:
    encoder = load_encoder(model_path=str(tiny_siglip_dir), device="cpu")
    features = random_features(n=40, d=32)
    other = fit_projection(features, n_components=8, encoder="google/siglip-other",
                           probe=features[0], render_size=encoder.input_size)
    other.save(tmp_path / "other.npz")
    with pytest.raises(MetricUnavailable, match="another encoder"):
        load_projection(encoder, str(tmp_path / "other.npz"))
    assert probe_image(8).shape == (8, 8, 3)


def test_a_missing_projection_says_how_to_fit_one(tiny_siglip_dir: Path, tmp_path: Path) -> None:
    _models.clear_cache()
    encoder = load_encoder(model_path=str(tiny_siglip_dir), device="cpu")
    with pytest.raises(MetricUnavailable, match="svgeval svgauge fit"):
        load_projection(encoder, str(tmp_path / "none.npz"))


def test_svgauge_end_to_end_with_tiny_models(tiny_siglip_dir: Path, tiny_captioner_dir: Path,
                                             tiny_projection: Path) -> None:
    images = icon_images(3, seed=7)
    prompts = ["a red circle", "a blue square", "a star icon"]
    kw = {"encoder_path": str(tiny_siglip_dir), "projection_path": str(tiny_projection),
          "captioner_path": str(tiny_captioner_dir), "device": "cpu"}
    result = svgauge(prompts, images, images, **kw)
    assert result.s_i == pytest.approx([1.0] * 3) and len(result.captions) == 3
    assert result.score == pytest.approx([0.6 + 0.4 * st for st in result.s_t])
    free = svgauge(prompts, None, images, alpha=0.0, beta=1.0, **kw)
    assert free.score == pytest.approx(result.s_t) and free.s_i == [None] * 3


def test_fit_command_saves_a_projection_the_metric_accepts(tiny_siglip_dir: Path,
                                                           tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from svgeval.cli import app
    from svgeval.svg.demo_corpus import write_demo_corpus

    monkeypatch.setenv("SVGEVAL_SVGAUGE_MODEL", "")  # restored after the CLI sets it
    write_demo_corpus(tmp_path / "icons")
    out = tmp_path / "proj.npz"
    result = CliRunner().invoke(app, ["svgauge", "fit", "--svgs", str(tmp_path / "icons"),
                                      "--out", str(out), "--components", "4", "--device", "cpu",
                                      "--model-path", f"svgauge={tiny_siglip_dir}"])
    assert result.exit_code == 0, result.output
    projection = Projection.load(out)
    assert len(projection.eigenvalues) == 4 and projection.render_size == 32
    assert projection.n_fit >= 10
    encoder = load_encoder(model_path=str(tiny_siglip_dir), device="cpu")
    assert load_projection(encoder, str(out)).encoder == str(tiny_siglip_dir)


def test_a_cls_token_is_left_out_of_the_mean(tiny_clip_dir: Path) -> None:
    import torch

    encoder = load_encoder(model_path=str(tiny_clip_dir), device="cpu")
    images = icon_images(2, size=28)
    pixels = encoder.processor(images=images, return_tensors="pt")["pixel_values"]
    with torch.inference_mode():
        grid = encoder.model(pixel_values=pixels).last_hidden_state
    assert grid.shape[1] == encoder.patches + 1
    np.testing.assert_allclose(encoder.features(images), grid[:, 1:].mean(dim=1).numpy(),
                               rtol=1e-5, atol=1e-6)
