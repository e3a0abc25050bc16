"""Reward components, each in [0, 1] with 1 for a perfect match (higher is better).

Image components compare two renders of the same size, RGB ``uint8`` on white:

* ``pixel = 1 - sqrt(mean((a - b)^2))`` on values in [0, 1] (RLRF's L2 image reward, as
  one minus the root mean squared error so that it stays in [0, 1]).
* ``edge = 1 - sqrt(mean((E(a) - E(b))^2))`` where ``E`` is the binary edge map of the
  luminance ``Y``: pixels whose Sobel gradient magnitude ``|grad Y| / 4`` exceeds 0.1. RLRF
  compares Canny edge maps; Sobel thresholding keeps the idea (a term on outlines, blind to
  fill colours) at a twentieth of Canny's cost, so ours is not RLRF's exact number.
* ``lpips = 1 - clip(LPIPS(a, b), 0, 1)`` (:func:`svgeval.metrics.lpips.lpips`, standard [-1, 1]
  inputs, no resize), standing in for RLRF's DreamSim term.

``length = 1 - clip((L_pred - L_ref) / L_ref, 0, 1)^2`` on code lengths in characters: no
penalty up to the reference length, falling to 0 at twice it. RLRF penalises outputs much
longer than the reference in the same way; this exact form is ours.

Text components: ``bge = clip(BGE-M3 cosine, 0, 1)`` and ``rouge = ROUGE-L F1 / 100``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]


def pixel_similarity(a: Image, b: Image) -> float:
    """``1 - RMSE`` of two renders scaled to [0, 1]."""
    diff = a.astype(np.float64) / 255.0 - b.astype(np.float64) / 255.0
    return float(1.0 - np.sqrt(np.mean(diff * diff)))


def edge_map(image: Image, threshold: float = 0.1) -> NDArray[np.bool_]:
    """Pixels whose Sobel gradient magnitude of ``Y = 0.299 R + 0.587 G + 0.114 B`` (in [0, 1],
    edge-replicated borders, divided by 4 so a full step gives 1) exceeds ``threshold``."""
    grey = image[..., :3].astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
    y = np.pad(grey / 255.0, 1, mode="edge")
    smooth_x = y[:-2] + 2 * y[1:-1] + y[2:]
    smooth_y = y[:, :-2] + 2 * y[:, 1:-1] + y[:, 2:]
    gx = (smooth_x[:, 2:] - smooth_x[:, :-2]) / 4
    gy = (smooth_y[2:] - smooth_y[:-2]) / 4
    edges: NDArray[np.bool_] = np.hypot(gx, gy) > threshold
    return edges


def edge_similarity(a: Image, b: Image) -> float:
    """``1 - sqrt(fraction of pixels where the two Sobel edge maps differ)`` (:func:`edge_map`;
    RLRF compares Canny edge maps, see the module docstring)."""
    return float(1.0 - np.sqrt(np.mean(edge_map(a) != edge_map(b))))


def lpips_similarity(a: Sequence[Image], b: Sequence[Image], net: str = "alex") -> list[float]:
    """``1 - clip(LPIPS, 0, 1)`` of each pair (batched)."""
    from svgeval.metrics.lpips import lpips

    distances = lpips(list(a), list(b), net=net, normalization="standard", size=None)
    return [1.0 - min(max(d, 0.0), 1.0) for d in distances]


def length_reward(prediction: str, reference: str) -> float:
    """``1 - clip((L_pred - L_ref) / L_ref, 0, 1)^2`` (see the module docstring)."""
    ref = max(len(reference), 1)
    excess = min(max((len(prediction) - ref) / ref, 0.0), 1.0)
    return float(1.0 - excess * excess)


def bge_similarity(references: Sequence[str], predictions: Sequence[str],
                   model_path: str | None = None) -> list[float]:
    """``clip(cos, 0, 1)`` of BGE-M3 dense embeddings (:func:`svgeval.metrics.text.bge_m3`)."""
    from svgeval.metrics.text import bge_m3

    scores = bge_m3(list(references), list(predictions), model_path=model_path)
    return [min(max(s / 100.0, 0.0), 1.0) for s in scores]


def rouge_similarity(references: Sequence[str], predictions: Sequence[str]) -> list[float]:
    """ROUGE-L F1 / 100 (:func:`svgeval.metrics.text.rouge_l`)."""
    from svgeval.metrics.text import rouge_l

    return [s / 100.0 for s in rouge_l(list(references), list(predictions))]
