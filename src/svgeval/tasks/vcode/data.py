"""VCode's data: the repository's ``data/`` folder (``--data PATH``: that folder or the repo root).

* MM-Vet: ``mm-vet/mm-vet.json`` (``{"v1_0": {"imagename", "question", "answer",
  "capability"}, ...}``, ids in the order of the integer after ``_``) and the pictures under
  ``mm-vet/images/`` (found by name in any sub-folder);
* CV-Bench: ``cv-bench/img/{2D,3D}/<task>/annotations.jsonl`` (``question``, ``choices``,
  ``answer`` ``"(A)"``, ``image_path`` relative to ``cv-bench/img/``, ``source``);
* MMMU: ``mmmu/mmmu_dev_processed_single_img_subset/<Subject>/output.json`` (a list of
  ``{"id", "question", "question_type", "options", "answer", "all_choices", "index2ans",
  "image_paths"}``), the picture ``<id>_img1.png`` beside it.

The data is not on the hub: without ``--data`` the loader stops with one line asking for it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic

from pydantic import ValidationError
from typing_extensions import TypeVar

from svgeval.tasks.base import Target
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import DataUnavailable

MMMU_FOLDER = "mmmu/mmmu_dev_processed_single_img_subset"


class QuestionTarget(Target):
    """What the answering prompt and the grader of a question need."""

    image: str
    """The picture's path (the original shown with ``answer_from=original``; SigLIP's)."""
    question: str
    """The question asked about the render."""
    answer: str
    """The gold answer."""


class MMVetTarget(QuestionTarget):
    """An MM-Vet question."""

    capability: str
    """The released ``capability`` (``rec,ocr``, ...)."""


class CVBenchTarget(QuestionTarget):
    """A CV-Bench question."""

    choices: tuple[str, ...]
    """The options, listed ``(A) ...`` in the prompt."""


class MMMUTarget(QuestionTarget):
    """An MMMU question: the released fields of ``output.json`` (None where it has none)."""

    question_type: str | None
    """``multiple-choice`` or ``open``."""
    options: tuple[str, ...] | None
    """The options' texts (multiple-choice)."""
    all_choices: tuple[str, ...] | None
    """The option letters."""
    index2ans: Mapping[str, str] | None
    """Each letter's option text."""


TargetT = TypeVar("TargetT", bound=QuestionTarget, default=QuestionTarget)


@dataclass(frozen=True)
class Item(Generic[TargetT]):
    """One VCode question: its id, group and picture, and its target."""

    id: str
    group: str
    image: Path
    target: TargetT


def data_root(data: Path | None, marker: str) -> Path:
    """The ``data/`` folder holding ``marker`` (``--data`` may be it or the repository root)."""
    if data is None:
        raise DataUnavailable("VCode's data is not on the hub: pass --data PATH, a checkout of "
                              "CSU-JPG/VCode (or its data/ folder)")
    for root in (data, data / "data"):
        if (root / marker).exists():
            return root
    raise DataUnavailable(f"--data {data}: no {marker} in it or in its data/ folder")


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise MalformedData(f"{path}: {error}") from None


def _field(record: dict[str, Any], key: str, where: str) -> Any:
    if key not in record:
        raise MalformedData(f"{where}: no {key!r} (has {', '.join(sorted(record))})")
    return record[key]


def mmvet_items(data: Path | None) -> list[Item[MMVetTarget]]:
    """MM-Vet's questions in the released order (``run_benchmark...py:26-45``)."""
    root = data_root(data, "mm-vet/mm-vet.json") / "mm-vet"
    records = _json(root / "mm-vet.json")
    pictures = {p.name: p for p in (root / "images").rglob("*") if p.is_file()}
    items = []
    for key in sorted(records, key=lambda k: int(str(k).rsplit("_", 1)[-1])):
        record = records[key]
        name = str(_field(record, "imagename", key))
        image = pictures.get(name, root / "images" / name)
        items.append(Item(id=key, group="mm-vet", image=image, target=MMVetTarget(
            image=str(image), question=str(_field(record, "question", key)),
            answer=str(_field(record, "answer", key)),
            capability=str(record.get("capability", "")))))
    return items


def cvbench_items(data: Path | None) -> list[Item[CVBenchTarget]]:
    """CV-Bench's questions, grouped by ``source`` (ADE20K, COCO, Omni3D)."""
    root = data_root(data, "cv-bench/img") / "cv-bench" / "img"
    items = []
    for path in sorted(root.rglob("annotations.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as error:
                raise MalformedData(f"{path}:{number}: {error}") from None
            where = f"{path}:{number}"
            image = str(_field(record, "image_path", where))
            items.append(Item(
                id=Path(image).with_suffix("").as_posix(),
                group=str(_field(record, "source", where)), image=root / image,
                target=CVBenchTarget(
                    image=str(root / image), question=str(_field(record, "question", where)),
                    answer=str(_field(record, "answer", where)),
                    choices=tuple(str(c) for c in _field(record, "choices", where)))))
    if not items:
        raise DataUnavailable(f"{root}: no annotations.jsonl under it")
    return items


def mmmu_items(data: Path | None) -> list[Item[MMMUTarget]]:
    """MMMU's questions per subject (the local ``output.json`` fields; the release re-reads the
    same text from HF ``MMMU/MMMU`` by id)."""
    root = data_root(data, MMMU_FOLDER) / MMMU_FOLDER
    items = []
    for path in sorted(root.glob("*/output.json")):
        records = _json(path)
        for record in records if isinstance(records, list) else [records]:
            ident = str(_field(record, "id", str(path)))
            image = path.parent / f"{ident}_img1.png"
            try:
                target = MMMUTarget(
                    image=str(image), question=str(_field(record, "question", ident)),
                    answer=str(_field(record, "answer", ident)),
                    **{key: record.get(key) for key in
                       ("question_type", "options", "all_choices", "index2ans")})
            except ValidationError as error:
                problem = error.errors()[0]
                raise MalformedData(f"{path}: {ident}: {'.'.join(map(str, problem['loc']))}: "
                                    f"{problem['msg']}") from None
            items.append(Item(id=ident, group=path.parent.name, image=image, target=target))
    if not items:
        raise DataUnavailable(f"{root}: no <Subject>/output.json under it")
    return items
