"""LICA-Bench svg-6 (text-to-SVG), svg-7 (image-to-SVG) and svg-8 (image and text to SVG).

Each record (``{"question": [description], "answer": svg, "image": path}``) is one sample
``svg_gen_<nnn>``; svg-6 sends the description, svg-7 the picture alone (its prompt has no
description), svg-8 both (``tasks/svg.py:755-761``, ``:814-821``, ``:876-886``). A picture that
is missing stops the run with one line (the release would send the prompt without it).

Metrics (``_evaluate_svg_generation``, ``:550-573``), against the record's ``answer``:
``mse`` and ``ssim`` per sample, ``lpips`` (AlexNet) and ``clip_score`` (ViT-B/32, the
description against the answer's render) in the batched metric stage; the failure values of
:mod:`~.protocol` (``--set failed_render``). svg-7's records are loaded without a description
(``:801-803``), so its ``clip_score`` is 0 for every answer, as released. On the answer's text
whatever it holds: ``code_length`` (UTF-8 bytes), ``weighted_complexity`` and ``svg_validity``
(100 when it holds ``<svg`` and draws at 64 x 64, the release's 1.0). The release's optional
leave-one-out metrics (``svg-loo-metrics``: CLIPSeg and a VLM) are not computed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar

from svgeval.messages import user_message
from svgeval.metrics.clip import clip_score
from svgeval.metrics.lpips import lpips
from svgeval.metrics.registry import MetricUnavailable
from svgeval.render.isolated import Renderer
from svgeval.render.picture import Picture
from svgeval.tasks import register_task
from svgeval.tasks.base import BatchItem, MetricContext, Sample, Target
from svgeval.tasks.lica_bench import data
from svgeval.tasks.lica_bench.protocol import (
    DRAWING,
    PRESET,
    RELEASED_FAILURE,
    VALIDITY_SPEC,
    LicaCodeTask,
)
from svgeval.tasks.lica_bench.scores import weighted_complexity
from svgeval.tasks.outcome import MetricValues, Outcome

_GENERATOR = "You are an SVG code generator. "
_NO_EXTRA = "Do not include any explanation, markdown fences, or extra text."
TEXT_PROMPT = (f"{_GENERATOR}Given a description of a graphic, output ONLY valid SVG code. "
               f"{_NO_EXTRA}")
"""``TextToSVGGeneration.PROMPT`` (``:718-722``)."""
IMAGE_PROMPT = (f"{_GENERATOR}Given an image, output ONLY valid SVG code that reproduces this "
                f"graphic. {_NO_EXTRA}")
"""``ImageToSVGGeneration.PROMPT`` (``:778-782``)."""
IMAGE_TEXT_PROMPT = (f"{_GENERATOR}Given an image and its description, output ONLY valid SVG "
                     f"code that reproduces this graphic. {_NO_EXTRA}")
"""``ImageTextToSVGGeneration.PROMPT`` (``:838-843``)."""


class GenerationTarget(Target):
    """The released SVG and the description CLIP compares the answer's picture with."""

    answer: str
    description: str


class LicaGeneration(LicaCodeTask[GenerationTarget]):
    """Base of svg-6, svg-7 and svg-8."""

    metrics: ClassVar[Mapping[str, str]] = {
        "mse": "mse", "ssim": "ssim", "lpips": "lpips", "clip_score": "clip_score",
        "code_length": "code_bytes", "weighted_complexity": "weighted_complexity",
        "svg_validity": "svg_valid"}
    batched_metrics = ("lpips", "clip_score")
    # code_length and weighted_complexity measure the answer's size, not its likeness to the
    # reference: the empty answer scores 0 on both, and the hostile answers (a shape or two) are
    # simpler than any drawing worth the name, so both beat the oracle there; an answer that
    # does not draw scores lpips 0.0, the best (defect 1 of docs/suites/lica_bench.md), as the
    # oracle
    degenerate: ClassVar[Mapping[str, frozenset[str]]] = {
        "empty": frozenset({"code_length", "weighted_complexity", "lpips"}),
        "hostile": frozenset({"weighted_complexity", "lpips"}),
    }
    sends_text: ClassVar[bool] = True
    sends_picture: ClassVar[bool] = True
    clip_has_description: ClassVar[bool] = True
    prompt: ClassVar[str]

    def load(self) -> list[Sample[GenerationTarget]]:
        task_file = data.load_task_file(self.common.data, self.task_id, data.GenerationItem,
                                        lambda item: (item.image,) if self.sends_picture else ())
        samples = []
        for i, item in enumerate(task_file.items):
            sample_id = f"svg_gen_{i:03d}"
            text = f"{self.prompt}\n\nDescription: {item.description}" if self.sends_text else (
                self.prompt)
            pictures = ([data.png_file(task_file.resolve(item.image),
                                       f"{task_file.path}: {sample_id}")]
                        if self.sends_picture else [])
            description = item.description if self.clip_has_description else ""
            samples.append(Sample(
                id=sample_id, group="all", messages=user_message(text, pictures),
                reference=item.answer,
                target=GenerationTarget(answer=item.answer, description=description)))
        return samples

    def score(self, sample: Sample[GenerationTarget], response: str, renderer: Renderer) -> (
            Outcome):
        code, answer = self.read_answer(response)
        outcome, picture, reference = self.drawn(sample, code, answer, sample.target.answer,
                                                 renderer)
        valid = answer.svg is not None and isinstance(renderer.render(answer.svg, VALIDITY_SPEC),
                                                      Picture)
        outcome.metrics.update(
            **self.pixel_metrics(picture, reference, ("mse", "ssim")),
            code_length=float(len(code.encode("utf-8"))),
            weighted_complexity=weighted_complexity(code),
            svg_validity=100.0 if valid else 0.0)
        return outcome

    def batch_score(self, items: Sequence[BatchItem[GenerationTarget]],
                    context: MetricContext) -> list[MetricValues]:
        """``lpips`` and ``clip_score``: computed on the answers that drew (and, under
        ``failed_render=white``, on a white canvas for the others); the released 0.0 for an
        answer that did not draw and, for CLIP, for a sample without description."""
        pictures = DRAWING.render_all([item.output_svg for item in items], context.renderer)
        white = self.options.failed_render == "white"
        scored = [picture is not None or white for picture in pictures]
        outputs = [DRAWING.stand_in_pixels(picture) for picture in pictures]
        references = DRAWING.draw_all([item.sample.target.answer for item in items],
                                      context.renderer)
        texts = [item.sample.target.description for item in items]
        kw = context.keywords()
        scores = [MetricValues() for _ in items]
        _put(scores, "lpips", scored, lambda chosen: lpips(
            [outputs[i] for i in chosen], [references[i] for i in chosen], preset=PRESET, **kw))
        _put(scores, "clip_score", [s and bool(t) for s, t in zip(scored, texts)],
             lambda chosen: clip_score([outputs[i] for i in chosen], [texts[i] for i in chosen],
                                       preset=PRESET, **kw))
        return scores


def _put(scores: list[MetricValues], key: str, scored: Sequence[bool],
         compute: Callable[[list[int]], Sequence[float]]) -> None:
    """``key`` of the ``scored`` items from ``compute`` (their indices in), the released
    failure value for the others; None for all, with the reason, when the metric cannot run."""
    chosen = [i for i, keep in enumerate(scored) if keep]
    values: dict[int, float] = {}
    try:
        values = dict(zip(chosen, compute(chosen))) if chosen else {}
    except MetricUnavailable as error:
        for score in scores:
            score.metrics[key] = None
            score.not_computed[key] = str(error)
        return
    for i, score in enumerate(scores):
        score.metrics[key] = values.get(i, RELEASED_FAILURE[key])


@register_task
class LicaText2Svg(LicaGeneration):
    """svg-6: draw a graphic from its description."""

    name = "lica-svg-6"
    task_id = "svg-6"
    description = ("LICA-Bench svg-6 text-to-SVG: MSE, SSIM, LPIPS-Alex, CLIP ViT-B/32, "
                   "validity and complexity of the answer")
    sends_picture = False
    prompt = TEXT_PROMPT


@register_task
class LicaImage2Svg(LicaGeneration):
    """svg-7: reproduce a picture as SVG."""

    name = "lica-svg-7"
    task_id = "svg-7"
    description = ("LICA-Bench svg-7 image-to-SVG: MSE, SSIM, LPIPS-Alex, validity and "
                   "complexity (CLIP 0: no description, as released)")
    sends_text = False
    clip_has_description = False
    # clip_score is 0 for every answer: svg-7 loads no description (defect 8)
    degenerate: ClassVar[Mapping[str, frozenset[str]]] = {
        baseline: keys | {"clip_score"} for baseline, keys in LicaGeneration.degenerate.items()}
    prompt = IMAGE_PROMPT


@register_task
class LicaImageText2Svg(LicaGeneration):
    """svg-8: reproduce a picture as SVG, given its description too."""

    name = "lica-svg-8"
    task_id = "svg-8"
    description = ("LICA-Bench svg-8 image-and-text-to-SVG: MSE, SSIM, LPIPS-Alex, CLIP "
                   "ViT-B/32, validity and complexity")
    prompt = IMAGE_TEXT_PROMPT
