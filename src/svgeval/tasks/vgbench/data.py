"""VGBench data: VGQA question files and VGen's caption file, local or from the hub.

VGQA (HF ``vgbench/VGQA``): the released ``evaluate.py`` reads
``data/svg/final_dataset_<type>.json``, a JSON list of ``{"idx", "data": {"code", "caption",
...}, "query": {"q", "o": ["A: ...", ...], "a": "A", "idx"}}`` (``build_dataset.py``). The same
fields flattened (``code``, ``q``/``question``, ``o``/``options``, ``a``/``answer``, ``type``) in a
JSON or parquet file are accepted too. The question type is the file name's ``<type>`` or a
``type`` column. VGen (HF ``vgbench/VGen``): ``svg.json``, records ``{"idx", "code", "caption",
"vformat"}``.

``--data PATH`` takes a file or a folder searched for these files (only paths naming ``svg``
for VGQA's ``final_dataset_*`` files, so the TikZ and Graphviz parts are left out). Without it the
hub dataset is downloaded with ``huggingface_hub`` (cached there) and searched the same way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import DataUnavailable, hub_download

VGQA_HUB_ID = "vgbench/VGQA"
VGEN_HUB_ID = "vgbench/VGen"


@dataclass(frozen=True)
class Question:
    """One VGQA question: the SVG code, the question, its labelled options, the answer letter."""

    qtype: str
    code: str
    question: str
    options: list[str]
    answer: str


@dataclass(frozen=True)
class Caption:
    """One VGen record: its id, ground-truth SVG and caption."""

    id: str
    code: str
    caption: str


def hub_root(hub_id: str) -> Path:
    """The hub dataset's files (downloaded once, cached by ``huggingface_hub``)."""
    return hub_download(hub_id)


def _records(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        try:
            return [dict(row) for row in pq.read_table(path).to_pylist()]
        except Exception as error:  # noqa: BLE001 (pyarrow raises several kinds)
            raise MalformedData(f"{path}: not a readable parquet file ({error})") from None
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise MalformedData(f"{path}: not valid JSON ({error})") from None
    if not isinstance(loaded, list) or not all(isinstance(r, dict) for r in loaded):
        raise MalformedData(f"{path} should hold a JSON list of objects")
    return loaded


def _first(record: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if record.get(name) is not None:
            return record[name]
    return None


def to_question(record: Mapping[str, Any], qtype: str, where: str) -> Question:
    """A question from a nested (released) or flattened record; one line naming the columns
    found when a field is missing."""
    nested_data, nested_query = record.get("data"), record.get("query")
    data: Mapping[str, Any] = nested_data if isinstance(nested_data, dict) else record
    query: Mapping[str, Any] = nested_query if isinstance(nested_query, dict) else record
    code = _first(data, "code")
    question = _first(query, "q", "question")
    options = _first(query, "o", "options")
    answer = _first(query, "a", "answer")
    if isinstance(options, str):
        options = json.loads(options) if options.startswith("[") else [options]
    if not (isinstance(code, str) and isinstance(question, str) and isinstance(answer, str)
            and isinstance(options, list)):
        raise MalformedData(
            f"{where}: needs the SVG code, a question, options and an answer "
            f"(code, q|question, o|options, a|answer); fields found: {', '.join(map(str, record))}"
        )
    return Question(qtype=str(record.get("type") or qtype), code=code, question=question,
                    options=[str(o) for o in options], answer=answer.strip())


def question_files(root: Path) -> list[tuple[str, Path]]:
    """(type, file) of each SVG question file under ``root`` (a file is its own)."""
    if root.is_file():
        stem = root.stem
        return [(stem.removeprefix("final_dataset_") if stem.startswith("final_dataset_")
                 else "all", root)]
    if not root.is_dir():
        raise DataUnavailable(f"--data {root}: no such file or folder")
    found = sorted(p for p in root.rglob("final_dataset_*.json")
                   if "svg" in p.relative_to(root).as_posix().lower() or p.parent == root)
    if not found:
        found = sorted(p for p in root.rglob("*.parquet") if "svg" in p.as_posix().lower())
    if not found:
        raise DataUnavailable(f"{root}: no final_dataset_<type>.json or svg parquet file under it")
    return [(p.stem.removeprefix("final_dataset_") if p.suffix == ".json" else "all", p)
            for p in found]


def load_questions(data: Path | None) -> dict[str, list[Question]]:
    """The questions of each type, in file order."""
    root = data if data is not None else hub_root(VGQA_HUB_ID)
    by_type: dict[str, list[Question]] = {}
    for qtype, path in question_files(root):
        for index, record in enumerate(_records(path)):
            question = to_question(record, qtype, f"{path}: record {index}")
            by_type.setdefault(question.qtype, []).append(question)
    return by_type


def load_captions(data: Path | None) -> list[Caption]:
    """VGen's SVG records (``svg.json``)."""
    root = data if data is not None else hub_root(VGEN_HUB_ID)
    path = root if root.is_file() else next(iter(sorted(root.rglob("svg.json"))), None)
    if path is None:
        raise DataUnavailable(f"{root}: no svg.json under it; pass the file with --data")
    captions = []
    for index, record in enumerate(_records(path)):
        code, caption = record.get("code"), record.get("caption")
        if not (isinstance(code, str) and isinstance(caption, str)):
            raise MalformedData(f"{path}: record {index}: needs code and caption strings; "
                                f"fields found: {', '.join(map(str, record))}")
        captions.append(Caption(id=str(record.get("idx", index)), code=code, caption=caption))
    return captions
