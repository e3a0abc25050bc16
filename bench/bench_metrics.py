"""Throughput of PSS and the CPU metrics on the SVGenius icons (run by hand).

    python bench/bench_metrics.py [--pairs 100] [--data ../shared/data/svgenius/src/data]

Pairs are (icon, another icon) and (icon, the icon with one path removed), drawn with a fixed
seed from {easy,medium,hard}/process/*.svg. Prints pairs per second for each metric; image
metrics use 224 px renders (the svgenius preset), rendered once up front (render time is
reported separately). Model-based metrics are timed only when their weights load.
"""

from __future__ import annotations

import argparse
import glob
import platform
import random
import time
from collections.abc import Callable
from pathlib import Path

from lxml import etree

from svgeval.metrics import MetricUnavailable, get_preset, levenshtein, mse, pss, rouge_l, ssim
from svgeval.svg.render import RenderSpec, render_svg


def _drop_path(svg: str, rng: random.Random) -> str:
    root = etree.fromstring(svg.encode())
    paths = list(root.iter("{http://www.w3.org/2000/svg}path"))
    if len(paths) > 1:
        victim = rng.choice(paths)
        victim.getparent().remove(victim)
    return etree.tostring(root, encoding="unicode")


def _timed(name: str, n: int, fn: Callable[[], object]) -> None:
    start = time.perf_counter()
    try:
        fn()
    except MetricUnavailable as err:
        print(f"{name:<12} not computed: {str(err)[:100]}")
        return
    elapsed = time.perf_counter() - start
    print(f"{name:<12} {n / elapsed:10.1f} pairs/s  ({elapsed:.2f} s for {n})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--data", default="../shared/data/svgenius/src/data")
    args = parser.parse_args()
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
    n = len(pairs)
    print(f"{platform.machine()}, {n} pairs from {len(files)} icons")

    _timed("pss", n, lambda: [pss(r, g) for r, g in pairs])
    size = get_preset("svgenius").render_size
    spec = RenderSpec.square(size)
    start = time.perf_counter()
    images = [(render_svg(r, spec), render_svg(g, spec)) for r, g in pairs]
    print(f"{f'render {size}':<12} {n / (time.perf_counter() - start):10.1f} pairs/s")
    _timed("mse", n, lambda: [mse(a, b) for a, b in images])
    _timed("ssim", n, lambda: [ssim(a, b) for a, b in images])
    texts = [(r[:5000], g[:5000]) for r, g in pairs]
    _timed("rouge_l", n, lambda: rouge_l([a for a, _ in texts], [b for _, b in texts]))
    _timed("levenshtein", n, lambda: levenshtein([a for a, _ in texts], [b for _, b in texts]))
    try:
        from rouge_score import rouge_scorer

        scorer = rouge_scorer.RougeScorer(["rougeL"])
        few = texts[:10]
        _timed("rouge-score", len(few), lambda: [scorer.score(a, b) for a, b in few])
    except ImportError:
        pass
    from svgeval.metrics import lpips

    _timed("lpips (vgg)", n, lambda: lpips([a for a, _ in images], [b for _, b in images]))


if __name__ == "__main__":
    main()
