"""SVGenius style transfer: redraw an SVG in another style, scored by a judge model (appendix E.3).

Each released item (``src/tasks/generation/style_trans/{easy,medium,hard}.json``: 21 / 30 / 29
items) holds an SVG (``code``), its description and one of four target styles (``question``:
``Cartoon Style``, ``Pixel-art``, ``Line-art``, ``3D-style``). The model gets the paper's prompt
with the SVG as text (no image, as in the paper and the released ``style_trans.py``); its answer
is extracted with the released rule (``--set extract=svgenius``).

Local evaluation (Tables 10, 11 and 13): the original and the answer are rendered (CairoSVG,
512 x 512, white) and a judge model (``--judge``) scores the pair on each of the five criteria
of Table 13 with the paper's prompt at temperature 0.05, reading the integer after
``[RESULT]``. An answer with no SVG or one that does not render scores 0 on every criterion,
as the paper states. Per tier: ``cp``, ``df``, ``sc``, ``ch``, ``cb`` (Table 11's columns),
``judge_score`` (the mean of the five) and the Table 10 columns ``cartoon``, ``pixel``,
``line``, ``3d``: the mean of the five criteria over the samples of that style.

Global ranking (Table 12, ``--set reference_run=DIR``): the judge compares this run's answer
with the answer of another run of this task on the same data, on semantic preservation,
stylistic fidelity and visual quality, once in each order; ``win_rate`` is the share won in
percent, a split decision counting as half. An answer that renders beats one that does not;
when neither renders the pair is a tie. See docs/judges.md.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel

from svgeval.messages import png_bytes, user_message
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import RenderFailure
from svgeval.svg.extract import extract_svg
from svgeval.tasks import register_task
from svgeval.tasks.aggregate import Aggregate, mean_per_group
from svgeval.tasks.base import CommonOptions, RecordedAnswer, Sample, Target
from svgeval.tasks.common import ReferenceRenders
from svgeval.tasks.judge import JudgeRequest, parse_result_choice, parse_result_score
from svgeval.tasks.options import InvalidOption
from svgeval.tasks.outcome import Failure, FailureKind, Outcome
from svgeval.tasks.svgenius.code_task import SvgeniusCodeTask
from svgeval.tasks.svgenius.data import SvgeniusEditingOptions, TaskFile
from svgeval.tasks.svgenius.style_transfer_prompts import (
    JUDGE,
    JUDGE_TEMPERATURE,
    PAIRWISE,
    RUBRICS,
    STYLE_TRANSFER,
    rubric_text,
)

Style = Literal["Cartoon Style", "Pixel-art", "Line-art", "3D-style"]

STYLE_KEYS: Mapping[str, str] = {
    "Cartoon Style": "cartoon",
    "Pixel-art": "pixel",
    "Line-art": "line",
    "3D-style": "3d",
}
"""Each released style label -> its metric key (Table 10: Cart., Pixel, Line, 3D)."""

CRITERIA = tuple(rubric.key for rubric in RUBRICS)
JUDGE_RENDER = RenderSpec.square(512, background="white")
"""What the judge sees: ours (the paper does not say; the released originals are 625 px PNGs)."""
WIN, TIE, LOSS = 100.0, 50.0, 0.0


class StyleTransferItem(BaseModel):
    """A released style-transfer record (the fields svgeval reads)."""

    description: list[str] | str
    question: Style
    code: str


class ReferenceAnswer(Target):
    """The other run's answer to a sample (``--set reference_run``)."""

    recorded: bool
    """False when the other run has no record of the sample."""
    answer: str | None
    """Its SVG (None: it had none)."""


class TransferTarget(Target):
    """What a style transfer is judged against."""

    style: Style
    """The style asked for."""
    original: str
    """The SVG to redraw."""
    versus: ReferenceAnswer | None = None
    """With ``--set reference_run``: the other run's answer, for the win rate."""


@dataclass(frozen=True)
class StyleTransferOptions(SvgeniusEditingOptions):
    """``--set`` options of ``svgenius-style-transfer``."""

    reference_run: Path | None = field(
        default=None,
        metadata={
            "help": "a run directory of this task on the same data: report win_rate against "
            "its answers, judged pairwise (Table 12)"
        },
    )


@register_task
class SvgeniusStyleTransfer(SvgeniusCodeTask):
    """Redraw an SVG in a target style; a judge model scores the result (SVGenius E.3)."""

    name = "svgenius-style-transfer"
    description = "SVGenius style transfer: an SVG redrawn in another style, scored by a judge"
    metrics: ClassVar[Mapping[str, str]] = {
        **dict.fromkeys(CRITERIA, "judge_score"),
        "judge_score": "judge_score",
        **dict.fromkeys(STYLE_KEYS.values(), "judge_score"),
        "win_rate": "win_rate",
    }
    judge_metrics = (*CRITERIA, "win_rate")
    judge_sees_images = True
    takes_input_svg = True
    task_file = "style_transfer"
    item_type = StyleTransferItem
    Options = StyleTransferOptions

    def __init__(self, common: CommonOptions, options: Any = None) -> None:
        super().__init__(common, options)
        self._renders = ReferenceRenders(JUDGE_RENDER)
        self._styles: dict[str, str] = {}
        self._versus: Mapping[str, RecordedAnswer] | None = None

    def compared_run(self) -> Path | None:
        """``--set reference_run``: the run whose answers are judged against ours."""
        run: Path | None = self.options.reference_run
        return run

    def receive_answers(self, answers: Mapping[str, RecordedAnswer]) -> None:
        self._versus = answers

    def load(self) -> list[Sample]:
        if self.options.reference_run is not None and self._versus is None:
            raise InvalidOption(
                f"--set reference_run={self.options.reference_run}: its answers were not read; "
                "load the samples with svgeval.runner.load_samples")
        return super().load()

    def make_sample(
        self, sample_id: str, task_file: TaskFile[StyleTransferItem], item: StyleTransferItem
    ) -> Sample:
        description = item.description  # the released script reads the first of a list
        if not isinstance(description, str):
            description = description[0] if description else ""
        prompt = STYLE_TRANSFER.format(
            reference_svg=item.code, description=description, style=item.question
        )
        messages = user_message(prompt)
        target = TransferTarget(style=item.question, original=item.code)
        if self._versus is not None:
            theirs = self._versus.get(sample_id)
            if theirs is not None and theirs.prompt != messages:
                raise InvalidOption(
                    f"--set reference_run={self.options.reference_run} asked another question "
                    f"as {sample_id}; compare runs on the same data"
                )
            target = TransferTarget(style=item.question, original=item.code,
                                    versus=ReferenceAnswer(recorded=theirs is not None,
                                                           answer=theirs.svg if theirs is not None else None))
        self._styles[sample_id] = STYLE_KEYS[item.question]
        return Sample(
            id=sample_id,
            group=task_file.group,
            messages=messages,
            reference="",  # no reference answer: the oracle answers nothing
            input_svg=item.code,
            target=target,
        )

    def score(self, sample: Sample[TransferTarget], response: str, renderer: Renderer) -> Outcome:
        original = self._renders.get(sample.target.original, renderer)
        if isinstance(original, RenderFailure):
            return Outcome.of(sample, 
                metrics=dict.fromkeys(CRITERIA),
                failure=Failure.of_render(original, FailureKind.REFERENCE),
            )
        answer = extract_svg(response, rule=self.options.extract)
        invalid: dict[str, float | None] = dict.fromkeys(CRITERIA, 0.0)  # the paper's 0
        ours: bytes | None = None
        if answer.svg is None:
            score = Outcome.unextracted(sample, answer, invalid)
        else:
            score = Outcome.of(sample, extracted=answer.svg, extraction_rule=answer.rule)
            output = renderer.render(answer.svg, JUDGE_RENDER)
            if isinstance(output, RenderFailure):
                score.metrics, score.failure = invalid, Failure.of_render(output)
            else:
                ours = png_bytes(output.pixels)
        before = png_bytes(original.pixels)
        style = sample.target.style
        if ours is not None:
            for rubric in RUBRICS:
                score.ask_judge(JudgeRequest(
                    metric=rubric.key,
                    messages=user_message(
                        JUDGE.format(style=style, rubric=rubric_text(rubric)), [before, ours]
                    ),
                    parse=parse_result_score,
                    temperature=JUDGE_TEMPERATURE,
                ))
        if sample.target.versus is not None:
            self._compare(score, sample.target.versus, style, before, ours, renderer)
        return score

    def _compare(
        self,
        score: Outcome,
        versus: ReferenceAnswer,
        style: str,
        before: bytes,
        ours: bytes | None,
        renderer: Renderer,
    ) -> None:
        """Add ``win_rate``: judged in both orders when both answers render, else decided."""
        if not versus.recorded:
            score.metrics["win_rate"] = None
            score.not_computed["win_rate"] = "the reference run has no record of some samples"
            return
        theirs: bytes | None = None
        if versus.answer is not None:
            rendered = self._renders.get(versus.answer, renderer)
            theirs = None if isinstance(rendered, RenderFailure) else png_bytes(rendered.pixels)
        if ours is None or theirs is None:
            score.metrics["win_rate"] = WIN if ours else LOSS if theirs else TIE
            return
        prompt = PAIRWISE.format(style=style)
        for images, ours_is in (([before, ours, theirs], "A"), ([before, theirs, ours], "B")):
            score.ask_judge(
                JudgeRequest(
                    metric="win_rate",
                    messages=user_message(prompt, images),
                    parse=functools.partial(pairwise_outcome, ours=ours_is),
                    temperature=JUDGE_TEMPERATURE,
                )
            )

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        """Per tier: each criterion, their mean (``judge_score``) and its mean per style;
        judge failures are counted per metric when a judge ran."""
        judged = self.judge_metrics if self.options.reference_run else CRITERIA
        if any(set(judged) & set(outcome.not_computed) for outcome in outcomes):
            judged = ()  # no judge
        return mean_per_group([self._with_style_scores(o) for o in outcomes], judged=judged)

    def _with_style_scores(self, outcome: Outcome) -> Outcome:
        """The outcome with ``judge_score`` (the mean of the five criteria, None unless all
        five have a value) under its own key and its style's key (None under the others)."""
        metrics = dict(outcome.metrics)
        values = [metrics.get(key) for key in CRITERIA]
        overall = None if None in values else sum(v for v in values if v is not None) / 5
        metrics["judge_score"] = overall
        style = self._styles.get(outcome.id)
        for key in STYLE_KEYS.values():
            metrics[key] = overall if key == style else None
        return outcome.model_copy(update={"metrics": metrics})


def pairwise_outcome(reply: str, ours: str) -> float | None:
    """100 when the judge's ``[RESULT]`` letter is ``ours``, 0 for the other letter, None
    without a verdict."""
    choice = parse_result_choice(reply)
    if choice is None:
        return None
    return WIN if choice == ours else LOSS
