"""SArena Icon editing: ten kinds of instructed edits of an icon's SVG.

Each ``Icon/edit/<type>.jsonl`` line asks for one edit of the SVG in its prompt; the released
scripts (``metrics/inference/inference_edit.py``, VLMEvalKit ``SArena.build_prompt``) send the
prompt turn followed by ``\\nOnly output the svg code, no other text.``. The ground truth is
``Icon/edit/data/<type>/images/<id>.png`` (and ``svg/<id>.svg``). Scored as image-to-SVG
(:mod:`svgeval.tasks.sarena.image_tasks`): DINO, LPIPS, SSIM, PSNR and token counts per type;
the ``all`` group pools every sample, which is ``evaluate_edit.py``'s summary (its meters
weight each type's mean by its sample count). ``--set edit=<type>`` keeps one type; ``all``
runs every type the folder has.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from svgeval.messages import user_message
from svgeval.tasks import register_task
from svgeval.tasks.sarena import data
from svgeval.tasks.sarena.image_tasks import PIXEL_METRICS, ImageOptions, SArenaImageTask

SUFFIX = "\nOnly output the svg code, no other text."
_SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class EditOptions(ImageOptions):
    """``--set`` options of the editing task."""

    edit: Literal[
        "all", "color_complex", "color_simple", "crop", "flip", "opacity", "outline", "rotate",
        "scale", "styletransform_openmoji", "translate",
    ] = field(default="all", metadata={"help": "editing type to run (all: the ten types)"})


@register_task
class SArenaIconEdit(SArenaImageTask):
    """Edit an icon's SVG as instructed."""

    name = "sarena-icon-edit"
    description = "SArena Icon editing (10 types): DINO, LPIPS, SSIM, PSNR, tokens per type"
    kind = "edit"
    Options: ClassVar[type[Any]] = EditOptions
    metrics: ClassVar[Mapping[str, str]] = PIXEL_METRICS
    batched_metrics = ("dino", "lpips", "lpips_standard")

    def task_files(self, folder: Path) -> list[tuple[str, Path, Path]]:
        if self.settings.edit != "all":
            chosen: tuple[str, ...] = (self.settings.edit,)
        else:  # the types the folder has (SArena and SArena_MINI have all ten)
            chosen = tuple(kind for kind in data.EDIT_TYPES if data.has_edit_file(folder, kind))
            if not chosen:
                chosen = data.EDIT_TYPES[:1]  # names the missing file
        return [(kind, data.edit_file(folder, kind), folder / "Icon/edit/data" / kind)
                for kind in chosen]

    def messages(self, path: Path, row: data.SArenaRow) -> list[dict[str, Any]]:
        return user_message(row.prompt + SUFFIX)

    def input_svg(self, row: data.SArenaRow) -> str | None:
        """The SVG to edit, as written in the prompt (what the ``identity`` model answers)."""
        match = _SVG.search(row.prompt)
        return match.group(0) if match else None
