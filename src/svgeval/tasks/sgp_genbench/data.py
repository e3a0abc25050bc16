"""The SGP-GenBench and SGP-CompBench releases: SGP-Object, the COCO captions, the CompBench
prompts and the TIFA questions.

* SGP-Object (HF ``SphereLab/SGP-Object``, file ``SGP-Object.json``; the loader of the release
  reads ``test.json``): a JSON list of records; ``description`` (the prompt) and
  ``svg_content`` (the reference SVG) are read, a record with either blank is skipped
  (``dataset/haoquan_svg_new/dataset.py:124-150``); file order.
* COCO scene: ``coco_test_data.json`` of the SGP-RL repository (1,024 records ``image_id``,
  ``caption``, ...) beside COCO's ``val2017/`` (the photo ``<image_id:012d>.jpg``); not on the
  hub, so ``--data FOLDER`` holding both.
* SGP-CompBench: ``sgp-compbench/prompts/sgp-compbench-prompts.json`` of the repository (3,200
  records ``id``, ``prompt``, ``major_type``, ``minor_type``, ``metadata``): ``--data`` the
  file or a folder holding it.
* TIFA questions (``eval_tools/build_vqa/vqa_data/coco_qa.json``): caption -> ``{"questions":
  [{"question", "choices", "answer", "about", ...}]}``, matched to a sample by caption text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from svgeval.tasks.base import Target
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import DataUnavailable, hub_download

OBJECT_HUB_ID = "SphereLab/SGP-Object"
OBJECT_FILES = ("SGP-Object.json", "test.json")
SCENE_FILE = "coco_test_data.json"
SCENE_QUESTIONS = "coco_qa.json"
COMPBENCH_FILE = "sgp-compbench-prompts.json"
MAJOR_TYPES = ("binding", "relation", "numeracy")


class Question(Target):
    """One TIFA question about a prompt: the choices and the right one."""

    question: str
    choices: tuple[str, ...]
    answer: str
    about: str = ""


class GenTarget(Target):
    """What an SGP-GenBench answer is scored against."""

    prompt: str
    """The description (SGP-Object) or caption (COCO)."""
    reference_svg: str = ""
    """SGP-Object's reference SVG (rendered for DINO)."""
    reference_image: str = ""
    """COCO's photo (a path)."""
    questions: tuple[Question, ...] = ()
    """TIFA questions of the prompt (none: no VQA score)."""


class CountedNoun(Target):
    noun: str
    count: int


class CompTarget(Target):
    """What an SGP-CompBench answer is judged against."""

    prompt: str
    major_type: str
    minor_type: str
    total_count: int = 0
    object_counts: tuple[CountedNoun, ...] = ()


def read_json(path: Path) -> Any:
    """The JSON value of ``path``; :class:`MalformedData` naming it when it is not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise MalformedData(f"{path}: not a readable JSON file ({error})") from None


def _records(path: Path, what: str) -> list[dict[str, Any]]:
    value = read_json(path)
    if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
        raise MalformedData(f"{path}: expected a JSON list of {what} records")
    return value


def _file_in(data: Path, names: tuple[str, ...]) -> Path:
    if data.is_file():
        return data
    for name in names:
        found = sorted(data.rglob(name)) if data.is_dir() else []
        if found:
            return found[0]
    raise DataUnavailable(f"--data {data}: no {' or '.join(names)} in it")


def object_file(data: Path | None) -> Path:
    """``--data`` (the file or a folder holding it), else the cached hub file."""
    if data is not None:
        return _file_in(data, OBJECT_FILES)
    return hub_download(OBJECT_HUB_ID, OBJECT_FILES[0])


def object_targets(data: Path | None) -> list[tuple[str, GenTarget]]:
    """(id, target) of each kept SGP-Object record; the id is its index in the file."""
    path = object_file(data)
    kept = []
    for index, record in enumerate(_records(path, "SGP-Object")):
        description, svg = record.get("description"), record.get("svg_content")
        if isinstance(description, str) and isinstance(svg, str) and description.strip() \
                and svg.strip():
            kept.append((f"{index:04d}", GenTarget(prompt=description, reference_svg=svg)))
    if not kept:
        raise MalformedData(f"{path}: no record with a description and an svg_content")
    return kept


def questions_by_caption(path: Path | None) -> dict[str, tuple[Question, ...]]:
    """The TIFA questions of each caption (empty without a file)."""
    if path is None:
        return {}
    value = read_json(path)
    if not isinstance(value, dict):
        raise MalformedData(f"{path}: expected an object caption -> {{questions: [...]}}")
    found = {}
    for caption, entry in value.items():
        try:
            found[caption] = tuple(Question(
                question=q["question"], choices=tuple(q["choices"]), answer=q["answer"],
                about=q.get("about", "")) for q in entry["questions"])
        except (KeyError, TypeError, ValueError) as error:
            raise MalformedData(f"{path}: caption {caption!r} has a malformed question "
                                f"({error})") from None
    return found


def scene_targets(data: Path | None, questions: Path | None) -> list[tuple[str, GenTarget]]:
    """(id, target) of each COCO caption record (id: its index in the file), the photo from
    ``val2017/`` beside the file, the TIFA questions of ``questions`` or of ``coco_qa.json``
    found under ``--data``."""
    if data is None:
        raise DataUnavailable(f"the COCO scene split is not on the hub: pass --data FOLDER with "
                              f"{SCENE_FILE} (SGP-RL dataset/coco_image/) and COCO's val2017/")
    path = _file_in(data, (SCENE_FILE,))
    folder = data if data.is_dir() else path.parent
    if questions is None:
        found = sorted(folder.rglob(SCENE_QUESTIONS))
        questions = found[0] if found else None
    asked = questions_by_caption(questions)
    targets = []
    for index, record in enumerate(_records(path, "COCO caption")):
        try:
            caption, image_id = str(record["caption"]), int(record["image_id"])
        except (KeyError, TypeError, ValueError):
            raise MalformedData(f"{path}: record {index} needs caption and image_id; it has "
                                f"{', '.join(sorted(record))}") from None
        photo = next(folder.rglob(f"{image_id:012d}.jpg"), None)
        if photo is None:
            raise DataUnavailable(f"{path}: no photo {image_id:012d}.jpg under {folder}")
        targets.append((f"{index:04d}", GenTarget(prompt=caption, reference_image=str(photo),
                                                   questions=asked.get(caption, ()))))
    return targets


def compbench_targets(data: Path | None) -> list[tuple[str, CompTarget]]:
    """(id, target) of each CompBench prompt, in file order."""
    if data is None:
        raise DataUnavailable(f"SGP-CompBench is not on the hub: pass --data with {COMPBENCH_FILE} "
                              f"(Sphere-AI-Lab/SGP-RL sgp-compbench/prompts/) or its folder")
    path = _file_in(data, (COMPBENCH_FILE,))
    targets = []
    for index, record in enumerate(_records(path, "CompBench")):
        try:
            major, metadata = str(record["major_type"]), record.get("metadata") or {}
            counts = tuple(CountedNoun(noun=str(c["noun"]), count=int(c["count"]))
                           for c in metadata.get("object_counts", ()))
            target = CompTarget(prompt=str(record["prompt"]), major_type=major,
                                minor_type=str(record["minor_type"]),
                                total_count=int(metadata.get("total_count", 0)),
                                object_counts=counts)
            sample_id = str(record.get("id", index))
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise MalformedData(f"{path}: record {index} is malformed ({error})") from None
        if major not in MAJOR_TYPES:
            raise MalformedData(f"{path}: record {index} has major_type {major!r}; expected "
                                f"one of {', '.join(MAJOR_TYPES)}")
        targets.append((sample_id, target))
    return targets
