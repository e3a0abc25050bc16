"""Image and code reward terms: pure functions of two renders, or of two SVG codes.

Renders are RGB ``uint8`` arrays of the same size, drawn on white. A term is split in two where
the reference side can be prepared once and reused by every rollout of a prompt
(``prepare(reference)`` then ``compare(prediction, prepared)``); :data:`svgeval.rewards.terms`
names each term and its range.

svgeval's own terms, each in [0, 1] (1 = matches the reference):

* ``pixel = 1 - sqrt(mean((a - b)^2))`` on values in [0, 1] (an L2 image term as one minus the
  root mean squared error).
* ``sobel = 1 - sqrt(mean(E(a) != E(b)))`` where ``E`` is the binary edge map of the luminance
  ``Y = 0.299 R + 0.587 G + 0.114 B`` (in [0, 255]): pixels whose Sobel gradient, divided by 4
  so that a full step gives 255, has a magnitude over ``0.1 x 255``. A cheap outline term; RLRF
  compares Canny edge maps (``canny`` below).
* ``length = 1 - clip((L_pred - L_ref) / L_ref, 0, 1)^2`` on code lengths in characters: no
  penalty up to the reference length, 0 at twice it.

RLRF's terms (Rodriguez et al., 2025, Sec. 3.2, as the public RLRF reward server computes them:
``reward_score/rewards_img.py`` and ``rewards_svg.py`` of HTplex/rlrf-rewarder), each in
[-1, 1]:

* ``l2 = clip(1 - mean((z(a) - z(b))^2), -1, 1)`` where ``z(x) = (x - mean(x)) / std(x)`` over
  all pixels and channels of one render (the server's ``img_l2`` with ``normalize="avg_std"``);
  a render with no variation (std 0) gives -1, as the server's NaN does.
* ``canny``: the same ``l2`` on edge maps: OpenCV's Canny (hysteresis thresholds 50 and 150, on
  the luminance), dilated once by a 3 x 3 square and blurred by a 13 x 13 Gaussian (OpenCV's
  sigma for that size, 2.3) (the server's ``img_l2_canny``).
* ``rlrf_length = clip(1 - (max(0, L_pred - L_ref / 2) / L_ref)^2, -1, 1)`` (RLRF's code
  efficiency reward; the server's ``svg_length_quadratic``): 1 up to half the reference
  length, 0.75 at the reference length, 0 at 1.5 times it, -1 from about 1.9 times it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]

SOBEL_THRESHOLD = 0.1
"""``sobel``'s edge threshold, as a fraction of a full black-to-white step."""
CANNY_THRESHOLDS = (50, 150)
"""``canny``'s hysteresis thresholds (cv2.Canny's ``threshold1``, ``threshold2``)."""
CANNY_DILATE = 3
"""Side of the square that dilates the Canny edges once."""
CANNY_BLUR = 13
"""Side of the Gaussian kernel that blurs the dilated edges (sigma from OpenCV's rule)."""


def pixel_similarity(a: Image, b: Image) -> float:
    """``1 - RMSE`` of two renders scaled to [0, 1], from the exact integer sum of squared
    differences: OpenCV's ``absdiff`` then ``norm`` (``NORM_L2SQR``) of that one ``uint8``
    array, which sums its squares as integers in blocks (faster than numpy's ``int16`` differences
    squared and summed). ``norm`` of the two arrays, ``norm(a, b)``, is
    not exact: a few sums came out 1e-7 off."""
    import cv2

    total = int(cv2.norm(cv2.absdiff(a, b), cv2.NORM_L2SQR))
    return float(1.0 - np.sqrt(total / a.size) / 255.0)


_LUMA = np.array([[0.299, 0.587, 0.114]], np.float32)


def sobel_map(image: Image, threshold: float = SOBEL_THRESHOLD) -> NDArray[np.bool_]:
    """Pixels whose Sobel gradient of the luminance (edge-replicated borders, divided by 4)
    has a magnitude over ``threshold x 255``; compared squared, without a square root. OpenCV's
    float32 ``transform`` and ``Sobel`` (aperture 3, ``BORDER_REPLICATE``): faster than the same
    sums in numpy, and equal to scipy's float64 ``ndimage.sobel`` on every pixel tested
    (``tests/rewards/test_rewards.py``)."""
    import cv2

    grey = cv2.transform(np.ascontiguousarray(image[..., :3], np.float32), _LUMA)
    gx = np.asarray(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3,
                              borderType=cv2.BORDER_REPLICATE), np.float32)
    gy = np.asarray(cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3,
                              borderType=cv2.BORDER_REPLICATE), np.float32)
    gx *= gx
    gy *= gy
    gx += gy
    edges: NDArray[np.bool_] = gx > np.float32((4 * 255 * threshold) ** 2)
    return edges


def sobel_compare(prediction: Image, reference_edges: NDArray[np.bool_]) -> float:
    """``1 - sqrt(fraction of pixels where the two Sobel edge maps differ)``."""
    return float(1.0 - np.sqrt(np.count_nonzero(sobel_map(prediction) != reference_edges)
                               / reference_edges.size))


def sobel_similarity(a: Image, b: Image) -> float:
    """The ``sobel`` term of two renders (:func:`sobel_map` of each, compared)."""
    return sobel_compare(a, sobel_map(b))


def length_reward(prediction: str, reference: str) -> float:
    """``1 - clip((L_pred - L_ref) / L_ref, 0, 1)^2`` (see the module docstring)."""
    ref = max(len(reference), 1)
    excess = min(max((len(prediction) - ref) / ref, 0.0), 1.0)
    return float(1.0 - excess * excess)


def rlrf_length_reward(prediction: str, reference: str) -> float:
    """RLRF's ``clip(1 - (max(0, L_pred - L_ref / 2) / L_ref)^2, -1, 1)``."""
    ref = max(len(reference), 1)
    excess = max(0.0, len(prediction) - ref / 2) / ref
    return float(min(max(1.0 - excess * excess, -1.0), 1.0))


def standardised(image: NDArray[Any]) -> NDArray[np.float32] | None:
    """``(x - mean(x)) / std(x)`` over every value of ``image`` in float32, or None when the
    image does not vary (RLRF's L2 is then -1)."""
    values = image.astype(np.float32)
    std = float(values.std())
    if not std > 0:
        return None
    out: NDArray[np.float32] = (values - np.float32(values.mean())) / np.float32(std)
    return out


def standardised_l2(prediction: NDArray[Any], reference: NDArray[np.float32] | None) -> float:
    """RLRF's ``clip(1 - mean((z(a) - z(b))^2), -1, 1)`` of a prediction and a reference
    already :func:`standardised`; -1 when either does not vary."""
    z = standardised(prediction)
    if z is None or reference is None:
        return -1.0
    diff = z - reference
    mean_square = float(np.square(diff).sum(dtype=np.float64)) / diff.size
    return float(min(max(1.0 - mean_square, -1.0), 1.0))


def canny_edges(image: Image, *, l2_gradient: bool = False) -> Image:
    """OpenCV's Canny edges (255, else 0) of the luminance, hysteresis thresholds
    :data:`CANNY_THRESHOLDS`, Sobel aperture 3; the gradient magnitude is ``|gx| + |gy|`` as
    OpenCV's default (the RLRF server's), or ``sqrt(gx^2 + gy^2)`` with ``l2_gradient``."""
    import cv2

    grey = cv2.cvtColor(np.ascontiguousarray(image[..., :3]), cv2.COLOR_RGB2GRAY)
    edges: Image = np.asarray(cv2.Canny(grey, *CANNY_THRESHOLDS, L2gradient=l2_gradient),
                              np.uint8)
    return edges


def canny_map(image: Image, *, blur: bool = True) -> Image:
    """RLRF's edge image: :func:`canny_edges`, dilated once by a :data:`CANNY_DILATE` square,
    then (``blur``) a :data:`CANNY_BLUR` Gaussian blur in uint8, as the public server computes
    it. (H, W) uint8."""
    import cv2

    edges = cv2.dilate(canny_edges(image), np.ones((CANNY_DILATE, CANNY_DILATE), np.uint8),
                       iterations=1)
    if blur:
        edges = cv2.GaussianBlur(edges, (CANNY_BLUR, CANNY_BLUR), 0)
    out: Image = np.asarray(edges, np.uint8)
    return out


def canny_prepare(reference: Image) -> NDArray[np.float32] | None:
    """The reference side of ``canny``: its blurred edge map, standardised."""
    return standardised(canny_map(reference))


def canny_compare(prediction: Image, reference: NDArray[np.float32] | None) -> float:
    """RLRF's ``canny`` term of a prediction against :func:`canny_prepare` of a reference."""
    return standardised_l2(canny_map(prediction), reference)
