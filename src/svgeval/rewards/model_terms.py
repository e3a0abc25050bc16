"""Reward terms computed by a network, batched: LPIPS, DreamSim, CLIP, HPS, DINOv2, BGE-M3.

Each takes the batch's prediction renders, reference renders and captions (the prompt's text)
and returns one value per pair, through svgeval's metric functions (their weights, devices and
``--precision``). The ranges:

* ``lpips = 1 - clip(LPIPS_alex, 0, 1)`` in [0, 1] (standard [-1, 1] inputs, no resize; svgeval's
  perceptual term);
* ``lpips_rlrf = clip(1 - 2 LPIPS_alex, -1, 1)`` in [-1, 1], as the public RLRF reward server
  computes it: both renders resized to 256 x 256 (OpenCV bilinear) and fed in [0, 1] where
  LPIPS expects [-1, 1] (``rewards_img.py``'s ``RewardLpips``);
* ``dreamsim = clip(1 - 2 d, -1, 1)`` with ``d`` the DreamSim distance
  (:mod:`svgeval.metrics.dreamsim`), RLRF's semantic term; ``dreamsim_canny`` the same on
  Canny edge maps dilated but not blurred (:func:`~svgeval.rewards.components.canny_map`);
* ``clip_text = (cos + 1) / 2`` of the CLIP image and caption embeddings, in [0, 1] (SGP-RL's
  ``((1 - d) + 1) / 2`` with ``d = 1 - cos``; Reason-SVG's semantic term);
* ``siglip_text = (cos + 1) / 2`` of the SigLIP image and caption embeddings, in [0, 1] (the
  SigLIP choice of SGP-RL's text-image term);
* ``hps = clip(HPS, 0, 1)``, the HPS v2.1 cosine of image and caption (Reason-SVG's aesthetic
  term);
* ``dino_image = (cos + 1) / 2`` of DINOv2 CLS features (after the final norm, ImageNet
  normalised, 224 px) of the two renders (SGP-RL's image-image term);
* ``bge = clip(BGE-M3 cosine, 0, 1)`` of two captions (VectorGym Sec. 3.4's captioning reward).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]


@dataclass(frozen=True)
class ModelSettings:
    """Which weights the model terms load and where they run."""

    models: Mapping[str, str] = field(default_factory=dict)
    """Model family (``clip``, ``siglip``, ``dino``, ``hps``, ``hps_tokenizer``, ``dreamsim``) ->
    hub id or local path."""
    model_paths: Mapping[str, str] = field(default_factory=dict)
    """Model family (or ``lpips``, ``bge``) -> local weights that override everything else."""
    device: str | None = None
    batch_size: int = 32

    def model(self, family: str) -> str | None:
        return self.models.get(family)

    def path(self, family: str) -> str | None:
        return self.model_paths.get(family)


ModelTerm = Callable[[Sequence[Image], Sequence[Image], Sequence[str], ModelSettings],
                     list[float]]
"""``(predictions, references, captions, settings) -> one value per pair``."""


def _clip(value: float, low: float, high: float = 1.0) -> float:
    return min(max(value, low), high)


def lpips_term(preds: Sequence[Image], refs: Sequence[Image], texts: Sequence[str],
               settings: ModelSettings) -> list[float]:
    """``1 - clip(LPIPS_alex, 0, 1)``."""
    from svgeval.metrics.lpips import lpips

    distances = lpips(list(preds), list(refs), net="alex", normalization="standard", size=None,
                      model_path=settings.path("lpips"), device=settings.device,
                      batch_size=settings.batch_size)
    return [1.0 - _clip(d, 0.0) for d in distances]


def lpips_rlrf_term(preds: Sequence[Image], refs: Sequence[Image], texts: Sequence[str],
                    settings: ModelSettings) -> list[float]:
    """``clip(1 - 2 LPIPS_alex, -1, 1)`` at 256 px, inputs in [0, 1] (the RLRF server's)."""
    import cv2

    from svgeval.metrics.lpips import lpips

    def resized(images: Sequence[Image]) -> list[Image]:
        return [np.asarray(cv2.resize(np.ascontiguousarray(i), (256, 256)), np.uint8)
                for i in images]

    distances = lpips(resized(preds), resized(refs), net="alex", normalization="unit",
                      size=None, model_path=settings.path("lpips"), device=settings.device,
                      batch_size=settings.batch_size)
    return [_clip(1.0 - 2.0 * d, -1.0) for d in distances]


def dreamsim_term(preds: Sequence[Image], refs: Sequence[Image], texts: Sequence[str],
                  settings: ModelSettings) -> list[float]:
    """``clip(1 - 2 DreamSim, -1, 1)``."""
    from svgeval.metrics.dreamsim import dreamsim

    distances = dreamsim(list(preds), list(refs), model=settings.model("dreamsim"),
                         model_path=settings.path("dreamsim"), device=settings.device,
                         batch_size=settings.batch_size)
    return [_clip(1.0 - 2.0 * d, -1.0) for d in distances]


def dreamsim_canny_term(preds: Sequence[Image], refs: Sequence[Image], texts: Sequence[str],
                        settings: ModelSettings) -> list[float]:
    """``dreamsim`` on Canny edge maps, dilated, not blurred (the RLRF server's
    ``dreamsim_canny_dl``)."""
    from svgeval.rewards.components import canny_map

    def edges(images: Sequence[Image]) -> list[Image]:
        return [np.repeat(canny_map(i, blur=False)[..., None], 3, axis=-1) for i in images]

    return dreamsim_term(edges(preds), edges(refs), texts, settings)


def clip_text_term(preds: Sequence[Image], refs: Sequence[Image], texts: Sequence[str],
                   settings: ModelSettings) -> list[float]:
    """``(cos + 1) / 2`` of CLIP image and caption embeddings."""
    from svgeval.metrics.clip import clip_model, image_embeddings, text_embeddings
    from svgeval.metrics.presets import DEFAULT

    loaded = clip_model(DEFAULT, settings.model("clip"), settings.path("clip"), settings.device)
    cos = (image_embeddings(loaded, preds, settings.batch_size)
           * text_embeddings(loaded, texts, settings.batch_size)).sum(-1).tolist()
    return [(float(c) + 1.0) / 2.0 for c in cos]


def siglip_text_term(preds: Sequence[Image], refs: Sequence[Image], texts: Sequence[str],
                     settings: ModelSettings) -> list[float]:
    """``(cos + 1) / 2`` of SigLIP image and caption embeddings
    (:func:`svgeval.metrics.siglip.siglip_score`, captions padded to 64 tokens)."""
    from svgeval.metrics.siglip import siglip_score

    cos = siglip_score(list(preds), list(texts), model=settings.model("siglip"),
                       model_path=settings.path("siglip"), device=settings.device,
                       batch_size=settings.batch_size)
    return [(c + 1.0) / 2.0 for c in cos]


def hps_term(preds: Sequence[Image], refs: Sequence[Image], texts: Sequence[str],
             settings: ModelSettings) -> list[float]:
    """``clip(HPS v2.1, 0, 1)`` of image and caption."""
    from svgeval.metrics.hps import hps

    scores = hps(list(preds), list(texts), model=settings.model("hps"),
                 model_path=settings.path("hps"),
                 tokenizer=settings.path("hps_tokenizer") or settings.model("hps_tokenizer"),
                 device=settings.device, batch_size=settings.batch_size)
    return [_clip(s, 0.0) for s in scores]


def dino_image_term(preds: Sequence[Image], refs: Sequence[Image], texts: Sequence[str],
                    settings: ModelSettings) -> list[float]:
    """``(cos + 1) / 2`` of DINOv2 CLS features of the two renders at 224 px."""
    from PIL import Image as PILImage

    from svgeval.metrics.dino import dino_cls

    def at_224(images: Sequence[Image]) -> list[Image]:
        return [i if i.shape[:2] == (224, 224) else
                np.asarray(PILImage.fromarray(i).resize((224, 224), PILImage.Resampling.BICUBIC))
                for i in images]

    cos = dino_cls(at_224(preds), at_224(refs), model=settings.model("dino"),
                   model_path=settings.path("dino"), device=settings.device,
                   batch_size=settings.batch_size, imagenet_normalize=True)
    return [(c + 1.0) / 2.0 for c in cos]


def bge_similarity(references: Sequence[str], predictions: Sequence[str],
                   model_path: str | None = None) -> list[float]:
    """``clip(cos, 0, 1)`` of BGE-M3 dense embeddings (:func:`svgeval.metrics.text.bge_m3`)."""
    from svgeval.metrics.text import bge_m3

    scores = bge_m3(list(references), list(predictions), model_path=model_path)
    return [_clip(s / 100.0, 0.0) for s in scores]


def rouge_similarity(references: Sequence[str], predictions: Sequence[str]) -> list[float]:
    """ROUGE-L F1 / 100 (:func:`svgeval.metrics.text.rouge_l`)."""
    from svgeval.metrics.text import rouge_l

    return [s / 100.0 for s in rouge_l(list(references), list(predictions))]


MODEL_TERMS: dict[str, ModelTerm] = {
    "lpips": lpips_term, "lpips_rlrf": lpips_rlrf_term, "dreamsim": dreamsim_term,
    "dreamsim_canny": dreamsim_canny_term, "clip_text": clip_text_term,
    "siglip_text": siglip_text_term, "hps": hps_term,
    "dino_image": dino_image_term,
}
"""The image terms that run a network, by name."""
