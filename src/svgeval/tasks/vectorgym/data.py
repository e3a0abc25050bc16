"""VectorGym rows: the Hugging Face dataset ``ServiceNow/VectorGym`` or a local parquet copy.

The dataset card lists the columns ``svg_id, sketch_category, text_caption, sketch_image,
editing_prompt, editing_target_svg, split, editing_annotation_index, original_svg, is_chart``
and the splits ``train`` (9,410 rows) and ``test`` (293). ``sketch_image`` is the ``datasets``
Image feature, stored in parquet as a struct of ``bytes`` and ``path``.

``--data PATH`` takes a parquet file (its rows whose ``split`` column is the requested split, or
all rows when it has no such column) or a folder holding the hub's layout
(``data/<split>-00000-of-00001.parquet``: every ``<split>-*.parquet`` under the folder). Without
``--data`` the dataset is loaded with ``datasets`` from the hub (cached by ``datasets``).

Each task keeps the rows the released ``data/processor.py`` keeps for it (an ``original_svg``
containing ``<svg``, plus a non-empty caption, a sketch, or an editing prompt and target).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from svgeval.metrics._models import check_hub
from svgeval.tasks.common.rows import read_parquet_tables
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import DataUnavailable, hub_failure

HUB_ID = "ServiceNow/VectorGym"
SPLITS = ("test", "train", "validation")
COLUMNS = (
    "svg_id", "sketch_category", "text_caption", "sketch_image", "editing_prompt",
    "editing_target_svg", "split", "editing_annotation_index", "original_svg", "is_chart",
)
"""The dataset card's columns, in its order."""


class VectorGymRow(BaseModel):
    """One dataset row (the fields svgeval reads; ``sketch_png`` is the decoded image bytes)."""

    svg_id: str
    original_svg: str | None = None
    text_caption: str | None = None
    sketch_png: bytes | None = None
    editing_prompt: str | None = None
    editing_target_svg: str | None = None
    editing_annotation_index: int | None = None
    sketch_category: str | None = None
    split: str | None = None

    @property
    def has_svg(self) -> bool:
        """The released filter: ``original_svg`` is a string containing ``<svg``."""
        return isinstance(self.original_svg, str) and "<svg" in self.original_svg.lower()


def _image_bytes(value: Any) -> bytes | None:
    """The bytes of an Image feature cell: a ``{bytes, path}`` struct, raw bytes, or a PIL image."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    if isinstance(value, dict):
        raw = value.get("bytes")
        if raw is None and value.get("path"):
            path = Path(str(value["path"]))
            raw = path.read_bytes() if path.is_file() else None
        return raw if isinstance(raw, bytes) else None
    if hasattr(value, "save"):  # a decoded PIL image from ``datasets``
        import io

        buffer = io.BytesIO()
        value.save(buffer, "PNG")
        return buffer.getvalue()
    return None


def to_row(raw: dict[str, Any], where: str) -> VectorGymRow:
    """A validated row; :class:`MalformedData` naming ``where`` and the field otherwise."""
    fields = {key: value for key, value in raw.items() if key in VectorGymRow.model_fields}
    fields["svg_id"] = str(raw.get("svg_id", ""))
    fields["sketch_png"] = _image_bytes(raw.get("sketch_image"))
    try:
        return VectorGymRow.model_validate(fields)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        raise MalformedData(f"{where}: field {field}: {first['msg']}") from None


def read_parquet_rows(path: Path, split: str) -> list[VectorGymRow]:
    """The rows of ``split`` in a local copy (see the module docstring)."""
    rows: list[VectorGymRow] = []
    for file, table in read_parquet_tables(path, split):
        missing = sorted({"svg_id", "original_svg"} - set(table.column_names))
        if missing:
            raise MalformedData(f"{file}: missing column(s) {', '.join(missing)}")
        for index, raw in enumerate(table.to_pylist()):
            if path.is_file() and "split" in raw and raw["split"] not in (None, split):
                continue
            rows.append(to_row(raw, f"{file}: row {index}"))
    return rows


def read_hub_rows(split: str) -> list[VectorGymRow]:
    """The rows of ``split`` from the hub through ``datasets`` (images kept as bytes)."""
    try:
        import datasets
    except ImportError:
        raise DataUnavailable(
            "loading VectorGym from the hub needs `pip install datasets`; or pass --data PATH "
            "(a parquet file or a folder of the dataset's parquet files)"
        ) from None
    unreachable = check_hub()
    try:
        table = datasets.load_dataset(HUB_ID, split=split)
        table = table.cast_column("sketch_image", datasets.Image(decode=False))
    except Exception as error:  # noqa: BLE001 (network, missing split, ...)
        raise hub_failure(f"load {HUB_ID} split {split}", error, unreachable) from None
    return [to_row(dict(raw), f"{HUB_ID}[{split}] row {i}") for i, raw in enumerate(table)]


def load_rows(data: Path | None, split: str) -> list[VectorGymRow]:
    """The rows of ``split``, from ``data`` or the hub; :class:`DataUnavailable` when empty."""
    rows = read_parquet_rows(data, split) if data is not None else read_hub_rows(split)
    if not rows:
        raise DataUnavailable(f"VectorGym split {split!r} has no rows in {data or HUB_ID}")
    return rows
