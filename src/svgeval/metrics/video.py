"""Video metrics of SArena's animation track (InternSVG ``metrics/video/``): FVD with I3D, and the
image metrics (DINO, SSIM, LPIPS, PSNR) over sampled frame pairs.

A video is a (T, H, W, 3) uint8 array of RGB frames (decoding files is the caller's job).

- Frame sampling (``CLIP_video.py:22-40``): ``np.linspace(0, T - 1, n, dtype=int)``, 8 frames;
  for 150 frames 0, 21, 42, 63, 85, 106, 127, 149 (:func:`svgeval.render.video.sample_indices`, the
  one place this rule lives).
- Frame metrics (``DINO_video.py``, ``SSIM_video.py``, ``LPIPS_video.py``, ``PSNR_video.py``):
  the image metric on each pair of sampled frames, paired up to the shorter list, averaged per
  video. The preset decides the image metric's reading (InternSVG's: uniform 11 px SSIM on
  8-bit frames, PSNR with inf -> 100, DINOv2-base (cos+1)/2, LPIPS-VGG on ImageNet-normalised
  frames). Released LPIPS-Video pools all frame pairs of all videos into one mean; with the same
  number of frames per video that is the mean of these per-video means.
- FVD (``FVD.py``, cd-fvd 0.1.1): from each video one window of 16 consecutive frames, each frame
  scaled so its shorter side is 128 (bilinear, antialiased, on [0, 1] floats) and centre-cropped
  to 128 x 128, back to 8 bits by truncation (``(x * 255).byte()``); then resized to 224 x 224
  (bilinear, no antialiasing) as ``2x/255 - 1`` for I3D (:mod:`svgeval.metrics._i3d`), whose
  400 logits are the features; Fréchet distance with population covariances
  (:mod:`svgeval.metrics.frechet`, variant ``cd-fvd``). Which window: cd-fvd picks one at
  random per video (Python's ``random`` inside DataLoader workers, seeded through
  ``seed_everything(42)`` and the worker count); ``window="random"`` draws them from ``seed``
  with numpy (a different, recorded draw), ``"first"`` (default) takes frames 0-15, the
  reproducible reading. A video shorter than 16 frames has no window: ValueError (cd-fvd's
  ``VideoClips`` skips it).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics import _i3d, _models
from svgeval.metrics.frechet import fid_from_features
from svgeval.metrics.model_settings import ModelSettings, chosen
from svgeval.metrics.presets import DEFAULT, MetricPreset
from svgeval.metrics.registry import MetricInfo, describe_metric
from svgeval.render.video import sample_indices

Video = NDArray[np.uint8]
I3D_WEIGHTS = "i3d_pretrained_400.pt"
WINDOWS = ("first", "random")

for _info in (
    MetricInfo("fvd", "Fréchet distance of Gaussians (population covariance) fitted to I3D "
               "Kinetics-400 logits of 16-frame 128 px clips of the output and reference videos",
               "[0, inf)", False, "Unterthiner et al. 2019; InternSVG metrics/video/FVD.py "
               "(cd-fvd 0.1.1, i3d_pretrained_400.pt)"),
    MetricInfo("video_dino", "mean over 8 sampled frame pairs of the DINO score", "[0, 1]", True,
               "InternSVG metrics/video/DINO_video.py"),
    MetricInfo("video_ssim", "mean over 8 sampled frame pairs of SSIM", "[-1, 1]", True,
               "InternSVG metrics/video/SSIM_video.py"),
    MetricInfo("video_lpips", "mean over 8 sampled frame pairs of LPIPS", "[0, ~1]", False,
               "InternSVG metrics/video/LPIPS_video.py"),
    MetricInfo("video_psnr", "mean over 8 sampled frame pairs of PSNR (identical frames: 100)",
               "[0, 100]", True, "InternSVG metrics/video/PSNR_video.py"),
):
    describe_metric(_info)


def sample_frames(video: Video, count: int = 8) -> list[NDArray[np.uint8]]:
    """The frames of ``video`` at :func:`~svgeval.render.video.sample_indices`."""
    return [np.asarray(video[i]) for i in sample_indices(len(video), count)]


def frame_scores(
    videos_a: Sequence[Video],
    videos_b: Sequence[Video],
    metric: str,
    *,
    frames: int = 8,
    preset: str | MetricPreset = DEFAULT,
    **kwargs: Any,
) -> list[float]:
    """Per video pair, the mean of ``metric`` (``dino``, ``ssim``, ``lpips`` or ``psnr``, with
    ``preset`` and ``kwargs``) over the pairs of their sampled frames (up to the shorter list).
    A video with no frames gives NaN (released: the metric's NaN, dropped from the mean)."""
    from svgeval.metrics import dino, lpips, pixel

    if len(videos_a) != len(videos_b):
        raise ValueError(f"{len(videos_a)} and {len(videos_b)} videos")
    batched: dict[str, Callable[..., list[float]]] = {"dino": dino.dino, "lpips": lpips.lpips}
    single: dict[str, Callable[..., float]] = {
        "ssim": lambda a, b: pixel.ssim(a, b, preset=preset, **kwargs),
        "psnr": lambda a, b: pixel.psnr(a, b, **kwargs)}
    if metric not in (*batched, *single):
        raise ValueError(f"metric must be dino, ssim, lpips or psnr, not {metric!r}")
    pairs = [list(zip(sample_frames(a, frames), sample_frames(b, frames)))
             for a, b in zip(videos_a, videos_b)]
    flat = [pair for video in pairs for pair in video]
    if metric in batched and flat:
        values = batched[metric]([p[0] for p in flat], [p[1] for p in flat], preset=preset, **kwargs)
    else:
        values = [single[metric](a, b) for a, b in flat] if flat else []
    out, start = [], 0
    for video in pairs:
        chunk = values[start : start + len(video)]
        start += len(video)
        out.append(float(np.mean(chunk)) if chunk else float("nan"))
    return out


def fvd_clip(video: Video, *, start: int = 0, length: int = 16,
             resolution: int = 128) -> NDArray[np.uint8]:
    """Frames ``start .. start + length - 1`` of ``video``, the shorter side scaled to
    ``resolution`` (bilinear, antialiased, size rounded up) and centre-cropped to a square, as
    8-bit (truncated) frames (length, resolution, resolution, 3): cd-fvd's ``preprocess``."""
    import math

    torch = _models.require("torch")
    if len(video) < start + length:
        raise ValueError(f"a {len(video)}-frame video has no {length}-frame window at {start}")
    x = torch.from_numpy(np.ascontiguousarray(video[start : start + length])).permute(0, 3, 1, 2)
    x = x.float() / 255.0
    h, w = x.shape[-2:]
    scale = resolution / min(h, w)
    size = (resolution, math.ceil(w * scale)) if h < w else (math.ceil(h * scale), resolution)
    x = torch.nn.functional.interpolate(x, size=size, mode="bilinear", align_corners=False,
                                        antialias=True)
    top, left = (x.shape[-2] - resolution) // 2, (x.shape[-1] - resolution) // 2
    x = x[:, :, top : top + resolution, left : left + resolution]
    return np.asarray((x * 255).byte().permute(0, 2, 3, 1).numpy(), np.uint8)


def i3d_features(clips: Iterable[NDArray[np.uint8]], *, model: str = I3D_WEIGHTS,
                 model_path: str | None = None, device: str | None = None,
                 batch_size: int = 8,
                 model_settings: ModelSettings | None = None) -> NDArray[np.float64]:
    """(N, 400) I3D logits of (T, H, W, 3) uint8 clips, each resized to 224 x 224 (bilinear,
    no antialiasing) and scaled to ``2x/255 - 1`` (cd-fvd's ``preprocess_i3d``); ``clips`` is
    read ``batch_size`` at a time (a generator of clips is never held whole). Weights
    (``--model-path i3d=FILE``, ``SVGEVAL_I3D_MODEL``): ``i3d_pretrained_400.pt``, a folder
    holding it, the torch hub cache, or a hub repo ``org/name[/file]``."""
    torch = _models.require("torch")
    dev, how = _models.pick_device(device), chosen(model_settings)
    net = _models.load_first(
        "i3d", f"the I3D weights ({model})", model, model_path,
        lambda src: _i3d.load_i3d(_models.resolve_file(src, I3D_WEIGHTS), dev), (dev,),
        settings=how)

    def computed() -> Iterator[Any]:
        remaining = iter(clips)
        while chunk := list(itertools.islice(remaining, batch_size)):
            x = torch.from_numpy(np.stack(chunk)).float()                # (B, T, H, W, C)
            b, t = x.shape[:2]
            x = x.flatten(0, 1).permute(0, 3, 1, 2)
            x = torch.nn.functional.interpolate(x, size=(224, 224), mode="bilinear",
                                                align_corners=False)
            x = x.view(b, t, 3, 224, 224).transpose(1, 2)
            with _models.inference(dev, how.precision):
                yield net(_models.to_device(2.0 * x / 255.0 - 1.0, dev)).double()

    out = list(_models.read_back(computed()))
    return np.concatenate(out) if out else np.zeros((0, _i3d.CLASSES))


def fvd(
    references: Sequence[Video],
    generated: Sequence[Video],
    *,
    window: str = "first",
    seed: int = 0,
    length: int = 16,
    resolution: int = 128,
    model: str = I3D_WEIGHTS,
    model_path: str | None = None,
    device: str | None = None,
    batch_size: int = 8,
    method: str = "auto",
    model_settings: ModelSettings | None = None,
) -> float:
    """FVD between two sets of videos (each >= 2): see the module docstring for the clips,
    ``window`` and ``seed``; ``method``: :func:`~svgeval.metrics.frechet.fid_from_features`.
    Range [0, inf); lower is better. Each video is read once, as its clip is cut and a batch
    of clips at a time goes through I3D: a lazy sequence of videos (read when indexed) is never
    held whole."""
    if window not in WINDOWS:
        raise ValueError(f"window must be one of {', '.join(WINDOWS)}, not {window!r}")
    if len(references) < 2 or len(generated) < 2:
        raise ValueError(f"FVD needs at least 2 videos per set, got {len(references)} and "
                         f"{len(generated)}")
    rng = np.random.default_rng(seed)

    def clips(videos: Sequence[Video]) -> Iterator[NDArray[np.uint8]]:
        # the references' windows are drawn before the answers' (I3D reads them first)
        for video in videos:
            start = int(rng.integers(0, len(video) - length + 1)) if (
                window == "random" and len(video) >= length) else 0
            yield fvd_clip(video, start=start, length=length, resolution=resolution)

    kw: dict[str, Any] = {"model": model, "model_path": model_path, "device": device,
                          "batch_size": batch_size, "model_settings": chosen(model_settings)}
    return fid_from_features(i3d_features(clips(references), **kw),
                             i3d_features(clips(generated), **kw), method=method, variant="cd-fvd")
