"""VCode's three CodeVQA tasks: picture -> SVG by the model under test, then a fixed vision model
(svgeval's judge, ``--judge``) answers the picture's original question from the render.

Protocol of ``CSU-JPG/VCode`` (commits in docs/suites/vcode.md):

* **Prompt** (``img2svg.py`` ``quick_generate_svg``): one user message, the picture first (a data
  URL, MIME from the file's extension), then :data:`PROMPT` word for word.
* **Answer** (``clean_svg_output``, :func:`~.answers.clean_svg`).
* **Render** (``svg_render_img.py``): CairoSVG at 3 x the SVG's own size, no background; the
  picture shown to the judge and compared with SigLIP has its alpha dropped (``--set
  background=drop``, released: transparent pixels keep their stored colour, black) or composited
  on white (``white``, corrected). A render over :data:`MAX_SIDE` px a side is a
  ``render:size`` failure (ours; the release draws any size).
* **Metrics**: ``success_rate`` (100 for a rendered answer, else 0: ``metrics.py:88-93``),
  ``tokens`` (tiktoken ``cl100k_base`` of every cleaned SVG, ``metrics.py:129-160``),
  ``siglip`` (SigLIP 2 so400m pooled image cosine of picture and render, ``metrics.py:69-122``;
  failures left out as released, ``siglip_all`` counts them as 0), ``codevqa`` per benchmark
  (released reading: a missing render is wrong everywhere, MM-Vet's grade file scoring it 0)
  and ``codevqa_all`` (ours: an unparseable grade is a counted judge failure, an unreadable MMMU
  option is wrong).
"""

from __future__ import annotations

import base64
import functools
import mimetypes
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
from lxml import etree
from numpy.typing import NDArray

from svgeval.messages import Message, png_bytes, png_data_url
from svgeval.metrics.presets import get_preset, variant
from svgeval.metrics.registry import MetricInfo, describe_metric
from svgeval.metrics.siglip import siglip_image_score
from svgeval.metrics.tokens import token_counts
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.svg.extract import Extraction
from svgeval.tasks import register_task
from svgeval.tasks.aggregate import Aggregate, mean_per_group, with_pooled_group
from svgeval.tasks.base import BatchItem, MetricContext, Sample, Task, render_extracted
from svgeval.tasks.common import TwoReadings
from svgeval.tasks.common.drawing import draw_pictures
from svgeval.tasks.download import DataUnavailable
from svgeval.tasks.judge import JudgeRequest
from svgeval.tasks.outcome import Failure, FailureKind, MetricValues, Outcome
from svgeval.tasks.vcode import answers, data

PROMPT = """Convert this image to SVG code. Follow these rules:

CRITICAL REQUIREMENTS:
- Output only pure SVG code, no markdown blocks or explanations  
- Start with <svg viewBox="..." xmlns="http://www.w3.org/2000/svg"> and end with </svg>
- Use only native SVG elements (no external images or links)
- Include viewBox to ensure all elements are visible and auto-scale properly
- Calculate appropriate viewBox dimensions to contain all content with some padding

Generate the SVG now:"""
SCALE = 3.0
"""``cairosvg.svg2png(url=..., scale=3.0)``."""
MAX_SIDE = 4096
FALLBACK_SIZE = (100.0, 100.0)
"""Ours: the size of an SVG with neither width/height nor a viewBox."""
_UNITS = {"": 1.0, "px": 1.0, "pt": 4 / 3, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54,
          "in": 96.0}
KEYS = ("codevqa", "codevqa_all")
SIGLIP = TwoReadings(suffix="_all", paper="left_out", other="worst", worst={"siglip": 0.0})
PRESET = variant(
    "vcode",
    description="VCode evaluation/metrics.py + CodeVQA: SigLIP 2 so400m pooled image cosine "
    "(alpha dropped), success rate, tiktoken cl100k_base tokens, VQA on the render",
    metrics=("codevqa", "siglip_image", "success_rate", "token_count"),
    siglip_model="google/siglip2-so400m-patch14-384",
    background="drop",
).name

describe_metric(MetricInfo(
    name="codevqa", summary="a fixed vision model's answer to the picture's original question, "
    "asked about the render of the SVG, graded by the benchmark's rule (MM-Vet: GPT grade "
    "x 100; CV-Bench, MMMU: 100 right, 0 wrong)", value_range="[0, 100]",
    higher_is_better=True, source="VCode (CSU-JPG/VCode) evaluation/{mm-vet,cv-bench,mmmu}"))
describe_metric(MetricInfo(
    name="success_rate", summary="100 when the answer yields an SVG that renders, else 0 "
    "(VCode: generated pictures / reference pictures)", value_range="[0, 100]",
    higher_is_better=True, source="VCode (CSU-JPG/VCode) evaluation/metrics.py:88-93"))


def _length(text: str | None) -> float | None:
    number = (text or "").strip().lower()
    unit = next((u for u in _UNITS if u and number.endswith(u)), "")
    try:
        value = float(number.removesuffix(unit)) * _UNITS[unit]
    except ValueError:
        return None
    return value if value > 0 and np.isfinite(value) else None


def render_size(svg: str) -> tuple[int, int]:
    """3 x the SVG's own size: ``width``/``height`` (absolute units at 96 dpi), else the
    ``viewBox`` size, else :data:`FALLBACK_SIZE`."""
    try:
        root = etree.fromstring(svg.encode("utf-8"), etree.XMLParser(
            resolve_entities=False, no_network=True))
    except (etree.XMLSyntaxError, ValueError):
        root = None
    width, height = (_length(root.get("width")), _length(root.get("height"))) if (
        root is not None) else (None, None)
    box = (root.get("viewBox") or "").replace(",", " ").split() if root is not None else []
    if (width is None or height is None) and len(box) == 4:
        try:
            width, height = width or float(box[2]), height or float(box[3])
        except ValueError:
            pass
    if not width or not height:
        width, height = FALLBACK_SIZE
    return max(1, round(width * SCALE)), max(1, round(height * SCALE))


def render_spec(svg: str) -> RenderSpec:
    """How VCode draws an SVG: at :func:`render_size`, RGBA."""
    width, height = render_size(svg)
    return RenderSpec(width, height, background=None)


def drawable(spec: RenderSpec) -> RenderSpec | None:
    """``spec``, or None when it is over :data:`MAX_SIDE` px a side (a render failure)."""
    return None if max(spec.width, spec.height) > MAX_SIDE else spec


def shown(picture: NDArray[Any], background: str) -> NDArray[np.uint8]:
    """What VCode's readers see of an RGBA picture: alpha dropped, or composited on white."""
    pixels = np.asarray(np.rint(np.clip(picture, 0, 1) * 255) if picture.dtype != np.uint8
                        else picture).astype(np.uint8)
    if pixels.shape[-1] == 3 or background == "drop":
        return np.ascontiguousarray(pixels[..., :3])
    alpha = pixels[..., 3:4].astype(np.float64) / 255.0
    return np.rint(pixels[..., :3] * alpha + 255.0 * (1 - alpha)).astype(np.uint8)


def load_picture(path: str, background: str) -> NDArray[np.uint8]:
    """The reference picture as ``load_image`` reads it (RGB), or on white."""
    from PIL import Image

    with Image.open(path) as image:
        return shown(np.asarray(image.convert("RGBA")), background)


def file_part(path: Path) -> dict[str, Any]:
    """The picture file as an image part, its MIME from the extension (default PNG)."""
    mime = mimetypes.guess_type(path.name)[0] or "image/png"
    url = f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"
    return {"type": "image_url", "image_url": {"url": url}}


def oracle_svg(path: Path) -> str:
    """An SVG that draws the picture at a third of its size (3 x gives it back)."""
    from PIL import Image

    with Image.open(path) as image:
        width, height = image.size
    href = file_part(path)["image_url"]["url"]
    w, h = width / SCALE, height / SCALE
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:g}" height="{h:g}" '
            f'viewBox="0 0 {width} {height}"><image width="{width}" height="{height}" '
            f'href="{href}"/></svg>')


@dataclass(frozen=True)
class VCodeOptions:
    """``--set`` options of the VCode tasks."""

    background: Literal["drop", "white"] = field(default="drop", metadata={
        "help": "transparent render pixels: drop (released: alpha discarded) or white"})
    answer_from: Literal["render", "original"] = field(default="render", metadata={
        "help": "what the VQA model sees: the render, or the original picture (upper bound)"})
    tokenizer: str = field(default="tiktoken:cl100k_base", metadata={
        "help": "token counts (tiktoken:cl100k_base as released, or a hub tokenizer)"})


class VCodeTask(Task[data.TargetT]):
    """Base of the three VCode tasks; a benchmark adds its items and CodeVQA requests."""

    suite: ClassVar[str] = "VCode"
    suite_source: ClassVar[str] = "CSU-JPG/VCode data/ + evaluation/metrics.py, evaluation/*"
    preset: ClassVar[str] = PRESET
    Options: ClassVar[type[Any]] = VCodeOptions
    metrics: ClassVar[Mapping[str, str]] = {
        **dict.fromkeys(KEYS, "codevqa"), **SIGLIP.keys({"siglip": "siglip_image"}),
        "success_rate": "success_rate", "tokens": "token_count"}
    judge_metrics: ClassVar[tuple[str, ...]] = KEYS
    judge_sees_images = True
    batched_metrics = ("siglip",)
    degenerate: ClassVar[Mapping[str, frozenset[str]]] = {"hostile": frozenset({"tokens"})}
    """``tokens`` measures the length of the code, not whether it draws the picture: the
    oracle's answer embeds the picture as base64 PNG (thousands of tokens), while every hostile
    SVG is counted too (it is cleaned up, then fails to render) and is shorter; the billion
    laughs, cut to its ``<svg>`` element by the clean-up, is 50 tokens, less than the oracle's
    wrapper alone. So a hostile answer has fewer tokens than the oracle on any data."""

    def items(self) -> list[data.Item[data.TargetT]]:
        raise NotImplementedError

    def load(self) -> list[Sample[data.TargetT]]:
        samples = []
        for item in self.items():
            if not item.image.is_file():
                raise DataUnavailable(f"{item.id}: no picture {item.image}")
            messages = [{"role": "user", "content": [file_part(item.image),
                                                      {"type": "text", "text": PROMPT}]}]
            samples.append(Sample(id=item.id, group=item.group, messages=messages,
                                  reference=oracle_svg(item.image), expected=item.target.answer,
                                  target=item.target))
        return samples

    def draw(self, sample: Sample[data.TargetT], svg: str | None,
             renderer: Renderer) -> tuple[Outcome, NDArray[Any] | None]:
        """The outcome holding the cleaned answer and its render at 3 x (RGBA), or the
        failure."""
        extraction = Extraction(svg, "vcode", None if svg else "no <svg ...</svg> after "
                                "VCode's clean-up")
        spec = render_spec(svg or "")
        if svg is not None and drawable(spec) is None:
            score = Outcome.of(sample, extracted=svg, extraction_rule="vcode", failure=Failure(
                kind=FailureKind.RENDER, reason="size",
                detail=f"{spec.width} x {spec.height} px at 3 x is over {MAX_SIDE} px a side"))
            return score, None
        return render_extracted(sample, extraction, renderer, spec)

    def score(self, sample: Sample[data.TargetT], response: str, renderer: Renderer) -> Outcome:
        svg = answers.clean_svg(response)
        score, picture = self.draw(sample, svg, renderer)
        score.metrics["success_rate"] = 0.0 if picture is None else 100.0
        score.metrics["tokens"] = None
        if svg is not None:
            score.add_metric("tokens", lambda: float(
                token_counts([svg], tokenizer=self.options.tokenizer,
                             model_settings=self.common.model_settings())[0]))
        background = self.options.background
        if self.options.answer_from == "original":
            picture = load_picture(sample.target.image, "drop")
        if picture is None:
            # wrong in every benchmark: MM-Vet's grade file gives a missing render 0
            # ("no prediction") and its total divides by every question
            score.metrics.update(codevqa=0.0, codevqa_all=0.0)
            return score
        for request in self.codevqa(sample, png_bytes(shown(picture, background))):
            score.ask_judge(request)
        return score

    def codevqa(self, sample: Sample[data.TargetT], png: bytes) -> list[JudgeRequest]:
        """The judge requests of both readings (``codevqa``, ``codevqa_all``)."""
        raise NotImplementedError

    def batch_score(self, items: Sequence[BatchItem[data.TargetT]],
                    context: MetricContext) -> list[MetricValues]:
        background = self.options.background
        pictures = draw_pictures([item.output_svg for item in items],
                                 lambda svg: drawable(render_spec(svg)), context.renderer)
        valid = [p is not None for p in pictures]
        pairs = [(load_picture(item.sample.target.image, background),
                  shown(picture.pixels, background))
                 for item, picture in zip(items, pictures) if picture is not None]
        preset = get_preset(PRESET)

        def similarities() -> list[float]:
            found = iter(siglip_image_score([a for a, _ in pairs], [b for _, b in pairs],
                                            preset=preset, **context.keywords())
                         if pairs else [])
            return [next(found) if ok else 0.0 for ok in valid]

        scores = [MetricValues() for _ in items]
        SIGLIP.put_batch(scores, valid, "siglip", similarities)
        return scores

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        return mean_per_group(outcomes, judged=KEYS)


def image_first(png: bytes, text: str) -> list[Message]:
    """One user message: the picture, then the text (CV-Bench's and MMMU's order)."""
    return [{"role": "user", "content": [{"type": "image_url", "image_url": {
        "url": png_data_url(png)}}, {"type": "text", "text": text}]}]


def percent(right: bool) -> float:
    return 100.0 if right else 0.0


@register_task
class VCodeMMVet(VCodeTask[data.MMVetTarget]):
    """MM-Vet: the answer graded by lmms-eval's MM-Vet grader (0-1, x 100)."""

    name = "vcode-mmvet"
    description = "VCode on MM-Vet: picture -> SVG, VQA on the render graded by GPT (x100)"
    def items(self) -> list[data.Item[data.MMVetTarget]]:
        return data.mmvet_items(self.common.data)

    def codevqa(self, sample: Sample[data.MMVetTarget], png: bytes) -> list[JudgeRequest]:
        question, gold = sample.target.question, sample.target.answer
        ask: list[Message] = [{"role": "system", "content": "You are a helpful assistant."},
               {"role": "user", "content": [
                   {"type": "text", "text": answers.MMVET_ASK + question},
                   {"type": "image_url", "image_url": {"url": png_data_url(png)}}]}]

        def grade(key: str, checked: bool) -> JudgeRequest:
            def parse(reply: str) -> float | None:
                value = answers.mmvet_grade(reply)
                return 100.0 * value if value is not None else (None if checked else 0.0)

            return JudgeRequest(key, ask, lambda reply: None, temperature=0.2,
                                then=lambda answer: JudgeRequest(key, [{
                                    "role": "user", "content": answers.mmvet_grader_prompt(
                                        question, gold, answer)}], parse, temperature=0.0))

        return [grade("codevqa", False), grade("codevqa_all", True)]


@register_task
class VCodeCVBench(VCodeTask[data.CVBenchTarget]):
    """CV-Bench: option letter; accuracy per source, 2D = mean(ADE20K, COCO), 3D = Omni3D."""

    name = "vcode-cvbench"
    description = "VCode on CV-Bench: picture -> SVG, multiple-choice VQA on the render"

    def items(self) -> list[data.Item[data.CVBenchTarget]]:
        return data.cvbench_items(self.common.data)

    def codevqa(self, sample: Sample[data.CVBenchTarget], png: bytes) -> list[JudgeRequest]:
        prompt = answers.cvbench_prompt(sample.target.question, sample.target.choices)
        gold = sample.target.answer
        return [JudgeRequest(key, image_first(png, prompt),
                             lambda reply: percent(answers.cvbench_correct(reply, gold)))
                for key in KEYS]

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        """Per source; ``2D`` the mean of ADE20K and COCO, ``3D`` Omni3D, ``all`` their mean."""
        result = super().aggregate(outcomes)

        def mean(metric: str, *groups: str) -> float | None:
            found = [result.metrics.get(f"{g}/{metric}") for g in groups]
            present = [v for v in found if v is not None]
            return sum(present) / len(present) if len(present) == len(groups) else None

        for metric in {key.split("/", 1)[1] for key in result.metrics}:
            result.metrics[f"2D/{metric}"] = mean(metric, "ADE20K", "COCO")
            result.metrics[f"3D/{metric}"] = mean(metric, "Omni3D")
            result.metrics[f"all/{metric}"] = mean(metric, "2D", "3D")
        return result


@register_task
class VCodeMMMU(VCodeTask[data.MMMUTarget]):
    """MMMU: MMMU's prompts and answer rules; accuracy per subject and over all questions."""

    name = "vcode-mmmu"
    description = "VCode on MMMU (10 subjects): picture -> SVG, VQA on the render"

    def items(self) -> list[data.Item[data.MMMUTarget]]:
        return data.mmmu_items(self.common.data)

    def codevqa(self, sample: Sample[data.MMMUTarget], png: bytes) -> list[JudgeRequest]:
        target = sample.target
        kind, gold = str(target.question_type), target.answer
        prompt = answers.mmmu_prompt(target.question, kind, target.options or ())
        messages = image_first(png, prompt)
        if kind != "multiple-choice":
            right = functools.partial(answers.mmmu_open_correct, gold=gold)
            return [JudgeRequest(key, messages, lambda reply: percent(right(reply)))
                    for key in KEYS]
        choices, index2ans = list(target.all_choices or ()), dict(target.index2ans or {})

        def released(reply: str) -> float:
            rng = random.Random(sample.id)  # the release's random pick, made repeatable
            return percent(answers.mmmu_choice(reply, choices, index2ans, rng) == gold)

        return [JudgeRequest("codevqa", messages, released),
                JudgeRequest("codevqa_all", messages, lambda reply: percent(
                    answers.mmmu_choice(reply, choices, index2ans, None) == gold))]

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        """Per subject, and ``all``: over every question."""
        return with_pooled_group(outcomes, "all", judged=KEYS)
