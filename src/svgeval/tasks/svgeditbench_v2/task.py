"""SVGEditBench V2: edit an emoji's SVG code as an instruction says; compared with the target.

Reproduces the released pipeline (github.com/mti-lab/SVGEditBenchV2): the prompt of
``src/inference/gpt_seq.py`` / ``vllm.py`` (one user message: the instruction, then the original
SVG in a ```svg block), the answer rule of their ``parse_response`` (the extraction rule
``svgeditbench-v2``, :func:`extract_svgeditbench_v2`) and the metrics of
``src/9_calculate_metrics.py``: output and target rendered by CairoSVG at 224 x 224 on white
with a 5 s limit per render (the run's ``--render-timeout`` defaults to it), then per sample

* ``mse``: ``mean((out - ref)^2)`` over pixels and the three channels of [0, 1] renders
  (``evaluation/mse.py``: OpenCV BGR / 255);
* ``dino``: cosine of DINOv2-giant CLS features of the two renders (``evaluation/dinov2.py``;
  [0, 1] pixels without ImageNet normalisation unless ``--set dino_input=imagenet``);
* ``clip``: torchmetrics ``CLIPScore`` with CLIP ViT-B/32, ``max(100 cos(image, text), 0)``,
  of the *output* render and the target emoji's name (``evaluation/clipscore.py``);
* ``chamfer``: the two-level Chamfer distance of points sampled on every shape's outline, in
  user units (``evaluation/chamfer.py``; :mod:`svgeval.metrics.chamfer`).

As released, an answer that cannot be extracted or rendered has no value for any metric (the
metrics loop over the rendered PNGs) and the means are over the rest; svgeval records such
samples as failures, counted in ``results.json``. An SVG whose shapes the released Chamfer code
cannot read has no ``chamfer`` (the reason is recorded). The defects of the released code are
in ``docs/suites/svgeditbench_v2.md``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Literal

from svgeval.metrics.chamfer import svg_chamfer
from svgeval.metrics.clip import clip_score
from svgeval.metrics.dino import dino_cls
from svgeval.metrics.pixel import mse
from svgeval.metrics.presets import variant
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage, Picture, RenderFailure
from svgeval.svg.extract import Extraction, extraction_rule
from svgeval.tasks import register_task
from svgeval.tasks.base import BatchItem, MetricContext, Sample, Target, batch_values
from svgeval.tasks.common import Drawing, ImageGenerationTask
from svgeval.tasks.outcome import MetricValues, Outcome
from svgeval.tasks.svgeditbench_v2.data import (
    Triplet,
    emoji_name,
    load_triplets,
    read_zwj_sequences,
)

RENDER = RenderSpec.square(224, background="white")
PRESET = variant(
    "svgeditbench-v2",
    description="SVGEditBench V2 released src/9_calculate_metrics.py: CairoSVG 224 px "
    "on white; DINOv2-giant CLS cosine; torchmetrics CLIPScore (ViT-B/32, "
    "max(100 cos, 0)); Chamfer distance of 100 points per shape",
    metrics=("chamfer", "clip_score", "dino_cls", "mse"),
    clip_model="openai/clip-vit-base-patch32",
    clip_clamp_zero=True,
    dino_model="facebook/dinov2-giant",
).name
GROUP = "edit"
_V2_FENCE = re.compile(r"```svg\n[^`]+?```")
_V2_ELEMENT = re.compile(r"<svg[\s\S]+?</svg>")


@extraction_rule("svgeditbench-v2")
def extract_svgeditbench_v2(response: str) -> Extraction:
    """``parse_response`` of the released inference code (``gpt_seq.py``, ``vllm.py``): the
    matches of ``` ```svg\\n[^`]+?``` ``` (a block holding no backtick); more than one is
    invalid, exactly one is the answer (the text between ``` ```svg\\n``` and the closing fence,
    unstripped); with none, the matches of ``<svg[\\s\\S]+?</svg>`` must be exactly one, else the
    response is invalid."""
    blocks: list[str] = _V2_FENCE.findall(response)
    if len(blocks) == 1:
        return Extraction(blocks[0][len("```svg\n"):-3], "svgeditbench-v2:fenced")
    if blocks:
        return Extraction(None, "svgeditbench-v2", f"{len(blocks)} ```svg blocks in the response")
    elements: list[str] = _V2_ELEMENT.findall(response)
    if len(elements) == 1:
        return Extraction(elements[0], "svgeditbench-v2:bare")
    return Extraction(None, "svgeditbench-v2",
                      f"{len(elements)} <svg ...>...</svg> elements in the response, not one")


def prompt(instruction: str, before_svg: str) -> str:
    """The released user message (``gpt_seq.py`` and ``vllm.py``)."""
    return (f"The following is the SVG code representing an image. {instruction} "
            f"Only return the output SVG code.\n\n```svg\n{before_svg}\n```")


@dataclass(frozen=True)
class SvgEditBenchV2Options:
    """``--set`` options of ``svgeditbench-v2``."""

    extract: Literal["svgeditbench-v2", "auto"] = field(
        default="svgeditbench-v2", metadata={"help": "svgeditbench-v2: the released parser (one "
                                             "```svg block, else one bare <svg>); auto: lenient"})
    dino_input: Literal["released", "imagenet"] = field(
        default="released", metadata={"help": "released: [0, 1] pixels as the released code; "
                                      "imagenet: with DINOv2's ImageNet mean/std normalisation"})
    chamfer: Literal["released", "corrected"] = field(
        default="released", metadata={"help": "released: transforms and elements read as the "
                                      "released code (its defects kept); corrected: as SVG "
                                      "defines them (shapes alike in both)"})
    zwj_sequences: Path | None = field(
        default=None, metadata={"help": "Unicode's emoji-zwj-sequences.txt (16.0) naming ZWJ "
                                "emoji for CLIP, as released; without it their parts' names"})


class EditTarget(Target):
    """What an edit is compared with: the target SVG, and the target emoji's name for CLIP (or
    why there is none; exactly one of the two is set)."""

    after_svg: str
    """The target emoji's SVG (the released ``after`` file)."""
    caption: str | None = None
    """The target emoji's name (CLIP's text)."""
    caption_error: str = ""
    """Why the emoji has no name (its ``clip`` is not computed)."""

    @property
    def reference_svg(self) -> str:
        """The SVG an answer's picture is compared with (:class:`DrawnTarget`)."""
        return self.after_svg


@register_task
class SvgEditBenchV2(ImageGenerationTask[EditTarget]):
    """SVGEditBench V2 (mti-lab): instruction-driven edits of emoji SVGs."""

    name = "svgeditbench-v2"
    description = ("SVGEditBench V2: instruction edits of emoji SVGs; MSE, DINOv2, CLIP score, "
                   "Chamfer distance at 224 px")
    suite = "SVGEditBench V2"
    suite_source = "mti-lab/SVGEditBenchV2 (GitHub) + released pipeline"
    takes_input_svg = True
    preset = PRESET
    render_timeout_s = 5.0
    drawing = Drawing(RENDER, failed="none")
    """A failed answer has no picture: the released metrics loop over the PNGs that rendered."""
    Options = SvgEditBenchV2Options
    batched_metrics: ClassVar[tuple[str, ...]] = ("dino", "clip")
    metrics: ClassVar[Mapping[str, str]] = {
        "mse": "mse", "dino": "dino_cls", "clip": "clip_score", "chamfer": "chamfer"}

    def load(self) -> list[Sample[EditTarget]]:
        path = self.options.zwj_sequences
        zwj = read_zwj_sequences(path) if path is not None else {}
        return [self._sample(triplet, zwj) for triplet in load_triplets(self.common.data)]

    def _sample(self, triplet: Triplet, zwj: Mapping[str, str]) -> Sample[EditTarget]:
        try:
            caption = emoji_name(triplet.after_file, zwj)
        except ValueError as error:
            target = EditTarget(after_svg=triplet.after_svg, caption_error=(
                f"no emoji name for {triplet.after_file}: {error}"))
        else:
            target = EditTarget(after_svg=triplet.after_svg, caption=caption)
        return Sample(
            id=triplet.id, group=GROUP,
            messages=[{"role": "user", "content": prompt(triplet.instruction, triplet.before_svg)}],
            reference=f"```svg\n{triplet.after_svg}\n```", input_svg=triplet.before_svg,
            target=target)

    def score_picture(self, score: Outcome, sample: Sample[EditTarget], answer: Extraction,
                      picture: FloatImage | None, reference: FloatImage,
                      renderer: Renderer) -> None:
        if answer.svg is None or picture is None:
            score.metrics = {"mse": None, "chamfer": None}
            return
        score.metrics["mse"] = mse(picture, reference)
        chamfer = renderer.call(svg_chamfer, answer.svg, sample.target.after_svg,
                                self.options.chamfer == "released")
        if isinstance(chamfer, RenderFailure):
            score.metrics["chamfer"] = None
            score.not_computed["chamfer"] = f"Chamfer distance: {chamfer.message}"
        else:
            score.metrics["chamfer"] = chamfer

    def batch_score(self, items: Sequence[BatchItem[EditTarget]],
                    context: MetricContext) -> list[MetricValues]:
        scores = [MetricValues(metrics={"dino": None, "clip": None}) for _ in items]
        outputs = self.drawing.render_all([item.output_svg for item in items], context.renderer)
        references = self.references.draw_all(
            [self.reference_svg(item.sample) for item in items], context.renderer)
        # a failed answer has no PNG for the released metrics, nor has a failed reference
        drawn = [(index, output.pixels, reference.pixels)
                 for index, (output, reference) in enumerate(zip(outputs, references))
                 if output is not None and isinstance(reference, Picture)]
        options = self.metric_options(context)
        dino = batch_values([scores[i] for i, _, _ in drawn], ("dino",), lambda: dino_cls(
            [out for _, out, _ in drawn], [ref for _, _, ref in drawn],
            imagenet_normalize=self.options.dino_input == "imagenet", **options))
        for (index, _, _), value in zip(drawn, dino):
            scores[index].metrics["dino"] = value
        captioned = [(i, out, caption) for i, out, _ in drawn
                     if (caption := items[i].sample.target.caption) is not None]
        for i, _, _ in drawn:
            if items[i].sample.target.caption is None:
                scores[i].not_computed["clip"] = items[i].sample.target.caption_error
        clip = batch_values([scores[i] for i, _, _ in captioned], ("clip",), lambda: clip_score(
            [out for _, out, _ in captioned], [caption for _, _, caption in captioned],
            **options))
        for (index, _, _), value in zip(captioned, clip):
            scores[index].metrics["clip"] = value
        return scores
