"""Pixel metrics on rendered images (float arrays in [0, 1], shape (H, W, C))."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics.presets import DEFAULT, MetricPreset, get_preset
from svgeval.metrics.registry import MetricInfo, describe_metric

describe_metric(
    MetricInfo(
        name="mse",
        summary="mean squared error over pixels and channels of two renders",
        value_range="[0, 1]",
        higher_is_better=False,
        source="SVGEditBench (Nishina & Matsui, 2024), Sec. 3.3; SVGenius (2025)",
    )
)


def mse(a: NDArray[np.floating], b: NDArray[np.floating]) -> float:
    """Mean squared error ``mean((a - b)^2)`` over all pixels and channels.

    With values in [0, 1] the result is in [0, 1]; lower is better. Averaging per channel and
    then over channels, as SVGEditBench describes, gives the same number.
    """
    if a.shape != b.shape:
        raise ValueError(f"images differ in shape: {a.shape} vs {b.shape}")
    # the float64 difference, squared in place: the numbers of ``mean((a - b) ** 2)`` to the last
    # bit (power 2 is a product), with one temporary array instead of three
    difference = np.subtract(a, b, dtype=np.float64)
    np.multiply(difference, difference, out=difference)
    return float(difference.mean())


def opaque_rgba_mse(a: NDArray[np.floating], b: NDArray[np.floating]) -> float:
    """:func:`mse` of the two renders as RGBA with an opaque alpha channel added to both: the
    mean over four channels, 3/4 of the RGB MSE.

    What released scorers report that compare PNGs read back with their alpha channel: SVGenius
    ``compute_mse.py`` and VectorGym's ``calculate_mse`` (``F.mse_loss`` of ``ToTensor``
    images). Range [0, 0.75] for values in [0, 1]; lower is better.
    """
    alpha = np.ones(a.shape[:2] + (1,))
    return mse(np.concatenate([a, alpha], -1), np.concatenate([b, alpha], -1))


describe_metric(
    MetricInfo(
        name="masked_mse",
        summary="MSE of two renders with every pixel zeroed where either render is white "
        "(StarVector's Masked-L2)",
        value_range="[0, 1]",
        higher_is_better=False,
        source="StarVector starvector/metrics/compute_l2.py (masked_l2=True)",
    )
)


def masked_mse(a: NDArray[np.floating], b: NDArray[np.floating]) -> float:
    """StarVector's Masked-L2: ``mean((m a - m b)^2)`` over all pixels and channels, where
    ``m`` is 1 at pixels that are non-white (some channel below 1) in *both* images, else 0.

    The mean keeps the masked-out pixels in its denominator, as the released ``F.mse_loss`` of
    the masked tensors does. Pixels drawn in one image only are masked out, so an empty (white)
    answer scores 0, the best value (see docs/suites/starvector.md).
    """
    if a.shape != b.shape:
        raise ValueError(f"images differ in shape: {a.shape} vs {b.shape}")
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)
    mask = np.logical_and(np.any(x < 1, axis=-1), np.any(y < 1, axis=-1))[..., None]
    return float(np.mean((x * mask - y * mask) ** 2))


describe_metric(
    MetricInfo(
        name="ssim",
        summary="structural similarity of two renders (scikit-image, 11 px uniform window, "
        "data_range 255 on uint8 RGB)",
        value_range="[-1, 1] (in practice [0, 1])",
        higher_is_better=True,
        source="Wang et al. 2004; settings of the released SVGenius/StarVector code "
        "(src/metrics/compute_SSIM.py)",
    )
)
describe_metric(
    MetricInfo(
        name="psnr",
        summary="peak signal-to-noise ratio of two 8-bit renders, 10 log10(255^2 / MSE) in dB; "
        "identical images are capped at 100",
        value_range="[0, 100]",
        higher_is_better=True,
        source="InternSVG released metrics/PSNR.py (scikit-image peak_signal_noise_ratio); "
        "UniSVG's psnr_fixed (uni_svg.py without its uint8 wrap-around)",
    )
)
describe_metric(
    MetricInfo(
        name="iou",
        summary="intersection over union of the drawn (alpha > 0, or non-background) pixels",
        value_range="[0, 1]",
        higher_is_better=True,
        source="SVGenius PSS global term (App. D)",
    )
)


def to_uint8(image: NDArray[np.generic]) -> NDArray[np.uint8]:
    """Float images in [0, 1] become ``round(255 x)`` uint8; uint8 images pass through."""
    array = np.asarray(image)
    if array.dtype == np.uint8:
        return array
    return np.clip(np.round(array.astype(np.float64) * 255.0), 0, 255).astype(np.uint8)


def ssim(
    a: NDArray[np.generic],
    b: NDArray[np.generic],
    *,
    preset: str | MetricPreset = DEFAULT,
    window: int | None = None,
    gaussian: bool | None = None,
) -> float:
    """SSIM (Wang et al., 2004) of two same-sized images, averaged over pixels and channels.

    ``SSIM = mean over windows of (2 mu_a mu_b + C1)(2 s_ab + C2) / ((mu_a^2 + mu_b^2 + C1)
    (s_a^2 + s_b^2 + C2))`` with C1 = (0.01 L)^2, C2 = (0.03 L)^2, L = 255. Inputs are uint8 or
    floats in [0, 1] (converted to uint8 first, as the released code works on 8-bit renders).
    The released SVGenius/StarVector code calls ``skimage.metrics.structural_similarity`` with
    ``win_size=11``, ``sigma=1.5`` but without ``gaussian_weights``, so the window is a uniform
    11x11 box and sigma is unused; that is the default here (:func:`uniform_ssim`).
    ``gaussian=True`` gives the Gaussian-weighted variant of the SSIM paper, a different number
    (scikit-image's). Range [-1, 1], 1 for identical images; higher is better.
    """
    settings = get_preset(preset)
    x, y = to_uint8(a), to_uint8(b)
    if x.shape != y.shape:
        raise ValueError(f"images differ in shape: {x.shape} vs {y.shape}")
    if not (settings.ssim_gaussian if gaussian is None else gaussian):
        return uniform_ssim(x, y, window or settings.ssim_window)
    from skimage.metrics import structural_similarity

    channels = {"channel_axis": -1} if x.ndim == 3 else {}
    return float(structural_similarity(  # type: ignore[no-untyped-call]
        x, y, data_range=255, gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
        **channels))


def uniform_ssim(x: NDArray[np.uint8], y: NDArray[np.uint8], window: int) -> float:
    """SSIM with a uniform ``window`` x ``window`` box: scikit-image's ``structural_similarity(x,
    y, win_size=window, data_range=255, channel_axis=-1)`` (for (H, W, C) images; without
    ``channel_axis`` for (H, W)), its defaults included.

    As scikit-image computes it: per channel ``a`` of ``x`` and ``b`` of ``y``, in float64, the
    box means ``mu_a``, ``mu_b``, ``mu_aa``, ``mu_bb``, ``mu_ab`` (reflected borders); the sample
    covariances ``s = n / (n - 1) (mu_ab - mu_a mu_b)`` with ``n = window^2``; the SSIM map, its border of ``(window - 1) / 2``
    pixels cropped, averaged; then the channels' mean. The box means are OpenCV's
    ``cv2.boxFilter`` rather than SciPy's ``uniform_filter``, and the arrays are reused across
    the channels: the same numbers within 1e-15 (``tests/metrics/test_pixel_metrics.py``), in
    less time (``python -m bench metrics``).
    """
    import cv2

    if window % 2 == 0 or min(x.shape[:2]) < window:
        raise ValueError(f"the SSIM window is {window} px: it must be odd and at most the "
                         f"image's sides {x.shape[:2]}")
    count = window * window
    covariance, pad = count / (count - 1), (window - 1) // 2
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    channels = 1 if x.ndim == 2 else x.shape[2]
    # the formula's arrays, allocated once for every channel and computed in place (a fresh
    # array costs its first touch, more than the arithmetic on a virtual machine)
    a, b, mu_a, mu_b, var_a, var_b, cov_ab, ssim_map = np.empty((8, *x.shape[:2]))

    def box_mean(image: NDArray[np.float64], out: NDArray[np.float64]) -> None:
        cv2.boxFilter(image, cv2.CV_64F, (window, window), dst=out, normalize=True,
                      borderType=cv2.BORDER_REFLECT)

    means = []
    for channel in range(channels):
        a[...] = x if x.ndim == 2 else x[..., channel]
        b[...] = y if y.ndim == 2 else y[..., channel]
        box_mean(a, mu_a)
        box_mean(b, mu_b)
        for first, second, out in ((a, a, var_a), (b, b, var_b), (a, b, cov_ab)):
            np.multiply(first, second, out=ssim_map)
            box_mean(ssim_map, out)          # mu_aa, mu_bb, mu_ab
        np.multiply(mu_a, mu_b, out=ssim_map)
        cov_ab -= ssim_map                   # mu_ab - mu_a mu_b
        cov_ab *= 2 * covariance
        cov_ab += c2                         # 2 s_ab + C2
        ssim_map *= 2
        ssim_map += c1                       # 2 mu_a mu_b + C1
        ssim_map *= cov_ab
        mu_a *= mu_a
        mu_b *= mu_b
        var_a -= mu_a                        # mu_aa - mu_a^2
        var_b -= mu_b
        var_a += var_b
        var_a *= covariance
        var_a += c2                          # s_a^2 + s_b^2 + C2
        mu_a += mu_b
        mu_a += c1                           # mu_a^2 + mu_b^2 + C1
        mu_a *= var_a
        ssim_map /= mu_a
        means.append(ssim_map[pad:a.shape[0] - pad, pad:a.shape[1] - pad].mean(dtype=np.float64))
    return float(np.mean(means))


def iou(a: NDArray[np.generic], b: NDArray[np.generic]) -> float:
    """IoU ``|A and B| / |A or B|`` of two drawn-pixel masks; 0 when both are empty.

    Boolean inputs are the masks; RGBA images use alpha > 0 (as SVGenius' PSS does); RGB or
    grey images on a white background use "not pure white". Range [0, 1]; higher is better.
    """
    ma, mb = _drawn(a), _drawn(b)
    if ma.shape != mb.shape:
        raise ValueError(f"masks differ in shape: {ma.shape} vs {mb.shape}")
    union = int(np.logical_or(ma, mb).sum())
    return int(np.logical_and(ma, mb).sum()) / union if union else 0.0


def _drawn(image: NDArray[np.generic]) -> NDArray[np.bool_]:
    array = np.asarray(image)
    if array.dtype == np.bool_:
        mask: NDArray[np.bool_] = array
        return mask
    pixels = to_uint8(array)
    if pixels.ndim == 3 and pixels.shape[-1] == 4:
        return pixels[..., 3] > 0
    if pixels.ndim == 3:
        drawn: NDArray[np.bool_] = np.any(pixels < 255, axis=-1)
        return drawn
    return pixels < 255


PSNR_CAP = 100.0
"""What InternSVG's ``metrics/PSNR.py`` reports for identical images (PSNR is infinite)."""


def psnr(a: NDArray[np.generic], b: NDArray[np.generic], *, cap: float = PSNR_CAP) -> float:
    """PSNR of two same-sized images: ``10 log10(255^2 / MSE)`` with the MSE over all pixels and
    channels of the 8-bit images (floats in [0, 1] are converted with :func:`to_uint8`).

    As InternSVG's released ``metrics/PSNR.py``: ``skimage.metrics.peak_signal_noise_ratio`` on
    uint8 arrays (data range 255), an infinite value (identical images) replaced by ``cap``.
    Higher is better.
    """
    x, y = to_uint8(a).astype(np.float64), to_uint8(b).astype(np.float64)
    if x.shape != y.shape:
        raise ValueError(f"images differ in shape: {x.shape} vs {y.shape}")
    error = float(np.mean((x - y) ** 2))
    return cap if error == 0.0 else float(10.0 * np.log10(255.0**2 / error))

