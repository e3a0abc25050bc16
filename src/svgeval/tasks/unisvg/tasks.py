"""UniSVG (Li et al., 2025) as VLMEvalKit evaluates it: image-to-SVG, text-to-SVG, understanding.

Specification: VLMEvalKit ``vlmeval/dataset/utils/uni_svg.py`` (``evaluate_uni_svg``) and the
``UniSVG`` dataset class. The group of a sample is its question type (``category``).

Generation (ISVGEN, TSVGEN): the answer (:func:`~svgeval.tasks.unisvg.rules.extract_answer_svg`)
and the ground truth are rendered at 336 x 336 on white; per sample ``ssim`` (scikit-image,
uniform 7 px window, uint8 RGB), ``psnr`` (released: uint8 wrap-around, 100 for equal
renders), ``psnr_fixed`` (the same on real differences), and in the batched stage ``lpips``
(AlexNet, LPIPS' own ``2x - 1`` inputs, 336 px) and ``clip`` (cosine of CLIP ViT-L/14-336
image embeddings of the two renders). An answer that does not render gets the released failure
values (SSIM 0, PSNR 0, LPIPS 1, CLIP 0); one with no SVG is drawn as the released empty SVG
(a white canvas), or gets the failure values with ``--set no_svg=worst``.

Understanding: ``accuracy`` by the released rule of the type (colour, category, shape, size,
transform; :mod:`~svgeval.tasks.unisvg.rules`), or ``bertscore`` and ``sbert``
(all-MiniLM-L6-v2 cosine) against the reference text for the free-text types (BERTScore as
bert-score encodes under transformers 4.x, the published numbers' environment, or under 5 with
``--set bertscore_space=transformers5``; :func:`~svgeval.metrics.text.bert_score_text`). An
empty (or blank) answer scores 0 in every understanding type: VLMEvalKit's ``load`` reads the empty cell
as NaN and ``evaluate_uni_svg`` counts the row without a value (``uni_svg.py:450-455``), while
the rules applied to ``""`` would give a shape or transform question whose ground truth names
none a 1 (``:225``, ``:416``).

``--set reading=authors`` scores as the authors' own ``evaluation.py`` does instead
(:mod:`~svgeval.tasks.unisvg.authors`): its repair, failed renders and rows with unusable
colour or category metadata left out of the means (recorded as failures), PSNR ``inf`` as 0,
the rules applied to empty answers, and every type of the task required.

Results per type, ``<type>/score`` (:func:`~svgeval.tasks.unisvg.rules.generation_score`) for
the generation types and, for ``unisvg`` (every type), ``overall/final_score`` with its
components (:func:`~svgeval.tasks.unisvg.rules.final_score`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import JsonValue

from svgeval.messages import user_message
from svgeval.metrics.clip import clip_image_score
from svgeval.metrics.lpips import lpips
from svgeval.metrics.pixel import psnr, ssim
from svgeval.metrics.presets import variant
from svgeval.metrics.text import bertscore, sbert
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage
from svgeval.svg.extract import Extraction
from svgeval.tasks import register_task
from svgeval.tasks.aggregate import Aggregate, mean_per_group
from svgeval.tasks.base import BatchItem, MetricContext, Sample, Target, batch_values
from svgeval.tasks.common import Drawing, ImageGenerationTask, unique_ids
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import DataUnavailable
from svgeval.tasks.outcome import Failure, FailureKind, MetricValues, Outcome
from svgeval.tasks.unisvg import authors, rules
from svgeval.tasks.unisvg.data import UniSvgRow, load_rows

PRESET = variant(
    "unisvg",
    description="UniSVG in VLMEvalKit (vlmeval/dataset/utils/uni_svg.py): renders 336 px, "
    "CLIP ViT-L/14-336 image-image cosine, LPIPS-AlexNet at LPIPS' own [-1, 1] inputs, "
    "uniform 7 px SSIM, all-MiniLM-L6-v2 SBERT, BERTScore roberta-large layer 17",
    metrics=("bertscore", "clip_image", "lpips", "psnr", "rule_score", "sbert", "ssim",
             "weighted_score"),
    render_size=336,
    clip_model="openai/clip-vit-large-patch14-336",
    clip_scale=1.0,
    lpips_net="alex",
    lpips_input="standard",
    lpips_size=None,
    ssim_window=7,
).name
RENDER = RenderSpec.square(336, background="white")
GENERATION = ("ISVGEN", "TSVGEN")


class QuestionTarget(Target):
    """What a UniSVG answer is scored against: the row's type, reference answer and metadata."""

    category: str
    """The question type (``ISVGEN``, ``CSVGUN_color``, ...)."""
    answer: str
    """The reference answer (the ground-truth SVG of a generation type)."""
    metadata: Mapping[str, JsonValue]
    """The row's ``l2-category`` JSON (the colour and category rules read its keywords)."""

    @property
    def reference_svg(self) -> str:
        """The SVG a generation answer's picture is compared with (:class:`DrawnTarget`)."""
        return rules.extract_answer_svg(self.answer).svg or self.answer


RULES: Mapping[str, Callable[[str, QuestionTarget], float]] = {
    "CSVGUN_color": lambda answer, t: rules.colour_score(answer, t.metadata),
    "ISVGUN_color": lambda answer, t: rules.colour_score(answer, t.metadata),
    "CSVGUN_category": lambda answer, t: rules.category_score(answer, t.metadata),
    "ISVGUN_category": lambda answer, t: rules.category_score(answer, t.metadata),
    "CSVGUN_shape": lambda answer, t: rules.shape_score(answer, t.answer),
    "CSVGUN_size": lambda answer, t: rules.size_score(answer, t.answer),
    "CSVGUN_transform": lambda answer, t: rules.transform_score(answer, t.answer),
}
TEXT_TYPES = tuple(rules.TEXT_WEIGHTS)
UNDERSTANDING = (*RULES, *TEXT_TYPES)
IMAGE_TYPES = ("ISVGEN", "ISVGUN_usage", "ISVGUN_category", "ISVGUN_description", "ISVGUN_color")
"""The types whose prompt carries the image (the ``UniSVG`` class' ``build_prompt``)."""
AUTHORS_RULES: Mapping[str, Callable[[str, QuestionTarget], float | None]] = {
    **RULES,
    "CSVGUN_color": lambda answer, t: authors.colour_score(answer, t.metadata),
    "ISVGUN_color": lambda answer, t: authors.colour_score(answer, t.metadata),
    "CSVGUN_category": lambda answer, t: authors.category_score(answer, t.metadata),
    "ISVGUN_category": lambda answer, t: authors.category_score(answer, t.metadata),
}
"""The authors' ``evaluation.py`` rules: None drops the row (its caught exception)."""
FAILED: Mapping[str, float] = {"ssim": 0.0, "psnr": 0.0, "psnr_fixed": 0.0, "lpips": 1.0,
                               "clip": 0.0}
"""The released values of a generation answer that does not render."""


def oracle_answer(row: UniSvgRow) -> str:
    """The reference answer, with the metadata's colours or categories appended for the types
    the release scores against the metadata rather than the answer."""
    keywords = row.metadata.get("keywords") or {}
    if row.category.endswith("_color"):
        colours = (keywords.get("colors") or {}).get("colors") or \
            (row.metadata.get("colors") or {}).get("colors") or []
        return f"{row.answer}\n{' '.join(map(str, colours))}"
    if row.category.endswith("_category"):
        categories = keywords.get("category") or row.metadata.get("category") or []
        return f"{row.answer}\n{' '.join(map(str, categories))}"
    return row.answer


@dataclass(frozen=True)
class UniSvgOptions:
    """``--set`` options of the UniSVG tasks."""

    no_svg: Literal["blank", "worst"] = field(
        default="blank", metadata={"help": "blank: an answer with no SVG is drawn as the released "
                                   "empty SVG (white); worst: it gets the failure values"})
    reading: Literal["vlmevalkit", "authors"] = field(
        default="vlmevalkit", metadata={"help": "vlmevalkit: VLMEvalKit's uni_svg.py; authors: "
                                        "the authors' evaluation.py (b7ab49b) with its defects "
                                        "(docs/suites/unisvg.md)"})
    bertscore_space: Literal["transformers4", "transformers5"] = field(
        default="transformers4", metadata={"help": "transformers4: BERTScore encoded as "
                                           "bert-score does under transformers 4.x (a leading "
                                           "space; the published numbers); transformers5: as "
                                           "under transformers 5 (no space)"})


class UniSvgTask(ImageGenerationTask[QuestionTarget]):
    """Base of the UniSVG tasks: the rows of :attr:`types`, scored as released."""

    suite: ClassVar[str] = "UniSVG"
    suite_source: ClassVar[str] = ("JoeLeelyf/UniSVG-VLMEvalKit (HF) + VLMEvalKit "
                                   "vlmeval/dataset/utils/uni_svg.py")
    preset: ClassVar[str] = PRESET
    types: ClassVar[tuple[str, ...]]
    overall: ClassVar[tuple[str, ...]] = ()
    """The :func:`~svgeval.tasks.unisvg.rules.final_score` keys reported as ``overall/<key>``."""
    Options = UniSvgOptions
    vlmevalkit_dataset: ClassVar[str] = "UniSVG"
    drawing = Drawing(RENDER, failed="white")
    """A generation answer with no SVG is drawn as the released empty SVG (``--set no_svg``)."""
    extraction_rule = "unisvg"
    """The released ``extract_svg_from_text`` (:func:`rules.extract_answer_svg`)."""
    metrics: ClassVar[Mapping[str, str]] = {
        "ssim": "ssim", "psnr": "psnr", "psnr_fixed": "psnr", "lpips": "lpips",
        "clip": "clip_image", "score": "weighted_score", "accuracy": "rule_score",
        "bertscore": "bertscore", "sbert": "sbert", "isvgen_score": "weighted_score",
        "tsvgen_score": "weighted_score", "easy_acc": "rule_score", "hard_acc": "rule_score",
        "sbert_score": "sbert", "final_score": "weighted_score",
    }

    def load(self) -> list[Sample[QuestionTarget]]:
        rows = load_rows(self.common.data)
        unknown = sorted({row.category for row in rows} - set(GENERATION) - set(UNDERSTANDING))
        if unknown:
            raise MalformedData(f"UniSVG rows of unknown type(s) {', '.join(unknown)}; known: "
                                f"{', '.join((*GENERATION, *UNDERSTANDING))}")
        rows = [row for row in rows if row.category in self.types]
        if not rows:
            raise DataUnavailable(f"no UniSVG row of type {', '.join(self.types)} in the data")
        absent = [kind for kind in self.types if kind not in {row.category for row in rows}]
        if self.authors and absent:
            raise MalformedData(f"--set reading=authors needs rows of every type (the authors' "
                                f"evaluation.py indexes each); none of {', '.join(absent)}")
        ids = unique_ids([row.index for row in rows])
        return [self.sample(sample_id, row) for sample_id, row in zip(ids, rows)]

    def vlmevalkit_sample_id(self, row: Mapping[str, str]) -> str | None:
        """A prediction row answers the sample of its ``index`` (the TSV's, as the samples are
        named), when its ``category`` is one of :attr:`types`."""
        return row.get("index") if row.get("category") in self.types else None

    def sample(self, sample_id: str, row: UniSvgRow) -> Sample[QuestionTarget]:
        images: list[bytes] = []
        if row.category in IMAGE_TYPES:
            if not row.pngs:
                raise MalformedData(f"UniSVG row {row.index} ({row.category}) has no image")
            images = row.pngs
        return Sample(id=sample_id, group=row.category,
                      messages=user_message(row.question, images), reference=oracle_answer(row),
                      target=QuestionTarget(category=row.category, answer=row.answer,
                                            metadata=row.metadata))

    @property
    def authors(self) -> bool:
        """True under ``--set reading=authors``."""
        return bool(self.options.reading == "authors")

    def extract(self, response: str) -> Extraction:
        """VLMEvalKit's ``extract_svg_from_text``, or the authors' (their ``fix_svg``)."""
        return (authors.extract_answer_svg if self.authors else rules.extract_answer_svg)(response)

    def score(self, sample: Sample[QuestionTarget], response: str,
              renderer: Renderer) -> Outcome:
        category = sample.target.category
        if category in GENERATION:
            return super().score(sample, response, renderer)
        if self.authors and category in AUTHORS_RULES:
            # evaluation.py reads answers from JSON: "" stays a string and the rules score it
            value = AUTHORS_RULES[category](response, sample.target)
            if value is None:
                return Outcome.of(sample, extracted=response, failure=Failure(
                    kind=FailureKind.REFERENCE, reason="authors_dropped",
                    detail="the authors' evaluation.py drops this row: no keywords.colors / "
                    "keywords.category in its metadata, or white its only colour"))
            return Outcome.of(sample, metrics={"accuracy": value}, extracted=response)
        # an empty answer scores 0 as released, recorded as the model's failure to answer
        blank = None if response.strip() else Failure(kind=FailureKind.EXTRACT,
                                                     detail="empty answer")
        if category in RULES:
            # VLMEvalKit reads an empty answer cell as NaN and scores the row 0
            # (uni_svg.py:450-455); the rules themselves would give "" a 1 on a shape or
            # transform question whose ground truth names none
            accuracy = RULES[category](response, sample.target) if blank is None else 0.0
            return Outcome.of(sample, metrics={"accuracy": accuracy}, extracted=response,
                              failure=blank)
        empty = not (response and sample.target.answer)
        return Outcome.of(sample, metrics={"bertscore": 0.0, "sbert": 0.0} if empty else {},
                          extracted=response, failure=blank)

    def score_picture(self, score: Outcome, sample: Sample[QuestionTarget], answer: Extraction,
                      picture: FloatImage | None, reference: FloatImage,
                      renderer: Renderer) -> None:
        """The released values of a generation answer (see the module docstring)."""
        if answer.svg is None and self.options.no_svg == "blank":
            picture = self.drawing.canvas
        if picture is None and self.authors and answer.svg is not None:
            return  # evaluation.py:314-315: a failed render is skipped, not counted
        if picture is None:
            score.metrics.update(FAILED)
        else:
            identical = 0.0 if self.authors else 100.0  # evaluation.py:330 adds inf as 0
            score.metrics.update(ssim=ssim(picture, reference, preset=PRESET),
                                 psnr=rules.released_psnr(picture, reference, identical),
                                 psnr_fixed=psnr(picture, reference))

    def batch_score(self, items: Sequence[BatchItem[QuestionTarget]],
                    context: MetricContext) -> list[MetricValues]:
        """LPIPS and CLIP of the generation answers drawn here (a failure scored in
        :meth:`score` keeps its values), BERTScore and SBERT of the non-empty text answers."""
        scores = [MetricValues() for _ in items]
        blank_ok = self.options.no_svg == "blank"
        drawn = [i for i, item in enumerate(items)
                 if item.sample.target.category in GENERATION
                 and (item.output_svg is not None or (blank_ok and not item.in_paper_reading))]
        if drawn:
            outputs = self.draw_all([items[i].output_svg for i in drawn], context.renderer)
            references = self.draw_all([self.reference_svg(items[i].sample) for i in drawn],
                                       context.renderer)
            options = self.metric_options(context)
            picked = [scores[i] for i in drawn]
            for key, compute in (
                ("lpips", lambda: lpips(outputs, references, size=None, **options)),
                ("clip", lambda: clip_image_score(outputs, references, **options)),
            ):
                for score, value in zip(picked, batch_values(picked, (key,), compute)):
                    score.metrics[key] = value
        texts = [i for i, item in enumerate(items)  # an empty or failed answer keeps its 0
                 if item.sample.target.category in TEXT_TYPES and item.output_svg]
        if texts:
            answers = [items[i].output_svg or "" for i in texts]
            truths = [items[i].sample.target.answer for i in texts]
            picked = [scores[i] for i in texts]
            kw: dict[str, Any] = context.keywords()
            for key, compute in (
                ("bertscore", lambda: bertscore(answers, truths,
                                                space=self.options.bertscore_space, **kw)),
                ("sbert", lambda: sbert(answers, truths, preset=PRESET, **kw)),
            ):
                for score, value in zip(picked, batch_values(picked, (key,), compute)):
                    score.metrics[key] = value
        return scores

    def draw_all(self, svgs: Sequence[str | None], renderer: Renderer) -> list[NDArray[np.uint8]]:
        """The 8-bit 336 px renders of ``svgs`` (kept by content), white for a failed answer
        (None) and for one that does not render."""
        drawn = iter(self.references.draw_all([svg for svg in svgs if svg is not None],
                                                renderer))
        return [self.drawing.stand_in_pixels(None if svg is None else next(drawn))
                for svg in svgs]

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        """Per-type means, ``<type>/score`` for the generation types, and the released weighted
        components and final score under ``overall/`` (see :func:`rules.final_score`)."""
        result = mean_per_group(outcomes)
        means: dict[str, dict[str, float | None]] = {}
        for key, value in result.metrics.items():
            group, metric = key.split("/", 1)
            means.setdefault(group, {})[metric] = value
        for kind in GENERATION:
            if kind in means:
                values = [means[kind].get(k) for k in ("ssim", "lpips", "clip")]
                result.metrics[f"{kind}/score"] = (
                    None if any(v is None for v in values)
                    else rules.generation_score(*(float(v or 0.0) for v in values)))
        parts = rules.final_score(means, every_type=self.authors)
        for key in self.overall:
            result.metrics[f"overall/{key}"] = parts[key]
        return result


@register_task
class UniSvgImg2Svg(UniSvgTask):
    name = "unisvg-img2svg"
    description = "UniSVG image-to-SVG (ISVGEN): SSIM, LPIPS, CLIP, PSNR and 0.2/0.2/0.6 score"
    types = ("ISVGEN",)
    batched_metrics = ("lpips", "clip")


@register_task
class UniSvgText2Svg(UniSvgTask):
    name = "unisvg-text2svg"
    description = "UniSVG text-to-SVG (TSVGEN): SSIM, LPIPS, CLIP, PSNR and 0.2/0.2/0.6 score"
    types = ("TSVGEN",)
    batched_metrics = ("lpips", "clip")


@register_task
class UniSvgUnderstanding(UniSvgTask):
    name = "unisvg-understanding"
    description = "UniSVG understanding: rule accuracy, BERTScore and SBERT per question type"
    types = UNDERSTANDING
    batched_metrics = ("bertscore", "sbert")
    # every answer is text scored by a rule or a text model, never drawn: a hostile SVG is a
    # wrong answer (accuracy 0), not a refused render
    scores_text_only = True
    overall = ("easy_acc", "hard_acc", "bertscore", "sbert_score")


@register_task
class UniSvgAll(UniSvgTask):
    name = "unisvg"
    description = "UniSVG, every type, with the released weighted final score"
    scores_text_only = True  # its understanding rows, as unisvg-understanding's
    types = (*GENERATION, *UNDERSTANDING)
    batched_metrics = ("lpips", "clip", "bertscore", "sbert")
    overall = ("isvgen_score", "tsvgen_score", "easy_acc", "hard_acc", "bertscore",
               "sbert_score", "final_score")
