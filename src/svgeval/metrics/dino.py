"""DINO score: similarity of DINOv2 features of a generated and a reference render."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TypedDict

import numpy as np
from numpy.typing import NDArray
from typing_extensions import Unpack

from svgeval.metrics import _models, _pixels
from svgeval.metrics.model_settings import ModelSettings, chosen
from svgeval.metrics.presets import DEFAULT, MetricPreset, get_preset
from svgeval.metrics.registry import MetricInfo, describe_metric

describe_metric(
    MetricInfo(
        name="dino",
        summary="(cos + 1) / 2 of mean-pooled DINOv2-base last hidden states of two renders",
        value_range="[0, 1]",
        higher_is_better=True,
        source="Oquab et al. 2024 (DINOv2); SVGenius released compute_dino_score.py; VectorGym",
    )
)


def _load_network(source: str, device: str) -> Any:
    transformers = _models.require("transformers")
    return transformers.AutoModel.from_pretrained(source).to(device).eval()


def _load(source: str, device: str) -> tuple[Any, Any]:
    transformers = _models.require("transformers")
    return _load_network(source, device), transformers.AutoImageProcessor.from_pretrained(source)


def _paired(images_a: Sequence[NDArray[np.generic]], images_b: Sequence[NDArray[np.generic]]) -> (
    bool
):
    """True when there are pairs to compare; ValueError when the two lists differ in length."""
    if len(images_a) != len(images_b):
        raise ValueError(f"{len(images_a)} and {len(images_b)} images")
    return bool(images_a)


def _dino_model(preset: str | MetricPreset, model: str | None, model_path: str | None,
                device: str | None, model_settings: ModelSettings | None = None,
                ) -> tuple[Any, Any, str]:
    """(network, image processor, device) of the preset's DINOv2, or of ``model``/``model_path``."""
    name = model or get_preset(preset).dino_model
    dev = _models.pick_device(device)
    net, processor = _models.load_first("dino", f"the DINOv2 model {name}", name, model_path,
                                        lambda src: _load(src, dev), (dev,),
                                        settings=model_settings)
    return net, processor, dev


def dino(
    images_a: Sequence[NDArray[np.generic]],
    images_b: Sequence[NDArray[np.generic]],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    device: str | None = None,
    batch_size: int = 32,
    model_settings: ModelSettings | None = None,
) -> list[float]:
    """DINO similarity of each pair: ``(cos(f(a), f(b)) + 1) / 2`` where ``f`` is the mean over
    all tokens (CLS and patches) of DINOv2's last hidden state, after the model's own image
    processor (resize 256, centre crop 224, ImageNet normalisation).

    As in the released SVGenius code (``compute_dino_score.py``, DINOv2-base). Range [0, 1],
    1 for identical images; higher is better.
    """
    torch = _models.require("torch")
    if not _paired(images_a, images_b):
        return []
    how = chosen(model_settings)
    net, processor, dev = _dino_model(preset, model, model_path, device, how)

    def features(images: Sequence[NDArray[np.generic]]) -> Any:
        out = []
        for chunk in _pixels.rgb_batches(images, batch_size):
            pixels = _pixels.pixel_values(processor, chunk, dev, how.preprocess)
            with _models.inference(dev, how.precision):
                out.append(net(pixel_values=pixels).last_hidden_state.mean(dim=1).float())
        return torch.cat(out)

    cos = torch.nn.functional.cosine_similarity(features(images_a), features(images_b), dim=-1)
    return [(float(c) + 1.0) / 2.0 for c in cos.tolist()]


describe_metric(
    MetricInfo(
        name="dino_cls",
        summary="cosine of the DINOv2 CLS features (after the final layer norm) of two renders "
        "fed at their own size",
        value_range="[-1, 1]",
        higher_is_better=True,
        source="SVGEditBench V2 released src/evaluation/dinov2.py (torch hub dinov2_vitg14)",
    )
)

DINO_CLS_SETTINGS = replace(
    DEFAULT, name="dino_cls",
    description="SVGEditBench V2's released src/evaluation/dinov2.py: DINOv2-giant",
    dino_model="facebook/dinov2-giant")
""":func:`dino_cls`'s settings when no preset is named: those of the paper that defined the
metric."""
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


class DinoClsOptions(TypedDict, total=False):
    """Keyword options of :func:`dino_cls` and :func:`dino_cls_features`: the metric preset
    naming the model (default :data:`DINO_CLS_SETTINGS`: DINOv2-giant), or ``model`` / a local
    ``model_path``; the ``device`` (default: the GPU when there is one); ``batch_size``
    (default 32); ``imagenet_normalize`` (default False, as released); ``model_settings``
    (default: from the environment, :class:`ModelSettings`)."""

    preset: str | MetricPreset
    model: str | None
    model_path: str | None
    device: str | None
    batch_size: int
    imagenet_normalize: bool
    model_settings: ModelSettings | None


def dino_cls(
    images_a: Sequence[NDArray[np.generic]],
    images_b: Sequence[NDArray[np.generic]],
    **options: Unpack[DinoClsOptions],
) -> list[float]:
    """``cos(f(a), f(b))`` per pair, where ``f`` is DINOv2's CLS token after its final layer
    norm (the torch hub model's output; transformers' ``pooler_output``) of the image at its
    own size (a multiple of the 14 px patch; the position embeddings are interpolated).

    As the released SVGEditBench V2 ``src/evaluation/dinov2.py``: ``dinov2_vitg14`` on the
    224 px renders as [0, 1] pixels, *without* the ImageNet mean/std normalisation DINOv2 was
    trained with; ``imagenet_normalize=True`` adds it (the corrected reading). Range [-1, 1],
    1 for identical images; higher is better. Options: :class:`DinoClsOptions`.
    """
    torch = _models.require("torch")
    if not _paired(images_a, images_b):
        return []
    features_a = torch.from_numpy(dino_cls_features(images_a, **options))
    features_b = torch.from_numpy(dino_cls_features(images_b, **options))
    cos = torch.nn.functional.cosine_similarity(features_a, features_b, dim=-1, eps=1e-6)
    return [float(c) for c in cos.tolist()]


def dino_cls_features(images: Sequence[NDArray[np.generic]],
                      **options: Unpack[DinoClsOptions]) -> NDArray[np.float32]:
    """The (N, D) float32 ``f(image)`` of :func:`dino_cls`, one row per image: for comparing
    every pair of a set (SGP-GenBench's diversity) with one forward pass per image."""
    torch = _models.require("torch")
    name = options.get("model") or get_preset(options.get("preset", DINO_CLS_SETTINGS)).dino_model
    dev = _models.pick_device(options.get("device"))
    how = chosen(options.get("model_settings"))
    # the network alone: these pixels never pass through an image processor, so a model folder
    # without preprocessor_config.json works (the released hub model has none)
    net = _models.load_first("dino", f"the DINOv2 model {name}", name, options.get("model_path"),
                             lambda src: _load_network(src, dev), (dev,), kind="dino_network",
                             settings=how)
    normalize = options.get("imagenet_normalize", False)
    mean = IMAGENET_MEAN if normalize else (0.0,) * 3
    std = IMAGENET_STD if normalize else (1.0,) * 3
    out = []
    for chunk in _pixels.rgb_batches(images, options.get("batch_size", 32)):
        pixels = _pixels.normalize_batch(chunk, mean, std, dev)
        with _models.inference(dev, how.precision):
            out.append(net(pixel_values=pixels).pooler_output.float())
    features: NDArray[np.float32] = torch.cat(out).cpu().numpy().astype(np.float32)
    return features
