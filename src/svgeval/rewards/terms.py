"""Every reward term by name: what it compares, its range and what it needs to run.

A preset (:mod:`svgeval.rewards.presets`) weighs some of these terms. Four kinds:

* ``image``: two renders, cheap, computed as each render arrives; the reference side is
  prepared once per reference (:mod:`svgeval.rewards.components`);
* ``model``: a network over batches of renders (and captions), run on the GPU when there is
  one, while the next renders are drawn (:mod:`svgeval.rewards.model_terms`);
* ``code``: the two SVG codes (lengths), or whether the completion rendered at all;
* ``text``: two captions (the captioning task).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from svgeval.rewards import components as comp


@dataclass(frozen=True)
class Term:
    """One reward term: its kind, lowest value (the highest is 1, a perfect match) and the
    Python packages it imports beyond svgeval's core install."""

    name: str
    kind: str
    low: float
    summary: str
    packages: tuple[str, ...] = ()
    caption: bool = False
    """Compares the render with the prompt's caption, not with the reference render."""
    prepare: Callable[[Any], Any] | None = None
    """``image`` terms: the reference render -> what :attr:`compare` takes."""
    compare: Callable[[Any, Any], float] | None = None
    """``image`` terms: ``(prediction render, prepared reference) -> value``."""
    code: Callable[[str, str], float] | None = None
    """``code`` terms: ``(prediction SVG, reference SVG) -> value``."""


def _same(image: Any) -> Any:
    return image


def _rendered(prediction: str, reference: str) -> float:
    return 1.0


TORCH = ("torch",)
TRANSFORMERS = ("torch", "transformers")
OPENCV = ("cv2",)

TERMS: dict[str, Term] = {t.name: t for t in (
    Term("pixel", "image", 0.0, "1 - RMSE of the renders in [0, 1]", prepare=_same,
         compare=comp.pixel_similarity),
    Term("sobel", "image", 0.0, "1 - sqrt(share of pixels where thresholded Sobel edge maps "
         "differ)", prepare=comp.sobel_map, compare=comp.sobel_compare),
    Term("l2", "image", -1.0, "RLRF: clip(1 - mean((z(a) - z(b))^2), -1, 1), z standardised",
         prepare=comp.standardised, compare=comp.standardised_l2),
    Term("canny", "image", -1.0, "RLRF: l2 of Canny edge maps dilated 3x3 and blurred 13x13",
         OPENCV, prepare=comp.canny_prepare, compare=comp.canny_compare),
    Term("length", "code", 0.0, "1 - clip((L_pred - L_ref) / L_ref, 0, 1)^2",
         code=comp.length_reward),
    Term("rlrf_length", "code", -1.0, "RLRF: clip(1 - (max(0, L_pred - L_ref/2) / L_ref)^2, "
         "-1, 1)", code=comp.rlrf_length_reward),
    Term("render", "code", 1.0, "1 for a completion that rendered (Reason-SVG's render term)",
         code=_rendered),
    Term("lpips", "model", 0.0, "1 - clip(LPIPS_alex, 0, 1)", TORCH),
    Term("lpips_rlrf", "model", -1.0, "RLRF server: clip(1 - 2 LPIPS_alex, -1, 1) at 256 px, "
         "[0, 1] inputs", ("torch", "cv2")),
    Term("dreamsim", "model", -1.0, "RLRF: clip(1 - 2 DreamSim, -1, 1)", TRANSFORMERS),
    Term("dreamsim_canny", "model", -1.0, "RLRF: dreamsim of dilated Canny edge maps",
         (*TRANSFORMERS, "cv2")),
    Term("clip_text", "model", 0.0, "(cos + 1) / 2 of CLIP image and caption embeddings",
         TRANSFORMERS, caption=True),
    Term("siglip_text", "model", 0.0, "(cos + 1) / 2 of SigLIP image and caption embeddings",
         TRANSFORMERS, caption=True),
    Term("hps", "model", 0.0, "clip(HPS v2.1 of image and caption, 0, 1)", TRANSFORMERS,
         caption=True),
    Term("dino_image", "model", 0.0, "(cos + 1) / 2 of DINOv2 CLS features of the renders",
         TRANSFORMERS),
    Term("bge", "text", 0.0, "clip(BGE-M3 cosine of the captions, 0, 1)", TRANSFORMERS),
    Term("rouge", "text", 0.0, "ROUGE-L F1 / 100 of the captions"),
)}
"""Every term a preset may weigh."""

COMPONENTS = tuple(TERMS)
"""Term names in their canonical order (components are reported in it)."""
