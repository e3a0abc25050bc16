"""VGBench VGQA, SVG part: multiple-choice questions answered from the SVG code alone.

Protocol of ``evaluate.py`` (vgbench/VGBench at d4e4601):

* **Prompts** (``check_question``, ``{vformat}`` = ``svg``, options joined with ``", "``):
  ``--set prompt=zero-shot`` (the paper's main setting): :data:`SYSTEM` and the user message
  :data:`ZERO_SHOT`; ``few-shot``: :data:`SYSTEM` plus :data:`FEW_SHOT_SUFFIX`, then for each of
  the file's first three records the user messages ``This is an example, the code is: ...`` and
  ``Given this image, answer ... Options are <the options as a Python list>`` and the answer as
  the assistant's turn, then ``The code is: ...`` and the question. Zero-shot-CoT (five model
  calls per question) is not reproduced. The first three records of each file are the few-shot
  examples and are tested in neither setting (``dataset[3:]``).
* **Score** (``main``): the reply's **first character** must be the answer letter
  (``--set extract=first-char``); ``letter`` (ours) takes the first standalone A-D of the
  stripped reply. ``accuracy`` leaves out an empty reply (the release skips replies that are
  None, and an empty one raises IndexError); ``accuracy_all`` (ours) counts it wrong.

Groups are the question types (the file's ``final_dataset_<type>``) and ``all`` pools them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from svgeval.messages import Message
from svgeval.render.isolated import Renderer
from svgeval.tasks import register_task
from svgeval.tasks.aggregate import Aggregate, with_pooled_group
from svgeval.tasks.base import Sample, Target, Task
from svgeval.tasks.outcome import Failure, FailureKind, Outcome
from svgeval.tasks.vgbench.data import Question, load_questions
from svgeval.tasks.vgbench.vgen import PRESET, SUITE, SUITE_SOURCE

SYSTEM = ("I will present a svg code. Please answer my questions only based on code. Answer and "
          "only answer the letter corresponding to the correct option. Do not add any additional "
          "comment in your response")
FEW_SHOT_SUFFIX = ". For your reference, I will give you some example"
ZERO_SHOT = "\"{code}\". Given this image, answer {question}. Options are {options}"
QUESTION = "Given this image, answer {question}. Options are {options}"
FEW_SHOT_EXAMPLES = 3
_LETTER = re.compile(r"(?<![A-Za-z])[A-D](?![A-Za-z])")


@dataclass(frozen=True)
class VGQAOptions:
    """``--set`` options of ``vgbench-vgqa``."""

    prompt: Literal["zero-shot", "few-shot"] = field(default="zero-shot", metadata={
        "help": "zero-shot (the paper's main setting) or few-shot (the first 3 records)"})
    extract: Literal["first-char", "letter"] = field(default="first-char", metadata={
        "help": "first-char: the reply's first character (released); letter: the first "
                "standalone A-D of the stripped reply (ours)"})


def read_choice(response: str, reading: str) -> str | None:
    """The chosen letter under ``reading`` (None when there is none)."""
    if reading == "first-char":
        return response[0] if response else None
    found = _LETTER.search(response.strip())
    return found.group(0) if found else None


def messages_for(question: Question, examples: Sequence[Question], prompt: str) -> list[Message]:
    """The released messages of ``question`` in the ``prompt`` setting."""
    options = ", ".join(question.options)
    if prompt == "zero-shot":
        return [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": ZERO_SHOT.format(
                    code=question.code, question=question.question, options=options)}]
    messages: list[Message] = [{"role": "system", "content": SYSTEM + FEW_SHOT_SUFFIX}]
    for example in examples:
        messages += [
            {"role": "user", "content": f"This is an example, the code is: {example.code}"},
            {"role": "user", "content": QUESTION.format(question=example.question,
                                                        options=example.options)},
            {"role": "assistant", "content": example.answer},
        ]
    return messages + [
        {"role": "user", "content": f"The code is: {question.code}"},
        {"role": "user", "content": QUESTION.format(question=question.question, options=options)},
    ]


class ChoiceTarget(Target):
    """The correct option of a VGQA question."""

    answer: str
    """The answer letter (``A``-``D``)."""


@register_task
class VGQA(Task[ChoiceTarget]):
    """Multiple-choice questions about SVG code."""

    name = "vgbench-vgqa"
    description = "VGBench VGQA (SVG): multiple-choice accuracy (%) per question type"
    suite = SUITE
    suite_source = SUITE_SOURCE
    preset = PRESET
    Options: ClassVar[type[Any]] = VGQAOptions
    metrics: ClassVar[Mapping[str, str]] = {"accuracy": "accuracy", "accuracy_all": "accuracy"}

    def load(self) -> list[Sample[ChoiceTarget]]:
        samples = []
        for qtype, questions in load_questions(self.common.data).items():
            examples = questions[:FEW_SHOT_EXAMPLES]
            for index, question in enumerate(questions):
                if index < FEW_SHOT_EXAMPLES:
                    continue
                samples.append(Sample(
                    id=f"{qtype}/{index:05d}",
                    group=qtype,
                    messages=messages_for(question, examples, self.options.prompt),
                    reference=question.answer,
                    target=ChoiceTarget(answer=question.answer),
                    expected=question.answer,
                ))
        return samples

    def score(self, sample: Sample[ChoiceTarget], response: str, renderer: Renderer) -> Outcome:
        choice = read_choice(response, self.options.extract)
        right = 100.0 if choice == sample.target.answer else 0.0
        if not response:
            return Outcome.of(sample, {"accuracy": None, "accuracy_all": 0.0},
                              extraction_rule=self.options.extract,
                              failure=Failure(kind=FailureKind.EXTRACT, detail="empty reply"))
        # the released first-character reading takes any character (scored wrong unless it
        # is the answer); one that is no letter at all is recorded as no option read
        failure = None if choice is not None and choice.isalpha() else Failure(
            kind=FailureKind.EXTRACT, detail="no option letter in the reply")
        return Outcome.of(sample, {"accuracy": right, "accuracy_all": right}, extracted=choice,
                          extraction_rule=self.options.extract, failure=failure)

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        return with_pooled_group(outcomes)
