"""What every SArena task shares: the suite's labels, the two readings, answer extraction and
the pooled ``all`` group.

Two readings (``--set reading=...``), differing only in how an answer is read:

* ``internsvg`` (default): InternSVG's released scripts. An SVG is the first
  ``<svg[^>]*>.*?</svg>`` match of the response (``metrics/inference/inference.py``); an
  option is the first character of the (stripped) answer (``evaluate_un.py``
  ``extract_choice``).
* ``vlmevalkit``: VLMEvalKit's ``vlmeval/dataset/utils/sarena.py``. An SVG is the last
  ```` ```svg ```` block, else the text from the first ``<svg`` to the last ``</svg>``, else from
  ``<?xml`` to the last ``</svg>`` (``extract_svg_code``); an option is the first ``A``-``D`` in
  the answer (``evaluate_understanding``).
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from svgeval.metrics.presets import variant
from svgeval.svg.extract import Extraction
from svgeval.tasks.aggregate import Aggregate, with_pooled_group
from svgeval.tasks.base import TargetT, Task
from svgeval.tasks.outcome import Outcome
from svgeval.tasks.sarena import vlmevalkit

Reading = Literal["internsvg", "vlmevalkit"]
PRESET = variant(
    "internsvg",
    description="InternSVG released code (metrics/, SArena): renders 448 px on white, "
    "CLIP ViT-L/14 100 cos per sample, unclamped, captions cut at 77 token ids (torchmetrics "
    "_clip_score_update), DINOv2-base, LPIPS-VGG on ImageNet-normalised 448 px inputs (no "
    "resize), uniform 11 px SSIM, PSNR capped at 100, FID with pytorch-fid's Inception in train "
    "mode (batch statistics, batches of 50), FID-C with CLIP ViT-B/32; the animation track's "
    "FVD (I3D), ViCLIP T2V and V2V, and frame-pair DINO, SSIM, LPIPS, PSNR",
    metrics=("accuracy", "clip_fid", "clip_i2i", "clip_score", "dino", "fid", "lpips", "psnr",
             "ssim", "token_count", "fvd", "video_dino", "video_lpips", "video_psnr", "video_ssim",
             "viclip_t2v", "viclip_v2v"),
    render_size=448,
    clip_clamp_zero=False,
    clip_truncation="cut",
    fid_batchnorm="train",
    lpips_size=None,
)
OVERALL = "all"
"""The group that pools every sample (InternSVG's overall accuracy and editing summary)."""

_INTERNSVG_SVG = re.compile(r"<svg[^>]*>.*?</svg>", re.DOTALL)
_FENCED_SVG = re.compile(r"```svg(.*?)```", re.DOTALL)
_CHOICE = re.compile(r"[A-D]")


@dataclass(frozen=True)
class SArenaOptions:
    """``--set`` options of every SArena task."""

    reading: Reading = field(default="internsvg", metadata={
        "help": "answer extraction: internsvg (the released scripts) or vlmevalkit"})
    subset: Literal["full", "mini", "vlmevalkit"] = field(default="full", metadata={
        "help": "without --data: InternSVG/SArena (full), VLMEvalKit's SArena_MINI (mini) or "
                "VLMEvalKit's full SArena with animation (vlmevalkit)"})


class SArenaTask(Task[TargetT]):
    """Base of the SArena tasks."""

    suite: ClassVar[str] = "SArena"
    suite_source: ClassVar[str] = (
        "InternSVG/SArena (HF) + InternSVG eval code (hmwang2002/InternSVG); VLMEvalKit SArena")
    preset: ClassVar[str] = PRESET.name
    Options: ClassVar[type[Any]] = SArenaOptions
    vlmevalkit_dataset: ClassVar[str] = "SArena"

    @abstractmethod
    def vlmevalkit_files(self) -> Mapping[str, tuple[str, str]]:
        """VLMEvalKit's (level-1, level-2) names of the task's files, by the prefix of their
        samples' ids (see :mod:`svgeval.tasks.sarena.vlmevalkit`)."""

    def vlmevalkit_sample_id(self, row: Mapping[str, str]) -> str | None:
        """The line a VLMEvalKit prediction row answers, by VLMEvalKit's own rule."""
        return vlmevalkit.sample_id(row, self.vlmevalkit_files())

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        """Per group means, plus the ``all`` group pooling every sample."""
        return with_overall(outcomes)


def with_overall(outcomes: Sequence[Outcome]) -> Aggregate:
    """:func:`mean_per_group` of ``outcomes`` and of the same outcomes pooled as ``all``: the
    sample-weighted mean InternSVG's ``AverageMeter`` reports across groups."""
    return with_pooled_group(outcomes, OVERALL)


def extract_svg(response: str, reading: Reading) -> Extraction:
    """The answer's SVG code under ``reading`` (see the module docstring)."""
    if reading == "internsvg":
        match = _INTERNSVG_SVG.search(response)
        if match is None:
            return Extraction(None, "internsvg", "no <svg ...>...</svg> in the response")
        return Extraction(match.group(0), "internsvg")
    fenced = _FENCED_SVG.findall(response)
    if fenced:
        return Extraction(fenced[-1].strip(), "vlmevalkit")
    end = response.rfind("</svg>")
    for opening in ("<svg", "<?xml"):
        start = response.find(opening)
        if start != -1 and end != -1:
            return Extraction(response[start : end + len("</svg>")], "vlmevalkit")
    # VLMEvalKit keeps the bare text, which then fails to render: the same black canvas
    return Extraction(None, "vlmevalkit", "no ```svg block and no <svg ...</svg> in the response")


def extract_choice(response: str, reading: Reading) -> str | None:
    """The option letter the answer picks under ``reading``; None when there is none."""
    text = response.strip()
    if reading == "internsvg":
        return text[0] if text else None
    match = _CHOICE.search(text)
    return match.group(0) if match else None
