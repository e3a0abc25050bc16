"""Model metrics' throughput against their networks' forward pass alone: at each batch size,
and in each precision and preprocessing.

    python -m bench model-metrics [--data ../shared/data/svgenius] [--set device=auto]
        [--set samples=32] [--set batch_sizes=1,8,32] [--set precisions=fp32,bf16,fp16]
        [--set preprocess=cpu,device] [--set metrics=clip,dino,lpips,fid]
        [--set renders=FILE.npz] [--set lpips=FILE]

CLIP score (ViT-B/32, ViT-L/14), DINO (DINOv2-base), LPIPS (VGG16, where its weights are found)
and the FID Inception features, on ``samples`` 224 px renders of SVGenius icons (or the renders
of ``renders``, written by :func:`bench.networks.save_renders` on a machine with a renderer),
with the random-weight networks of :mod:`bench.networks`. For each metric:

* called on the whole list at each of ``batch_sizes`` (batch 1: a sample at a time), in
  samples/s; the floor of each is the network's forward pass alone at that batch size: its
  inputs already on the device, synchronised;
* at the largest batch size, in each precision and preprocessing (the first pair is the
  baseline): the whole call and the preprocessing alone (the image processor or the ImageNet
  normalisation, on the CPU or as torch steps on the device, from uint8 renders; for CLIP also
  the tokenizer; FID's 299 px resize; FID runs in fp32 only: its protocol), against the forward
  pass under that precision; and the largest difference from the baseline's values.

At the smoke scale the networks are one layer deep and only CLIP and DINO run. Each figure is
the best of 3 timings after a warm-up. ``lpips=FILE``: a float16 VGG16
copy (:func:`bench.networks.pack_lpips`). Needs torch and transformers (the ``models`` extra);
skipped without them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from bench.measure import Figures, Scale, needs, svgenius
from bench.networks import draw, save_models, splits, timed, widen_lpips


def run(scale: Scale) -> Figures:
    needs("torch", "transformers", extra='pip install -e ".[models]"')
    import numpy as np
    import torch

    from svgeval.metrics.model_settings import ModelSettings
    from svgeval.run_request import Precision, Preprocessing

    device = scale.pick("device", "auto", "cpu")
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    samples = scale.pick("samples", 32, 4)
    sizes = [int(b) for b in scale.pick("batch_sizes", "1,8,32", "2").split(",")]
    chosen = scale.pick("metrics", "clip,dino,lpips,fid", "clip,dino").split(",")
    settings = [(p, q) for q in scale.pick("preprocess", "cpu", "cpu").split(",")
                for p in scale.pick("precisions", "fp32", "fp32").split(",")]
    renders = scale.pick("renders", "", "")
    uint8 = (np.load(renders)["renders"] if renders
             else draw(svgenius(scale) / "src" / "data", samples))
    images: list[Any] = list(uint8[:samples])
    n = len(images)
    figures = Figures()
    figures.note(f"{n} samples at 224 px, device {device}, torch {torch.__version__}, "
                 f"{torch.get_num_threads()} threads")
    folder = scale.workdir / "networks"
    paths = save_models(folder, tiny=scale.smoke)
    weights: dict[str, str] = {}
    if scale.pick("lpips", "", ""):
        widen_lpips(Path(scale.pick("lpips", "", "")), folder)
        weights["lpips"] = str(folder)
    base = ModelSettings(model_paths=weights)
    for bs in sizes:
        for name, make in splits(paths, images, bs, device, base).items():
            if name.split("_")[0].split()[0] not in chosen:
                continue
            whole, _, forward = make()
            floor = n / timed(forward, device)
            figures.add(f"{name}: batch {bs}", n / timed(whole, device), "samples/s", floor,
                        f"forward alone, batch {bs}")
    bs = max(sizes)
    for name in splits(paths, images, bs, device, base):
        if name.split("_")[0].split()[0] not in chosen:
            continue
        baseline = None
        for precision, where in settings[:1] if name.startswith("FID") else settings:
            how = ModelSettings(cast(Precision, precision), cast(Preprocessing, where), weights)
            whole, pre, forward = splits(paths, images, bs, device, how)[name]()
            values = whole()
            baseline = baseline or values
            floor = n / timed(forward, device)
            label = f"{name}, batch {bs}, {precision}, preprocess {where}"
            figures.add(f"{label}: whole call", n / timed(whole, device), "samples/s", floor,
                        "forward alone")
            figures.add(f"{label}: preprocessing alone", n / timed(pre, device), "samples/s",
                        floor, "forward alone")
            figures.add(f"{label}: max diff from {settings[0][0]}, {settings[0][1]}",
                        max(abs(a - b) for a, b in zip(values, baseline)), "")
    return figures
