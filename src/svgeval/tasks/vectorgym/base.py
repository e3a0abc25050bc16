"""What the four VectorGym tasks share: options, loading rows, the released answer extraction,
and the judge request.

Samples are the rows of one split (``--set split=test|train|validation``, test by default) that
the released ``data/processor.py`` keeps for the task; the group is the split and the sample id
the row's ``svg_id`` (edits: ``<svg_id>/<editing_annotation_index>``; a repeated id gets a
``#n`` suffix). Judge failures are counted and ``judged_share`` reports the share judged.

The answer is read as both released inference paths read it (``extraction_rule`` ``vectorgym``):
the first ``<svg ...>...</svg>`` block (``validators/openrouter.py:325-336``
``_extract_code_blocks``; the vLLM path's ``extract_first_svg_block``, ``validators/vllm.py:18-40``,
takes the first too), else the text from ``<svg`` to its end (for the repair chain), stripped.
``--set extract=last`` takes the last complete block instead (``vectorgym-last``, svgeval's rule
before issue 27, after ``utils/svg.py:extract_svg``, which no released caller uses).
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from svgeval.metrics.presets import variant
from svgeval.svg.extract import Extraction, extraction_rule
from svgeval.tasks.aggregate import Aggregate, mean_per_group
from svgeval.tasks.base import Sample, TargetT, Task
from svgeval.tasks.common import unique_ids
from svgeval.tasks.download import DataUnavailable
from svgeval.tasks.judge import JudgeRequest
from svgeval.tasks.outcome import Outcome
from svgeval.tasks.vectorgym.data import VectorGymRow, load_rows
from svgeval.tasks.vectorgym.prompts import judge_message, parse_released, parse_score_line

JUDGE_TEMPERATURE = 0.0
"""``compute_vlm_judge.py``: temperature 0.0 (and max_tokens 500, which svgeval leaves to the
judge's own limit)."""

PRESET = variant(
    "vectorgym",
    description="VectorGym Sec. 3.5: CLIP ViT-B/32, DINOv2-base, LPIPS, MSE; ROUGE-L F1 "
    "and BGE-M3 cosine on a 0-100 scale for captions",
    metrics=("bge_m3", "caption_rubric", "clip_fid", "clip_score", "dino", "fid", "judged_share",
             "lpips", "mse", "rouge_l", "ssim", "vlm_judge"),
    clip_model="openai/clip-vit-base-patch32",
    lpips_input="standard",
)
_SVG_BLOCK = re.compile(r"<svg\b[^>]*>.*?</svg>", re.DOTALL | re.IGNORECASE)
_RELEASED_BLOCK = re.compile(r"<svg[^>]*>.*?</svg>", re.DOTALL | re.IGNORECASE)


@extraction_rule("vectorgym")
def extract_first_svg(response: str) -> Extraction:
    """The released ``_extract_code_blocks``: the first ``<svg[^>]*>.*?</svg>`` match, else the
    text from the first ``<svg`` on, stripped; a response without ``<svg`` fails (the released
    chain would score it as its empty placeholder)."""
    match = _RELEASED_BLOCK.search(response)
    if match:
        return Extraction(match.group(0).strip(), "vectorgym")
    start = response.lower().find("<svg")
    if start < 0:
        return Extraction(None, "vectorgym", "no <svg in the response")
    return Extraction(response[start:].strip(), "vectorgym")


@extraction_rule("vectorgym-last")
def extract_last_svg(response: str) -> Extraction:
    """The last complete ``<svg>`` block (``utils/svg.py:extract_svg``), or a failed
    extraction."""
    matches = list(_SVG_BLOCK.finditer(response))
    if not matches:
        return Extraction(None, "vectorgym-last", "no <svg ...>...</svg> block in the response")
    return Extraction(matches[-1].group(0), "vectorgym-last")


@dataclass(frozen=True)
class VectorGymOptions:
    """``--set`` options every VectorGym task accepts."""

    split: Literal["test", "train", "validation"] = field(
        default="test", metadata={"help": "dataset split"})
    prompt: Literal["openrouter", "vllm"] = field(
        default="openrouter", metadata={"help": "openrouter: the released system prompt first; "
                                        "vllm: the bare prompt, as the released vLLM path"})
    judge_format: Literal["sent", "released"] = field(
        default="sent", metadata={"help": "sent: append the judge prompt's output_format; "
                                  "released: leave it out, as the released code"})
    judge_parser: Literal["strict", "released"] = field(
        default="strict", metadata={"help": "strict: one 'score: N' line or a judge failure; "
                                    "released: the released fallbacks down to any number 1-10"})


class VectorGymTask(Task[TargetT]):
    """Base of the four VectorGym tasks."""

    suite = "VectorGym"
    suite_source = "ServiceNow/VectorGym (HF) + released code"
    preset = PRESET.name
    Options = VectorGymOptions
    kind: str
    """``sketch``, ``edit``, ``text`` or ``caption``: picks prompts."""

    def load(self) -> list[Sample[TargetT]]:
        rows = [row for row in load_rows(self.common.data, self.options.split) if self.keep(row)]
        if not rows:
            raise DataUnavailable(
                f"no row of split {self.options.split!r} has what {self.name} needs")
        ids = unique_ids([self.row_id(row) for row in rows])
        return [self.make_sample(sample_id, row) for sample_id, row in zip(ids, rows)]

    def row_id(self, row: VectorGymRow) -> str:
        return row.svg_id

    @abstractmethod
    def keep(self, row: VectorGymRow) -> bool:
        """The released filter of this task."""

    @abstractmethod
    def make_sample(self, sample_id: str, row: VectorGymRow) -> Sample[TargetT]:
        """The sample of one kept row."""

    def judge_request(self, caption: str, images: list[bytes]) -> JudgeRequest:
        """The released judge question (1-10) about ``images``, read with the chosen parser."""
        released = self.options.judge_parser == "released"
        return JudgeRequest(
            metric="judge",
            messages=judge_message(self.kind, caption, images,
                                   self.options.judge_format == "sent"),
            parse=parse_released if released else parse_score_line,
            temperature=JUDGE_TEMPERATURE,
        )

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        """Per split, the mean of each metric; with a judge, its failures are counted
        (``counts.<split>.judge_failures``) and ``judged_share`` is the percentage of the
        answers sent to the judge that it gave a score (the released code silently drops the
        rest)."""
        ran = not any("judge" in outcome.not_computed for outcome in outcomes)
        rows = [with_judged_share(outcome) if ran else outcome for outcome in outcomes]
        return mean_per_group(rows, judged=("judge",) if ran else ())


def with_judged_share(outcome: Outcome) -> Outcome:
    """The outcome with ``judged_share``: 0 when the judge gave no score, 100 when it did, and
    absent for an answer never sent to the judge (a failed one)."""
    metrics = dict(outcome.metrics)
    if "judge" in outcome.judge_failures:
        metrics["judged_share"] = 0.0
    elif outcome.failure is None and metrics.get("judge") is not None:
        metrics["judged_share"] = 100.0
    return outcome.model_copy(update={"metrics": metrics})
