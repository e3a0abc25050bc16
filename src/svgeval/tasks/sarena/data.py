"""SArena files: the unzipped ``SArena.zip`` of the Hugging Face dataset ``InternSVG/SArena``.

The hub stores the benchmark as one archive, ``SArena.zip`` (InternSVG README, "SArena
Benchmark"); unzipped it holds::

    Icon/generation/{text2svg,img2svg,caption}.jsonl, images/<id>.png, svg/<id>.svg
    Icon/edit/<type>.jsonl (or Icon/edit/data/<type>.jsonl), data/<type>/{images,svg}/<id>.*
    Icon/understanding/sarena_un.jsonl
    illustration/{text2svg,img2svg,caption}.jsonl, images/, svg/
    chemistry/{text2svg,img2svg}.jsonl, images/, svg/

Each task line is a LLaMA-Factory ShareGPT record: ``id``, ``conversations`` (the prompt, then
the answer: an SVG, or an option such as ``B.`` for understanding), ``image`` (image-to-SVG:
the input picture, relative to the jsonl file) and ``Subject`` (understanding). The ground
truth of sample ``id`` is ``images/<id>.png`` and ``svg/<id>.svg`` beside the jsonl
(``evaluate_gen.py``, ``evaluate_edit.py``); ``caption.jsonl`` maps ``<id>.png`` to
``caption[0].generated_text`` (the text of CLIP-T2I).

``--data PATH`` takes the unzipped folder (or a folder holding ``SArena/``). Without it the
archive (``--set subset=full``; VLMEvalKit's ``SArena_MINI`` with ``mini``, its full ``SArena``
with ``vlmevalkit``) is fetched with ``huggingface_hub`` (cached there) and unzipped once into
svgeval's cache; a failure is :class:`DataUnavailable` asking for ``--data``.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from svgeval.tasks.data_files import MalformedData, read_jsonl_items
from svgeval.tasks.download import DataUnavailable, cache_dir, hub_download

HUB_ARCHIVES = {
    "full": ("InternSVG/SArena", "SArena.zip"),
    "mini": ("JoeLeelyf/SArena-VLMEvalKit", "SArena_MINI.zip"),
    "vlmevalkit": ("JoeLeelyf/SArena-VLMEvalKit", "SArena.zip"),
}
"""The hub archive of each subset: InternSVG's release, VLMEvalKit's ``SArena_MINI`` (no
animation) and VLMEvalKit's full ``SArena`` (with ``animation/``), as ``SARENA_CONFIGS`` of
``vlmeval/dataset/utils/sarena.py`` (VLMEvalKit ``e8e78f05``) names them: the same layout
(``TASK_CONFIGS_FULL``/``_MINI``)."""
TRACK_DIRS = {"icon": "Icon/generation", "illustration": "illustration", "chemistry": "chemistry"}
"""Each track's folder of text-to-SVG and image-to-SVG files (VLMEvalKit ``TASK_CONFIGS``)."""
EDIT_TYPES = (
    "color_complex", "color_simple", "crop", "flip", "opacity", "outline", "rotate", "scale",
    "styletransform_openmoji", "translate",
)
"""The ten editing types of ``evaluate_edit.py``'s ``TASK_DICT``."""
UNDERSTANDING_FILE = "Icon/understanding/sarena_un.jsonl"


class Turn(BaseModel):
    """One turn of a ShareGPT conversation."""

    model_config = ConfigDict(populate_by_name=True)
    speaker: str = Field(default="", alias="from")
    value: str


class SArenaRow(BaseModel):
    """A task line (the fields svgeval reads)."""

    model_config = ConfigDict(populate_by_name=True)
    id: int | str
    conversations: list[Turn] = Field(min_length=2)
    image: str | None = None
    subject: str | None = Field(default=None, alias="Subject")

    @property
    def prompt(self) -> str:
        return self.conversations[0].value

    @property
    def answer(self) -> str:
        return self.conversations[1].value


class GeneratedText(BaseModel):
    generated_text: str


class CaptionLine(BaseModel):
    """A ``caption.jsonl`` line: the ground-truth image name and its generated captions."""

    image: str
    caption: list[GeneratedText] = Field(min_length=1)


def root(data: Path | None, subset: str = "full") -> Path:
    """The SArena folder: ``data`` (or its ``SArena/`` child), else the hub copy of
    ``subset``."""
    if data is None:
        return _hub_root(*HUB_ARCHIVES[subset])
    folder = Path(data).expanduser()
    if (folder / "SArena").is_dir():
        folder = folder / "SArena"
    if not folder.is_dir():
        raise DataUnavailable(f"--data {data}: no such folder; pass the unzipped SArena folder")
    return folder


def _hub_root(repo: str, name: str) -> Path:
    archive = hub_download(repo, name, advice="download and unzip it, then pass the folder "
                                              "with --data PATH")
    target = cache_dir() / repo.replace("/", "+") / archive.parent.name / name
    if not any((target / top).is_dir() for top in ("SArena", "Icon")):
        with zipfile.ZipFile(archive) as opened:
            opened.extractall(target)
    return root(target)


def task_file(folder: Path, relative: str) -> Path:
    """``folder/relative``, which must exist (:class:`DataUnavailable` naming it otherwise)."""
    path = folder / relative
    if not path.is_file():
        raise DataUnavailable(f"{folder} has no {relative}; pass the unzipped SArena folder")
    return path


def _edit_candidates(folder: Path, edit_type: str) -> list[Path]:
    return [folder / f"Icon/edit/{edit_type}.jsonl", folder / f"Icon/edit/data/{edit_type}.jsonl"]


def has_edit_file(folder: Path, edit_type: str) -> bool:
    return any(path.is_file() for path in _edit_candidates(folder, edit_type))


def edit_file(folder: Path, edit_type: str) -> Path:
    """The jsonl of one editing type: ``Icon/edit/<type>.jsonl`` (VLMEvalKit) or
    ``Icon/edit/data/<type>.jsonl`` (the README's tree)."""
    for path in _edit_candidates(folder, edit_type):
        if path.is_file():
            return path
    return task_file(folder, f"Icon/edit/{edit_type}.jsonl")


def read_rows(path: Path) -> list[SArenaRow]:
    """The validated lines of a task file; :class:`MalformedData` when it has none."""
    rows = read_jsonl_items(path, SArenaRow)
    if not rows:
        raise MalformedData(f"{path} has no task lines")
    return rows


def read_captions(path: Path) -> dict[str, str]:
    """``caption.jsonl`` as ``{image name: first generated caption, stripped}``; empty when the
    track has none (chemistry)."""
    if not path.is_file():
        return {}
    return {line.image: line.caption[0].generated_text.strip()
            for line in read_jsonl_items(path, CaptionLine)}
