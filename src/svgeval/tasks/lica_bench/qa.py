"""LICA-Bench svg-1 (perceptual) and svg-2 (semantic): multiple-choice questions about an SVG.

Per record of ``svg-1.json`` / ``svg-2.json`` (``tasks/svg.py:238-269``) the SVG file is read
(none when missing) and every question whose key holds ``perceptual`` (svg-1) or ``semantic``
(svg-2) and whose ``answer`` is not null becomes a sample ``svg_qa_<n>`` (numbered in file
order); the gold letter is ``str(answer).strip().upper()``. One user message
(``:271-284``): the prompt, ``SVG Code:`` and the code (left out without an SVG file), then
``Question: ...`` and ``Options: A) ..; B) ..``; the rendered ``image_path`` follows as a
picture when the file exists (``--set qa_image=false``, ours: never, so the task is code-only).

``accuracy`` (``:289-294``): 100 when the letter read by :func:`~.answers.answer_letter` equals
the gold one, else 0; the release's fraction is ``all/accuracy`` / 100. ``--set extract=strict``
(ours) reads only ``Answer: X`` with an upper-case letter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from svgeval.messages import user_message
from svgeval.render.isolated import Renderer
from svgeval.tasks import register_task
from svgeval.tasks.base import Sample, Target
from svgeval.tasks.lica_bench import data
from svgeval.tasks.lica_bench.answers import LetterReading, answer_letter
from svgeval.tasks.lica_bench.protocol import LicaTask
from svgeval.tasks.outcome import Failure, FailureKind, Outcome

_PROMPT = ("You are an SVG analysis expert.  Analyze the given SVG code and answer the "
           "multiple-choice question about {about}.\nOutput your answer in the exact format "
           "'Answer: X' where X is one of A, B, C, or D.  Do not include any other text.")
PERCEPTUAL_PROMPT = _PROMPT.format(about="its visual properties")
"""``SVGPerceptualQA.PROMPT`` (``:303-308``), the two double spaces included."""
SEMANTIC_PROMPT = _PROMPT.format(about="what it depicts or represents")
"""``SVGSemanticQA.PROMPT`` (``:329-334``)."""


@dataclass(frozen=True)
class QAOptions:
    """``--set`` options of svg-1 and svg-2."""

    extract: LetterReading = field(default="lica", metadata={
        "help": "lica: the released five-pattern cascade (case-insensitive letters); strict: "
                "the last 'Answer: X' with X upper-case (ours)"})
    qa_image: bool = field(default=True, metadata={
        "help": "attach the record's rendered image_path when the file exists (released); "
                "false: code only (ours)"})


class QATarget(Target):
    """The gold option letter."""

    answer: str


def question_text(prompt: str, svg_code: str, question: str, options: Mapping[str, Any]) -> str:
    """The released message text (``build_model_input``, ``:274-279``)."""
    listed = "; ".join(f"{key}) {value}" for key, value in options.items())
    block = f"Question: {question}\nOptions: {listed}"
    if svg_code:
        return f"{prompt}\n\nSVG Code:\n{svg_code}\n\n{block}"
    return f"{prompt}\n\n{block}"


class LicaQA(LicaTask[QATarget]):
    """Base of svg-1 and svg-2."""

    Options: ClassVar[type[Any]] = QAOptions
    metrics: ClassVar[Mapping[str, str]] = {"accuracy": "accuracy"}
    takes_input_svg = True
    question_filter: ClassVar[str]
    prompt: ClassVar[str]

    def load(self) -> list[Sample[QATarget]]:
        task_file = data.load_task_file(self.common.data, self.task_id, data.QAEntry,
                                        lambda entry: (entry.svg_path, entry.image_path))
        samples: list[Sample[QATarget]] = []
        for entry in task_file.items:
            svg_file = task_file.resolve(entry.svg_path) if entry.svg_path else None
            svg_code = (svg_file.read_text(encoding="utf-8")
                        if svg_file is not None and svg_file.is_file() else "")
            image = task_file.resolve(entry.image_path) if entry.image_path else None
            for key, question in entry.questions.items():
                if question.answer is None or self.question_filter not in key:
                    continue
                sample_id = f"svg_qa_{len(samples):04d}"
                pictures = ([data.png_file(image, f"{task_file.path}: {sample_id}")]
                            if self.options.qa_image and image is not None and image.is_file()
                            else [])
                gold = str(question.answer).strip().upper()
                text = question_text(self.prompt, svg_code, question.question, question.option)
                samples.append(Sample(
                    id=sample_id, group="all", messages=user_message(text, pictures),
                    reference=f"Answer: {gold}", input_svg=svg_code or None,
                    target=QATarget(answer=gold), expected=gold))
        return samples

    def score(self, sample: Sample[QATarget], response: str, renderer: Renderer) -> Outcome:
        letter = answer_letter(response, self.options.extract)
        correct = 100.0 if letter == sample.target.answer else 0.0
        failure = None if letter else Failure(kind=FailureKind.EXTRACT,
                                              detail="no option letter in the answer")
        return Outcome.of(sample, {"accuracy": correct}, extracted=letter or None,
                          extraction_rule=self.options.extract, failure=failure)


@register_task
class LicaPerceptualQA(LicaQA):
    """svg-1: questions about an SVG's visual properties."""

    name = "lica-svg-1"
    task_id = "svg-1"
    description = "LICA-Bench svg-1 perceptual Q/A: multiple-choice accuracy (%)"
    question_filter = "perceptual"
    prompt = PERCEPTUAL_PROMPT


@register_task
class LicaSemanticQA(LicaQA):
    """svg-2: questions about what an SVG depicts."""

    name = "lica-svg-2"
    task_id = "svg-2"
    description = "LICA-Bench svg-2 semantic Q/A: multiple-choice accuracy (%)"
    question_filter = "semantic"
    prompt = SEMANTIC_PROMPT
