"""Renders into network inputs: uint8 RGB from float or RGBA renders, batches of them, and the
image processors' steps, on the CPU or in torch on the metric's device (``--preprocess``,
:attr:`~svgeval.metrics.model_settings.ModelSettings.preprocess`). Nothing here imports torch
at module level."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics._models import batches, require, to_device

BACKGROUNDS = ("white", "black", "drop")
"""What transparent pixels become: composited over white or black, or ``drop`` (the alpha
channel discarded and the stored colours kept, as PIL's ``convert("RGB")``)."""


def pil_resize(rgb: NDArray[np.uint8], side: int) -> NDArray[np.uint8]:
    """torchvision's ``Resize((side, side))`` of a PIL RGB image: PIL bilinear (antialiased),
    8-bit out."""
    from PIL import Image as PILImage

    if rgb.shape[:2] == (side, side):
        return rgb
    resized = PILImage.fromarray(rgb).resize((side, side), resample=PILImage.Resampling.BILINEAR)
    return np.asarray(resized, np.uint8)


def as_rgb_uint8(image: NDArray[np.generic], background: str = "white") -> NDArray[np.uint8]:
    """An (H, W, 3) uint8 RGB image from uint8 or [0, 1] float input, grey or RGB(A).

    RGBA is composited over white (svgeval renders on white, as the papers do), or as
    ``background`` says (:data:`BACKGROUNDS`).
    """
    array = np.asarray(image)
    if array.dtype != np.uint8:  # round(255 x) clipped to [0, 255], in place in one float64 copy
        scaled = np.multiply(array, 255.0, dtype=np.float64)
        np.rint(scaled, out=scaled)
        array = np.clip(scaled, 0.0, 255.0, out=scaled).astype(np.uint8)
    if array.ndim == 2:
        array = np.repeat(array[..., None], 3, axis=-1)
    if array.ndim != 3 or array.shape[-1] not in (3, 4):
        raise ValueError(f"expected an (H, W, 3) or (H, W, 4) image, got shape {array.shape}")
    if background not in BACKGROUNDS:
        raise ValueError(f"background must be one of {', '.join(BACKGROUNDS)}, not {background!r}")
    if array.shape[-1] == 4 and background == "drop":
        array = np.ascontiguousarray(array[..., :3])
    elif array.shape[-1] == 4:
        alpha = array[..., 3:4].astype(np.float64) / 255.0
        fill = 255.0 if background == "white" else 0.0
        rgb = array[..., :3].astype(np.float64) * alpha + fill * (1 - alpha)
        array = np.clip(np.round(rgb), 0, 255).astype(np.uint8)
    return array


def rgb_batches(images: Sequence[NDArray[np.generic]], size: int,
                background: str = "white") -> Iterator[list[NDArray[np.uint8]]]:
    """``images`` as uint8 RGB (:func:`as_rgb_uint8`), ``size`` at a time, each batch converted
    when it is asked for: on a GPU, while the network still works on the batch before."""
    for chunk in batches(images, size):
        yield [as_rgb_uint8(image, background) for image in chunk]


def uint8_on(device: str, images: Sequence[NDArray[np.uint8]]) -> Any:
    """The (N, H, W, C) uint8 tensor of ``images`` (all of one shape) on ``device``. For a GPU
    they are stacked straight into pinned memory and copied from there without waiting (as
    ``_models.to_device`` copies), so the CPU goes on to the next batch while they travel."""
    torch = require("torch")
    pinned = device.startswith("cuda")
    pixels = torch.empty((len(images), *np.shape(images[0])), dtype=torch.uint8,
                         pin_memory=pinned)
    np.stack(images, out=pixels.numpy())
    return pixels.to(device, non_blocking=True) if pinned else pixels.to(device)


def normalize_batch(images: Sequence[NDArray[np.uint8]], mean: Sequence[float],
                    std: Sequence[float], device: str = "cpu") -> Any:
    """Stack uint8 HWC images into a float32 NCHW tensor on ``device``: ``(x / 255 - mean) /
    std``. The uint8 pixels are copied, the arithmetic runs there (the same float32 operations
    on any device, so the same values)."""
    pixels = uint8_on(device, images).permute(0, 3, 1, 2).float() / 255.0
    return _standardized(pixels, mean, std)


def _standardized(pixels: Any, mean: Sequence[float], std: Sequence[float]) -> Any:
    """``(pixels - mean) / std`` per channel of an NCHW float tensor, on its device."""
    torch = require("torch")
    shape = (1, len(mean), 1, 1)
    return (pixels - torch.tensor(mean, device=pixels.device).view(shape)) / torch.tensor(
        std, device=pixels.device).view(shape)


_RESAMPLING = {0: "nearest", 2: "bilinear", 3: "bicubic"}
"""PIL's resampling filters that torch's ``interpolate`` has, by PIL's number."""


def _torch_resample(resample: Any) -> str | None:
    """torch's mode for an image processor's ``resample`` (PIL's number or enum, or
    torchvision's ``InterpolationMode``); None when torch has none (Lanczos, box, Hamming)."""
    value = getattr(resample, "value", resample)
    if isinstance(value, str):
        return value if value in _RESAMPLING.values() else None
    return _RESAMPLING.get(value) if isinstance(value, int) else None


def _resized_shape(size: Any, height: int, width: int) -> tuple[int, int] | None:
    """The (height, width) an image processor's ``size`` resizes to (transformers'
    ``get_resize_output_image_size``): ``shortest_edge`` keeps the aspect, the long side
    truncated; ``height``/``width`` as given; None for the other forms."""
    def get(key: str) -> int:
        value = size.get(key) if isinstance(size, dict) else getattr(size, key, None)
        return int(value or 0)

    if get("shortest_edge"):
        short = get("shortest_edge")
        long = int(short * max(height, width) / min(height, width))
        return (short, long) if height <= width else (long, short)
    if get("height") and get("width"):
        return get("height"), get("width")
    return None


def _device_steps(processor: Any, height: int, width: int) -> tuple[
        tuple[int, int] | None, str | None, tuple[int, int] | None] | None:
    """(resize to, torch mode, crop to) of ``processor`` for an image of this size, or None
    when its steps are not ones :func:`pixel_values` runs on the device."""
    resize = mode = crop = None
    if getattr(processor, "do_resize", False):
        resize = _resized_shape(processor.size, height, width)
        mode = _torch_resample(processor.resample)
        if resize is None or mode is None:
            return None
        height, width = resize
    if getattr(processor, "do_center_crop", False):
        crop = _resized_shape(processor.crop_size, height, width)
        if crop is None or crop[0] > height or crop[1] > width:
            return None
    return resize, mode, crop


def pixel_values(processor: Any, images: Sequence[NDArray[np.uint8]], device: str,
                 preprocess: str) -> Any:
    """The network input (N, 3, H, W) on ``device`` of uint8 RGB ``images`` of one size, made
    where ``preprocess`` (:attr:`~svgeval.metrics.model_settings.ModelSettings.preprocess`)
    says.

    Under ``--preprocess cpu`` (the default, the papers' protocol): the model's own image
    ``processor`` on the CPU, its output copied to ``device`` (``_models.to_device``). Under
    ``--preprocess device``: the uint8 pixels are copied and the processor's steps run in
    torch on ``device``: resize
    (its ``size``: shortest edge or height x width; its filter, antialiased, rounded back to 8
    bits as transformers' torchvision backend does), centre crop to ``crop_size`` (top-left at
    ``(H - h) // 2, (W - w) // 2``), then ``(x * rescale_factor - image_mean) / image_std``.
    A processor whose steps are not these (another size form, Lanczos) runs on the CPU, as
    every processor does when ``on_device`` is False.

    Where the processor resizes, the device path follows torch's filters: the same as the
    torchvision backend, not the same as PIL's bicubic (bench/RESULTS.md gives the difference
    in each metric's value).
    """
    torch = require("torch")
    height, width = images[0].shape[:2]
    steps = _device_steps(processor, height, width) if preprocess == "device" else None
    same_size = all(image.shape[:2] == (height, width) for image in images)
    if steps is None or not same_size:
        return to_device(processor(images=list(images), return_tensors="pt")["pixel_values"],
                         device)
    resize, mode, crop = steps
    pixels = uint8_on(device, images).permute(0, 3, 1, 2).float()
    if resize is not None and resize != (height, width):
        smooth = mode != "nearest"
        pixels = torch.nn.functional.interpolate(
            pixels, size=resize, mode=mode, antialias=smooth,
            align_corners=False if smooth else None).round_().clamp_(0, 255)
    if crop is not None:
        top, left = (pixels.shape[2] - crop[0]) // 2, (pixels.shape[3] - crop[1]) // 2
        pixels = pixels[:, :, top : top + crop[0], left : left + crop[1]]
    if getattr(processor, "do_rescale", False):
        pixels = pixels * float(processor.rescale_factor)
    if getattr(processor, "do_normalize", False):
        pixels = _standardized(pixels, processor.image_mean, processor.image_std)
    return pixels.contiguous()
