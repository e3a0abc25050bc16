"""Throughput of the CPU metrics on SVGenius icon pairs against drawing the pairs.

    python -m bench metrics [--data ../shared/data/svgenius] [--set pairs=100]

Pairs are (icon, another icon) and (icon, the icon with one path removed), drawn with a fixed
seed from SVGenius' ``{easy,medium,hard}/process/*.svg``; the image metrics read 224 px renders
(the svgenius preset's size), drawn once up front. Figures in pairs/s, in this process: PSS
(which draws the pair itself), MSE, SSIM, ROUGE-L and Levenshtein. The floor of each: the safe
render of both SVGs of each pair at 224 px in this process (the sanitiser and CairoSVG), what
every image metric needs first. (PSS in isolation: the ``pss`` case; the model metrics:
``model-metrics``.)
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

from bench.measure import Figures, Scale, seconds_of, svgenius


def drop_path(svg: str, rng: random.Random) -> str:
    """``svg`` without one of its paths, chosen by ``rng`` (unchanged with a single path)."""
    from lxml import etree

    root = etree.fromstring(svg.encode())
    paths = list(root.iter("{http://www.w3.org/2000/svg}path"))
    if len(paths) > 1:
        victim = rng.choice(paths)
        victim.getparent().remove(victim)
    return str(etree.tostring(root, encoding="unicode"))


def icon_pairs(data: Path, n: int) -> list[tuple[str, str]]:
    """``n`` pairs (module doc) from the icons under ``data`` (the release's ``src/data``)."""
    files = sorted(data.glob("*/process/*.svg"))
    rng = random.Random(0)
    icons = [f.read_text(encoding="utf-8") for f in files]
    pairs = []
    for _ in range(n // 2):
        ref = rng.choice(icons)
        pairs += [(ref, rng.choice(icons)), (ref, drop_path(ref, rng))]
    return pairs


def run(scale: Scale) -> Figures:
    from svgeval.metrics.pixel import mse, ssim
    from svgeval.metrics.presets import get_preset
    from svgeval.metrics.pss import pss
    from svgeval.metrics.text import levenshtein, rouge_l
    from svgeval.render.cairo import RenderSpec, render_svg

    pairs = icon_pairs(svgenius(scale) / "src" / "data", scale.pick("pairs", 100, 6))
    n = len(pairs)
    spec = RenderSpec.square(get_preset("svgenius").render_size)
    started = time.perf_counter()
    images: list[tuple[Any, Any]] = [(render_svg(r, spec), render_svg(g, spec)) for r, g in pairs]
    floor = n / (time.perf_counter() - started)
    where = f"safe render of both SVGs at {spec.width} px, in process"
    texts = [(r[:5000], g[:5000]) for r, g in pairs]
    figures = Figures()
    figures.note(f"{n} pairs")
    for name, work in (
        ("pss (in process)", lambda: [pss(r, g) for r, g in pairs]),
        ("mse", lambda: [mse(a, b) for a, b in images]),
        ("ssim", lambda: [ssim(a, b) for a, b in images]),
        ("rouge_l", lambda: rouge_l([a for a, _ in texts], [b for _, b in texts])),
        ("levenshtein", lambda: levenshtein([a for a, _ in texts], [b for _, b in texts])),
    ):
        figures.add(name, n / seconds_of(work), "pairs/s", floor, where)
    return figures
