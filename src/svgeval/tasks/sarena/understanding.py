"""SArena Icon understanding: multiple-choice questions about an icon's SVG code.

The prompt is the line's first turn as it is (``metrics/inference/inference_un.py`` sends it
alone, text only); the correct option is the first character of the answer turn (``B.`` gives
``B``). ``accuracy`` is 100 for a correct pick, 0 otherwise, so its mean is the released
``overall_acc`` (percent, over every question: an answer with no option counts as wrong).
Groups are the line's ``Subject`` (the per-subject accuracies of ``evaluate_un.py``) and
``all`` pools them. VLMEvalKit reports the same counts as fractions (0-1).

Not reproduced: InternSVG's optional ``un_clean_result.py``, which first asks gpt-4o-mini to
rewrite each raw answer as ``A.``-``D.`` or ``X.``; the ``internsvg`` reading applies the
first-character rule to the raw answer (pass ``--set reading=vlmevalkit`` for a lenient rule).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from svgeval.messages import user_message
from svgeval.render.isolated import Renderer
from svgeval.tasks import register_task
from svgeval.tasks.base import Sample, Target
from svgeval.tasks.outcome import Failure, FailureKind, Outcome
from svgeval.tasks.sarena import data
from svgeval.tasks.sarena.common import SArenaTask, extract_choice
from svgeval.tasks.sarena.vlmevalkit import LEVEL1, LEVEL2


class ChoiceTarget(Target):
    """The correct option of a question."""

    correct: str
    """The first character of the answer turn (``B`` of ``B.``)."""


@register_task
class SArenaIconUnderstanding(SArenaTask[ChoiceTarget]):
    """Answer a multiple-choice question about an icon's SVG."""

    name = "sarena-icon-understanding"
    description = "SArena Icon understanding: multiple-choice accuracy (%) per subject"
    metrics: ClassVar[Mapping[str, str]] = {"accuracy": "accuracy"}
    # the released reading takes the reply's first character as the option, and never draws
    # the reply: a hostile SVG is a wrong answer
    scores_text_only = True

    def vlmevalkit_files(self) -> Mapping[str, tuple[str, str]]:
        return {"": (LEVEL1["icon"], LEVEL2["understanding"])}

    def load(self) -> list[Sample[ChoiceTarget]]:
        path = data.task_file(data.root(self.common.data, self.options.subset), data.UNDERSTANDING_FILE)
        samples = []
        for row in data.read_rows(path):
            correct = row.answer.strip()[:1]
            samples.append(Sample(
                id=str(row.id),
                group=row.subject or "unknown",
                messages=user_message(row.prompt),
                reference=row.answer,
                target=ChoiceTarget(correct=correct),
                expected=correct,
            ))
        return samples

    def score(self, sample: Sample[ChoiceTarget], response: str, renderer: Renderer) -> Outcome:
        choice = extract_choice(response, self.options.reading)
        if choice is None:
            return Outcome.of(sample, metrics={"accuracy": 0.0}, extraction_rule=self.options.reading,
                         failure=Failure(kind=FailureKind.EXTRACT, detail="no option in the answer"))
        return Outcome.of(sample, metrics={"accuracy": 100.0 if choice == sample.target.correct else 0.0},
                     extracted=choice, extraction_rule=self.options.reading)
