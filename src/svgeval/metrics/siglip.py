"""SigLIP / SigLIP 2 similarities of pooled embeddings: picture to picture (VCode) and picture to
text (SGP-GenBench).

Both are the raw cosine of L2-normalised pooled embeddings (``get_image_features`` /
``get_text_features`` of transformers' ``SiglipModel``: the attention-pooled image embedding and
the text tower's last-token embedding through its head). No scale, no clamp; SigLIP's
``logit_scale`` and ``logit_bias`` are not applied.

- ``siglip_image_score``: VCode's ``evaluation/metrics.py:26-41, 69-122``,
  ``google/siglip2-so400m-patch14-384`` with its processor (resize to 384 x 384, mean/std 0.5).
  VCode reads pictures with ``transformers.image_utils.load_image`` (alpha dropped, transparent
  pixels keep their stored colour, black in most renders): the preset's ``background``
  (``drop`` reproduces it; ``white`` composites).
- ``siglip_score``: SGP-GenBench's ``clips.py`` (``siglip_text_image_distances_batch``),
  ``google/siglip-base-patch16-384`` / ``google/siglip-large-patch16-384``, text tokenised with
  ``padding="max_length", max_length=64`` and truncation (the length SigLIP was trained with).

Weights by hub id or ``--model-path siglip=DIR`` (``SVGEVAL_SIGLIP_MODEL``); the model is the
preset's ``siglip_model``. This is not SVGauge's use of SigLIP (mean patch features, whitened:
:mod:`svgeval.metrics.svgauge`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics import _models, _pixels
from svgeval.metrics.model_settings import ModelSettings, chosen
from svgeval.metrics.presets import DEFAULT, MetricPreset, get_preset
from svgeval.metrics.registry import MetricInfo, describe_metric

Image = NDArray[np.generic]

describe_metric(
    MetricInfo(
        name="siglip_image",
        summary="cosine of the L2-normalised pooled SigLIP 2 image embeddings of the render and "
        "the source picture (get_image_features; no scale, no clamp)",
        value_range="[-1, 1]",
        higher_is_better=True,
        source="VCode (CSU-JPG/VCode) evaluation/metrics.py, google/siglip2-so400m-patch14-384",
    )
)


def _load(source: str, device: str) -> tuple[Any, Any, Any]:
    transformers = _models.require("transformers")
    model = transformers.AutoModel.from_pretrained(source).to(device).eval()
    processor = transformers.AutoImageProcessor.from_pretrained(source)
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(source)
    except (OSError, ValueError):  # an image-only export: siglip_image still works
        tokenizer = None
    return model, processor, tokenizer


def _siglip(preset: MetricPreset, model: str | None, model_path: str | None,
            device: str | None, model_settings: ModelSettings) -> tuple[Any, Any, Any, str]:
    name = model or preset.siglip_model
    dev = _models.pick_device(device)
    loaded = _models.load_first("siglip", f"the SigLIP model {name}", name, model_path,
                                lambda src: _load(src, dev), (dev,), settings=model_settings)
    return (*loaded, dev)


def _pooled(output: Any) -> Any:
    """The embedding tensor of ``get_*_features`` (a tensor, or an output with ``pooler_output``)."""
    return getattr(output, "pooler_output", output)


def image_embeddings(images: Sequence[Image], *, preset: str | MetricPreset = DEFAULT,
                     model: str | None = None, model_path: str | None = None,
                     device: str | None = None, batch_size: int = 16,
                     model_settings: ModelSettings | None = None) -> Any:
    """(N, D) L2-normalised pooled SigLIP image embeddings (float32 torch tensor)."""
    torch = _models.require("torch")
    settings, how = get_preset(preset), chosen(model_settings)
    net, processor, _, dev = _siglip(settings, model, model_path, device, how)
    out = []
    for chunk in _pixels.rgb_batches(images, batch_size, settings.background):
        pixels = _pixels.pixel_values(processor, chunk, dev, how.preprocess)
        with _models.inference(dev, how.precision):
            feats = _pooled(net.get_image_features(pixel_values=pixels)).float()
        out.append(torch.nn.functional.normalize(feats, dim=-1))
    return torch.cat(out)


def siglip_image_score(
    images_a: Sequence[Image],
    images_b: Sequence[Image],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    device: str | None = None,
    batch_size: int = 16,
    model_settings: ModelSettings | None = None,
) -> list[float]:
    """``cos(E(a), E(b))`` of the pooled SigLIP image embeddings of each pair (VCode's SigLIP
    similarity of a render and its source picture). Range [-1, 1], 1 for identical pictures;
    higher is better."""
    if len(images_a) != len(images_b):
        raise ValueError(f"{len(images_a)} and {len(images_b)} images")
    if not images_a:
        return []
    kw: dict[str, Any] = {"preset": preset, "model": model, "model_path": model_path,
                          "device": device, "batch_size": batch_size,
                          "model_settings": chosen(model_settings)}
    cos = (image_embeddings(images_a, **kw) * image_embeddings(images_b, **kw)).sum(-1)
    return [float(c) for c in cos.tolist()]


def siglip_score(
    images: Sequence[Image],
    texts: Sequence[str],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    device: str | None = None,
    batch_size: int = 16,
    model_settings: ModelSettings | None = None,
) -> list[float]:
    """``cos(E_img, E_txt)`` of each (picture, prompt) pair, texts padded or truncated to the
    preset's ``siglip_text_length`` (64) tokens, as SGP-GenBench's SigLIP score. Range
    [-1, 1]; higher is better."""
    torch = _models.require("torch")
    if len(images) != len(texts):
        raise ValueError(f"{len(images)} images but {len(texts)} texts")
    if not images:
        return []
    settings, how = get_preset(preset), chosen(model_settings)
    net, _, tokenizer, dev = _siglip(settings, model, model_path, device, how)
    if tokenizer is None:
        raise ValueError(f"the SigLIP model {model or settings.siglip_model} has no tokenizer")
    txt = []
    for chunk in _models.batches(list(texts), batch_size):
        enc = _models.to_device(tokenizer(
            list(chunk), padding="max_length", max_length=settings.siglip_text_length,
            truncation=True, return_tensors="pt"), dev)
        with _models.inference(dev, how.precision):
            feats = _pooled(net.get_text_features(input_ids=enc["input_ids"])).float()
        txt.append(torch.nn.functional.normalize(feats, dim=-1))
    img = image_embeddings(images, preset=settings, model=model, model_path=model_path,
                           device=device, batch_size=batch_size, model_settings=how)
    return [float(c) for c in (img * torch.cat(txt)).sum(-1).tolist()]
