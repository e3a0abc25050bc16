"""DreamSim: perceptual distance of two images from an ensemble of three ViT embeddings.

DreamSim (Fu et al., 2023; the ``dreamsim`` package, 0.2.1, ``dreamsim_type="ensemble"``)
embeds an image, resized to 224 x 224 (bicubic) with values in [0, 1], by concatenating

* the CLS token of DINO ViT-B/16's last block (before the final layer norm), on inputs
  normalised with ImageNet statistics,
* the image embedding (projected, post layer norm CLS) of OpenAI CLIP ViT-B/16, and
* the image embedding of OpenCLIP ViT-B/16, both on inputs normalised with CLIP statistics,

each backbone fine-tuned with LoRA on human similarity judgements; the embedding is centred
(its mean over features subtracted) and the distance is ``1 - cos(e(a), e(b))``, 0 for
identical images, typically below 1, at most 2.

Weights load from either of two layouts (:mod:`svgeval.metrics._models` says where they are
looked for: ``model_path=``, ``SVGEVAL_DREAMSIM_MODEL``, ``$SVGEVAL_MODEL_DIR/dreamsim``, a hub
id):

* a folder (or hub repo) with the three backbones in transformers format, LoRA merged:
  ``dino/`` (``ViTModel``), ``clip/`` and ``open_clip/`` (``CLIPVisionModelWithProjection``);
* the official release folder (``ensemble_lora/`` and the three ``*_pretrain.pth*`` files the
  package downloads), read by the ``dreamsim`` package itself when it is installed (it needs
  torchvision, timm, peft and open_clip_torch).

No benchmark reports DreamSim, so it is not in the metric registry: RLRF's reward terms
(:mod:`svgeval.rewards.model_terms`) call :func:`dreamsim` directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics import _models, _pixels
from svgeval.metrics.model_settings import ModelSettings, chosen

SIZE = 224
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)
DEFAULT_MODEL = "dreamsim"
"""Looked for as ``$SVGEVAL_MODEL_DIR/dreamsim``; no hub repo holds the weights under it."""
INSTALL = ("the official DreamSim checkpoint is read by the dreamsim package: pip install "
           "dreamsim (it needs torchvision)")


class Ensemble:
    """The three backbones of a DreamSim ensemble and the device they run on."""

    def __init__(self, dino: Any, clip: Any, open_clip: Any, device: str) -> None:
        self.dino, self.clip, self.open_clip, self.device = dino, clip, open_clip, device

    def embed(self, pixels: Any) -> Any:
        """Centred ensemble embeddings (N, D) of images (N, 3, 224, 224) in [0, 1]."""
        torch = _models.require("torch")
        dino_in = _normalise(pixels, IMAGENET_MEAN, IMAGENET_STD)
        clip_in = _normalise(pixels, CLIP_MEAN, CLIP_STD)
        hidden = self.dino(pixel_values=dino_in, output_hidden_states=True).hidden_states[-1]
        parts = [hidden[:, 0], self.clip(pixel_values=clip_in).image_embeds,
                 self.open_clip(pixel_values=clip_in).image_embeds]
        embedding = torch.cat([part.float() for part in parts], dim=-1)
        return embedding - embedding.mean(dim=-1, keepdim=True)


class Official:
    """The ``dreamsim`` package's model, read from the official release folder."""

    def __init__(self, model: Any, device: str) -> None:
        self.model, self.device = model, device

    def embed(self, pixels: Any) -> Any:
        return self.model.embed(pixels).float()


def _normalise(pixels: Any, mean: Sequence[float], std: Sequence[float]) -> Any:
    torch = _models.require("torch")
    shape = (1, 3, 1, 1)
    mean_t = torch.tensor(mean, dtype=pixels.dtype, device=pixels.device).view(shape)
    std_t = torch.tensor(std, dtype=pixels.dtype, device=pixels.device).view(shape)
    return (pixels - mean_t) / std_t


def _load(source: str, device: str) -> Ensemble | Official:
    if (Path(source) / "ensemble_lora").is_dir():
        package = _models.require("dreamsim", INSTALL)
        model, _ = package.dreamsim(pretrained=True, device=device, cache_dir=source)
        return Official(model, device)
    transformers = _models.require("transformers")
    vision = transformers.CLIPVisionModelWithProjection
    dino, clip, open_clip = (part.to(device).eval() for part in (
        transformers.ViTModel.from_pretrained(source, subfolder="dino", add_pooling_layer=False),
        vision.from_pretrained(source, subfolder="clip"),
        vision.from_pretrained(source, subfolder="open_clip")))
    return Ensemble(dino, clip, open_clip, device)


def load(model: str | None = None, model_path: str | None = None,
         device: str | None = None,
         model_settings: ModelSettings | None = None) -> Ensemble | Official:
    """The DreamSim ensemble, loaded once per process and device (see the module docstring)."""
    dev = _models.pick_device(device)
    name = model or DEFAULT_MODEL
    return _models.load_first(
        "dreamsim", "the DreamSim ensemble weights (dino/, clip/, open_clip/ in transformers "
        "format, or the official release folder)", name, model_path,
        lambda src: _load(src, dev), (dev,), settings=model_settings)


def prepare(images: Sequence[NDArray[np.generic]]) -> Any:
    """Images as DreamSim reads them: RGB, resized to 224 x 224 with Pillow's bicubic filter
    (the package's ``transforms.Resize(..., BICUBIC)`` on a PIL image), values in [0, 1],
    (N, 3, 224, 224) float32."""
    from PIL import Image

    arrays = []
    for image in images:
        rgb = _pixels.as_rgb_uint8(image)
        if rgb.shape[:2] != (SIZE, SIZE):
            rgb = np.asarray(Image.fromarray(rgb).resize((SIZE, SIZE), Image.Resampling.BICUBIC))
        arrays.append(rgb)
    return _pixels.normalize_batch(arrays, (0.0, 0.0, 0.0), (1.0, 1.0, 1.0))


def dreamsim(
    images_a: Sequence[NDArray[np.generic]],
    images_b: Sequence[NDArray[np.generic]],
    *,
    model: str | None = None,
    model_path: str | None = None,
    device: str | None = None,
    batch_size: int = 32,
    model_settings: ModelSettings | None = None,
) -> list[float]:
    """DreamSim distance of each pair, ``1 - cos(e(a), e(b))`` (module docstring). Range
    [0, 2], 0 for identical images; lower is better."""
    torch = _models.require("torch")
    if len(images_a) != len(images_b):
        raise ValueError(f"{len(images_a)} and {len(images_b)} images")
    if not images_a:
        return []
    how = chosen(model_settings)
    net = load(model, model_path, device, how)
    out: list[float] = []
    for start in range(0, len(images_a), batch_size):
        a = prepare(images_a[start : start + batch_size]).to(net.device)
        b = prepare(images_b[start : start + batch_size]).to(net.device)
        with _models.inference(net.device, how.precision):
            cos = torch.nn.functional.cosine_similarity(net.embed(a), net.embed(b), dim=-1)
        out.extend(1.0 - float(c) for c in cos.float().tolist())
    return out
