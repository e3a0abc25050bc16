"""LICA-Bench SVG task files: ``svg-<n>.json`` in the release's schemas, local or from the hub.

The release reads ``<bundle>/benchmarks/svg/<task-id>.json`` (``base.py:176-190``,
``utils/data_helpers.py:11-31``) and resolves the relative ``svg_path`` / ``image_path`` /
``image`` of its records against that file's folder. ``--data PATH`` takes the bundle root
(``lica-benchmarks-dataset/``), its ``benchmarks/svg/`` folder, a folder holding the
``svg-<n>.json`` files, or one such file. Without it the file is looked for in the Hugging Face
dataset ``purvanshi/lica-dataset`` (downloaded into the hub cache: the JSON file first, then only
the files its records name); if the dataset holds no such file the run stops with one line
naming what it holds.

The record schemas (the fields ``load_data`` reads, each with the release's default):

* svg-1 / svg-2 (``tasks/svg.py:238-269``): ``{"svg_path", "image_path", "questions": {key:
  {"question", "option": {"A": ..}, "answer"}}}``;
* svg-3 (``:376-388``): ``{"bug_svg", "ground_truth", "error_type", "difficulty"}``;
* svg-4 (``:434-448``): ``{"origin_svg", "opti_svg", "opti_ratio"}``;
* svg-5 (``:503-514``): ``{"original", "modified", "command"}``;
* svg-6 / 7 / 8 (``:735-753``, ``:795-812``, ``:856-874``): ``{"question": [text], "answer":
  svg, "image": path}``.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from svgeval.tasks.data_files import MalformedData, read_json_items
from svgeval.tasks.download import DataUnavailable, hub_download

HUB_ID = "purvanshi/lica-dataset"
T = TypeVar("T", bound=BaseModel)


class QAQuestion(BaseModel):
    question: str = ""
    option: dict[str, Any] = {}
    answer: Any = None


class QAEntry(BaseModel):
    svg_path: str = ""
    image_path: str = ""
    questions: dict[str, QAQuestion] = {}


class BugFixItem(BaseModel):
    bug_svg: str = ""
    ground_truth: str = ""
    error_type: str = ""
    difficulty: str = ""


class OptimizeItem(BaseModel):
    origin_svg: str = ""
    opti_svg: str | None = None
    opti_ratio: int | float | str = 1.0
    """Printed into the prompt as Python prints the JSON value."""


class StyleEditItem(BaseModel):
    original: str = ""
    modified: str = ""
    command: str = ""


class GenerationItem(BaseModel):
    question: list[str] | str = []
    answer: str
    image: str = ""

    @property
    def description(self) -> str:
        """The first question (the release's ``item["question"][0]``; a plain string whole)."""
        if isinstance(self.question, str):
            return self.question
        return self.question[0] if self.question else ""


@dataclass(frozen=True)
class TaskFile(Generic[T]):
    """A task's JSON file and its records."""

    path: Path
    items: list[T]

    def resolve(self, relative: str) -> Path:
        """A path a record names: absolute as it is, else against the file's folder."""
        return Path(relative) if Path(relative).is_absolute() else self.path.parent / relative


def local_file(data: Path, task_id: str) -> Path:
    """``<task_id>.json`` under ``--data`` (see the module docstring)."""
    name = f"{task_id}.json"
    if data.is_file():
        return data
    if not data.is_dir():
        raise DataUnavailable(f"--data {data}: no such file or folder")
    for folder in (data / "benchmarks" / "svg", data):
        if (folder / name).is_file():
            return folder / name
    raise DataUnavailable(f"--data {data}: no {name} in it or in its benchmarks/svg/ folder")


def _snapshot(patterns: Sequence[str]) -> Path:
    """The hub dataset's files matching ``patterns``, downloaded once into the hub cache."""
    return hub_download(HUB_ID, patterns=patterns)


def _hub_listing() -> str:
    """A few of the hub dataset's file names, for the error that it has no task file."""
    try:
        from huggingface_hub import HfApi

        names = HfApi().list_repo_files(HUB_ID, repo_type="dataset")
    except Exception as error:  # noqa: BLE001 (offline, no package, ...)
        return f"its file list could not be read: {type(error).__name__}"
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    return f"it holds {shown or 'no files'}"


def hub_file(task_id: str) -> tuple[Path, Path]:
    """``<task_id>.json`` of the hub dataset and the snapshot folder holding it."""
    root = _snapshot([f"*{task_id}.json"])
    found = sorted(root.rglob(f"{task_id}.json"), key=lambda p: ("benchmarks" not in p.parts, p))
    if not found:
        raise DataUnavailable(f"{HUB_ID} has no {task_id}.json ({_hub_listing()}); pass --data "
                              "PATH (the lica-benchmarks-dataset bundle or its benchmarks/svg/)")
    return found[0], root


def load_task_file(data: Path | None, task_id: str, item_type: type[T],
                   names: Callable[[T], Sequence[str]] = lambda item: ()) -> TaskFile[T]:
    """The records of ``<task_id>.json``; from the hub, the files the records' ``names`` name
    (relative to the JSON file) are downloaded too."""
    if data is not None:
        path = local_file(data, task_id)
        return TaskFile(path, read_json_items(path, item_type))
    path, root = hub_file(task_id)
    items = read_json_items(path, item_type)
    folder = path.parent.relative_to(root)
    wanted = sorted({os.path.normpath(folder / name).replace(os.sep, "/")
                     for item in items for name in names(item)
                     if name and not Path(name).is_absolute()})
    wanted = [name for name in wanted if not name.startswith("..")]
    if wanted:
        _snapshot(wanted)
    return TaskFile(path, items)


def png_file(path: Path, where: str) -> bytes:
    """The picture at ``path`` as PNG bytes (re-encoded when stored otherwise);
    :class:`MalformedData` naming ``where`` when it cannot be read."""
    try:
        raw = path.read_bytes()
        if raw.startswith(b"\x89PNG\r\n\x1a\n"):
            return raw
        from PIL import Image

        with Image.open(io.BytesIO(raw)) as picture:
            buffer = io.BytesIO()
            picture.convert("RGBA" if "A" in picture.getbands() else "RGB").save(buffer, "PNG")
            return buffer.getvalue()
    except Exception as error:  # noqa: BLE001 (missing file, PIL's several errors)
        raise MalformedData(f"{where}: picture {path} cannot be read ({error})") from None
