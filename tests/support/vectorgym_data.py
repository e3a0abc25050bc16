"""Small parquet files with the VectorGym dataset card's columns, built by the tests."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from svgeval.builders.vectorgym.sketch import schema, write_parquet

RED = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">'
       '<rect x="8" y="8" width="48" height="48" fill="#d02020"/></svg>')
BLUE = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">'
        '<circle cx="32" cy="32" r="24" fill="#2020d0"/></svg>')
GREEN = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">'
         '<rect x="8" y="8" width="48" height="48" fill="#20a020"/></svg>')
EMPTY_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"></svg>'

SCHEMA = schema()
"""The dataset card's columns (the built-in sample's writer holds them)."""


def png(value: int) -> bytes:
    """A 16 x 16 grey PNG (a stand-in sketch)."""
    buffer = io.BytesIO()
    Image.fromarray(np.full((16, 16, 3), value, np.uint8)).save(buffer, "PNG")
    return buffer.getvalue()


def row(svg_id: str, split: str, original: str, target: str, caption: str) -> dict[str, Any]:
    return {
        "svg_id": svg_id, "sketch_category": "icon", "text_caption": caption,
        "sketch_image": {"bytes": png(len(svg_id) * 20), "path": f"{svg_id}.png"},
        "editing_prompt": "make it green" if target else None,
        "editing_target_svg": target or None, "split": split, "editing_annotation_index": 0,
        "original_svg": original, "is_chart": False,
    }


def rows(split: str) -> list[dict[str, Any]]:
    """Two usable rows per split (a red square edited to green, a blue circle)."""
    return [row(f"{split}-a", split, RED, GREEN, "a red square"),
            row(f"{split}-b", split, BLUE, GREEN, "a blue circle")]


def all_splits_file(path: Path) -> Path:
    """One parquet file holding the rows of test, train and validation."""
    return write_parquet(path, [r for s in ("test", "train", "validation") for r in rows(s)])
