"""SVGenius understanding: multiple-choice questions about an icon, answered from its SVG code.

Each released item (an icon with a caption) holds three questions. ``question1`` asks about
what the icon looks like (shapes, colours, counts: the paper's *perceptual* QA) and
``question2`` about what it means or where it is used (*semantic* QA). ``question3`` asks why
the designer made a choice; the paper's generation prompt does not produce it and its Table 8
counts one perceptual and one semantic question per icon (e.g. 93 per type on easy), so it is
left out unless ``--set questions=all`` adds it as ``design``.

Metrics per tier (percent, higher is better): ``perceptual_acc``, ``semantic_acc`` (and
``design_acc``), ``acc`` over all asked questions, and ``n_unparsed``, the number of answers
with no recognisable option letter, which count as wrong (as in the released scorer).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import BaseModel

from svgeval.render.isolated import Renderer
from svgeval.tasks import register_task
from svgeval.tasks.aggregate import Aggregate, mean_per_group
from svgeval.tasks.base import Sample, Target
from svgeval.tasks.outcome import Failure, FailureKind, Outcome
from svgeval.tasks.svgenius import prompts
from svgeval.tasks.svgenius.data import (
    TIERS,
    SvgeniusOptions,
    SvgeniusTask,
    TaskFile,
    load_task_files,
    tier_table,
)

QUESTION_CATEGORIES = {"question1": "perceptual", "question2": "semantic", "question3": "design"}
PAPER_QUESTIONS = ("question1", "question2")

_LETTER = r"[(\[*_`'\"\s]*([A-D])(?![A-Za-z0-9])"
_LABELLED = re.compile(r"(?i:answer)[*_\s]*[:：]\s*" + _LETTER)
_FALLBACKS = (
    re.compile(r"^[(\[*_`'\"\s]*([A-D])[)\].*_`'\"\s]*$"),
    re.compile(r"(?i:(?:the\s+)?(?:correct\s+)?answer\s+is)\s*[:：]?" + _LETTER),
    re.compile(r"\\boxed\{\s*([A-D])\s*\}"),
    re.compile(
        r"(?i:\b(?:i\s+)?(?:choose|select|pick|opt\s+for)(?:\s+option)?)\s*[:：]?" + _LETTER
    ),
    re.compile(r"(?i:option)\s*([A-D])\s+(?i:is\s+(?:the\s+)?(?:correct|right|answer))"),
)


def parse_choice(response: str) -> str | None:
    """The option letter a response chooses, or None.

    Tried in order: ``Answer: X`` on the last non-empty line (markdown such as ``**Answer:**
    (B)`` allowed); the last ``Answer: X`` anywhere; then, from the last line up, a line that is
    only a letter, "the answer is X", ``\\boxed{X}``, "I choose X", "option X is correct".
    """
    lines = [line.strip() for line in response.splitlines() if line.strip()]
    if not lines:
        return None
    last = _LABELLED.search(lines[-1])
    if last:
        return last.group(1)
    anywhere = _LABELLED.findall(response)
    if anywhere:
        return str(anywhere[-1])
    for line in reversed(lines):
        for pattern in _FALLBACKS:
            found = pattern.search(line)
            if found:
                return found.group(1)
    return None


class Question(BaseModel):
    """One multiple-choice question of a released understanding record."""

    question: str
    option: dict[str, str]
    answer: str


class QuestionTarget(Target):
    """The correct option of a question and the question's type."""

    answer: str
    """The correct option letter."""
    category: str
    """The question type (``semantic``, ``geometric``, ...)."""


class UnderstandingItem(BaseModel):
    """A released understanding record (the fields svgeval reads)."""

    index: int | str
    image_path: str
    questions: dict[str, Question]


@dataclass(frozen=True)
class UnderstandingOptions(SvgeniusOptions):
    """``--set`` options of ``svgenius-understanding``."""

    questions: Literal["paper", "all"] = field(
        default="paper",
        metadata={
            "help": "paper: question1 (perceptual) and question2 (semantic), as Table 8 counts; "
            "all: also question3 as design"
        },
    )


@register_task
class SvgeniusUnderstanding(SvgeniusTask):
    """Perceptual and semantic multiple-choice QA over SVG code (SVGenius, appendix F)."""

    name = "svgenius-understanding"
    description = "SVGenius understanding: multiple-choice QA about an icon from its SVG code"
    paper_table = tier_table(("perceptual_acc", "PQA"), ("semantic_acc", "SQA"))
    metrics: ClassVar[Mapping[str, str]] = {
        "acc": "accuracy",
        "perceptual_acc": "accuracy",
        "semantic_acc": "accuracy",
        "design_acc": "accuracy",
        "n_unparsed": "sample_count",
    }
    Options = UnderstandingOptions
    tiers = TIERS

    def load(self) -> list[Sample]:
        questions = PAPER_QUESTIONS if self.options.questions == "paper" else QUESTION_CATEGORIES
        samples: list[Sample] = []
        files = load_task_files(
            self.common, self.options.file, "understanding", UnderstandingItem
        )
        for task_file in files:
            for item in task_file.items:
                svg = _icon_path(task_file, item.image_path).read_text(encoding="utf-8")
                for key in questions:
                    if key in item.questions:
                        samples.append(_sample(task_file.group, item, key, svg))
        return samples

    def score(self, sample: Sample[QuestionTarget], response: str, renderer: Renderer) -> Outcome:
        category = sample.target.category
        choice = parse_choice(response)
        if choice is None:
            return Outcome.of(sample, 
                metrics={f"{category}_acc": 0.0, "acc": 0.0, "n_unparsed": 1.0},
                extraction_rule="option_letter",
                failure=Failure(
                    kind=FailureKind.EXTRACT,
                    detail="no option letter found; counted as a wrong answer",
                ),
            )
        correct = 100.0 if choice == sample.target.answer else 0.0
        return Outcome.of(sample, 
            metrics={f"{category}_acc": correct, "acc": correct, "n_unparsed": 0.0},
            extracted=choice,
            extraction_rule="option_letter",
        )

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        """Accuracy per question type and tier; ``n_unparsed`` is a count (a failed model call
        is scored as an empty, unparseable answer)."""
        return mean_per_group(outcomes, summed=("n_unparsed",))


def _icon_path(task_file: TaskFile[UnderstandingItem], image_path: str) -> Path:
    """The SVG of an item: released items live in ``src/data/<tier>/process`` (their relative
    ``image_path`` names a PNG, sometimes under an old folder name such as ``moderate``);
    custom items are relative to their task file."""
    svg_name = image_path.replace(".png", ".svg")
    if task_file.icons is not None:
        return task_file.icons / Path(svg_name).name
    return task_file.path.parent / svg_name


def _sample(group: str, item: UnderstandingItem, key: str, svg: str) -> Sample:
    question = item.questions[key]
    category = QUESTION_CATEGORIES[key]
    prompt = prompts.UNDERSTANDING.format(
        svg_image=svg,
        question=question.question,
        options_str=prompts.options_text(question.option),
    )
    return Sample(
        id=f"{group}/{item.index}/{category}",
        group=group,
        messages=prompts.user_message(prompt),
        reference=f"Answer: {question.answer}",
        input_svg=None,
        target=QuestionTarget(answer=question.answer, category=category),
        expected=question.answer,
    )
