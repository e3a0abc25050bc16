"""Style-transfer items in the released layout, made from the built-in icons, and the renders a
judge should see (drawn with CairoSVG directly, independently of svgeval's renderer)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import cairosvg
import numpy as np
from PIL import Image

from svgeval.builders.svgenius import builtin
from svgeval.svg.demo_corpus import DEMO_ICONS


def style_transfer_items(count: int = len(DEMO_ICONS)) -> list[dict[str, Any]]:
    """``count`` items, one per built-in icon, cycling through the four styles (the built-in
    sample's records, all under the easy tier)."""
    return builtin.style_transfer_items(list(DEMO_ICONS)[:count], "easy")


def write_items(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return path


def cairo_render(svg: str, size: int = 512) -> np.ndarray:
    """RGB pixels of ``svg`` drawn by CairoSVG at ``size`` on white, read back with Pillow."""
    png = cairosvg.svg2png(
        bytestring=svg.encode(), output_width=size, output_height=size, background_color="white"
    )
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
