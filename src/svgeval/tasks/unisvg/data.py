"""UniSVG rows: VLMEvalKit's ``UniSVG.tsv`` from the hub, or a local copy.

VLMEvalKit's ``UniSVG`` dataset class (``vlmeval/dataset/uni_svg.py``) downloads
``UniSVG.tsv`` from the dataset repo ``JoeLeelyf/UniSVG-VLMEvalKit``. It is a VLMEvalKit TSV:
one row per question with ``index``, ``question``, ``answer`` (the ground-truth SVG for the
generation types, the reference text otherwise), ``category`` (the question type, e.g.
``ISVGEN``, ``CSVGUN_color``), ``l2-category`` (a JSON object: the type's metadata, e.g.
``{"keywords": {"colors": {"colors": [...]}, "category": [...]}}``) and ``image`` (base64
image bytes, for the types that show an image). As in every VLMEvalKit TSV, an ``image`` cell of
at most 64 characters names the ``index`` of the row holding the image, and a cell written as a
Python list holds several images (VLMEvalKit ``ImageBaseDataset``).

``--data PATH`` takes that TSV file (or a folder holding ``UniSVG.tsv``); without it the file
is downloaded once with ``huggingface_hub`` (cached in the Hugging Face cache).
"""

from __future__ import annotations

import ast
import base64
import binascii
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import DataUnavailable, hub_download

HUB_ID = "JoeLeelyf/UniSVG-VLMEvalKit"
FILE = "UniSVG.tsv"
COLUMNS = ("index", "question", "answer", "category")
"""The columns every row needs (``image`` and ``l2-category`` only where the type uses them)."""
_REFERENCE_LENGTH = 64
"""An ``image`` cell this short is another row's ``index`` (VLMEvalKit's rule)."""


class UniSvgRow(BaseModel):
    """One question: its id, type, prompt, reference answer, metadata and image (PNG bytes)."""

    index: str
    category: str
    question: str
    answer: str
    metadata: dict[str, Any] = {}
    pngs: list[bytes] = []


def _metadata(text: str) -> dict[str, Any]:
    """``l2-category`` parsed as JSON; anything else (empty, not an object) is ``{}``, as the
    released ``parse_json_safe`` (which would then fail on a non-object)."""
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _pngs(cell: str, images: dict[str, str], where: str) -> list[bytes]:
    """The images of an ``image`` cell as PNG bytes (JPEG and others re-encoded): base64, a
    list of them, or the ``index`` of the row that holds them; none for an empty cell."""
    if 0 < len(cell) <= _REFERENCE_LENGTH:
        if len(images.get(cell, "")) <= _REFERENCE_LENGTH:
            raise MalformedData(f"{where}: column image names row {cell!r}, which has no image")
        cell = images[cell]
    from PIL import Image, UnidentifiedImageError

    out = []
    try:
        for item in ast.literal_eval(cell) if cell.startswith("[") else [cell] if cell else []:
            with Image.open(io.BytesIO(base64.b64decode(str(item)))) as image:
                buffer = io.BytesIO()
                image.convert("RGB").save(buffer, "PNG")
            out.append(buffer.getvalue())
    except (binascii.Error, UnidentifiedImageError, ValueError, SyntaxError) as error:
        raise MalformedData(f"{where}: column image is not a base64 image ({error})") from None
    return out


def read_tsv(path: Path) -> list[UniSvgRow]:
    """The rows of a local ``UniSVG.tsv`` (a folder means the ``UniSVG.tsv`` in it)."""
    file = path / FILE if path.is_dir() else path
    if not file.is_file():
        raise DataUnavailable(f"--data {path}: no such file (expected VLMEvalKit's {FILE})")
    csv.field_size_limit(sys.maxsize)
    with file.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise MalformedData(f"{file}: missing column(s) {', '.join(missing)}")
        raws = list(reader)
    images = {raw["index"]: raw.get("image") or "" for raw in raws}
    return [
        UniSvgRow(index=raw["index"], category=raw["category"] or "",
                  question=raw["question"] or "", answer=raw["answer"] or "",
                  metadata=_metadata(raw.get("l2-category") or ""),
                  pngs=_pngs(raw.get("image") or "", images, f"{file}: row {number}"))
        for number, raw in enumerate(raws, start=1)
    ]


def load_rows(data: Path | None) -> list[UniSvgRow]:
    """The rows of ``data``, or of the hub's file (downloaded once, then cached)."""
    if data is not None:
        return read_tsv(data)
    return read_tsv(hub_download(HUB_ID, FILE))

