"""StarVector SVG-Bench: image-to-SVG and text-to-SVG over the StarVector datasets.

Protocol of the released code (github.com/joanrod/star-vector at ``0e083c19``): the validator
(``starvector/validation/svg_validator_base.py``) takes the generated text as the SVG (no
extraction: StarVector models answer bare SVG, so a chat answer is scored as the placeholder),
passes it through ``post_process_svg`` (``:380-407``; :mod:`svgeval.render.repair`: as given when
svgpathtools reads it, else BeautifulSoup + CairoSVG, else the empty placeholder, drawn white),
renders the answer and the ground truth with ``rasterize_svg`` at 512 x 512 on white at
**100 dpi** (``:269-270``; a failed render becomes a white image) and hands the renders to
``starvector/metrics/metrics.py``. ``--set repair=none`` skips the repair chain and
``--set extract=auto`` reads the SVG out of a chat answer first (svgeval's lenient rule). ``configs/metrics/im2svg.yaml`` turns on
L2, LPIPS, SSIM and DINO; ``text2svg.yaml`` FID, FID-CLIP and CLIP score. Per sample:

* ``l2``: ``compute_l2.py``, ``mean((a - b)^2)`` of the [0, 1] RGB renders;
* ``masked_l2``: the same with pixels white in either render zeroed
  (:func:`~svgeval.metrics.pixel.masked_mse`; off in the released configs, reported here);
* ``ssim``: ``compute_SSIM.py``, scikit-image on uint8 RGB, window 11 (its ``sigma=1.5`` is
  unused without ``gaussian_weights``, so the window is uniform);
* ``lpips``: ``compute_LPIPS.py``, VGG LPIPS of ImageNet mean/std normalised inputs (LPIPS
  expects ``2x - 1``); ``lpips_standard`` is the correct reading. ``--set lpips=standard``
  swaps which one the ``lpips`` key holds;
* ``dino``: ``compute_dino_score.py``, DINOv2-base mean-pooled tokens, ``(cos + 1) / 2``;
* ``clip_score`` (text-to-SVG): ``compute_clip_score.py``, CLIP ViT-B/32, ``100 cos`` of the
  render and the caption, unclamped per sample; a caption over 77 tokens has its token ids cut
  at 77 as torchmetrics' ``_clip_score_update`` does, losing the end-of-text token
  (``--set clip_truncation=eot`` keeps it).

Per dataset (``<dataset>/fid``, ``<dataset>/clip_fid``): ``compute_fid.py`` between ground-truth
and answer renders (pytorch-fid Inception pool3; CLIP ViT-B/32 image features). The released
``FIDCalculator`` never calls ``.eval()`` (``compute_fid.py:25-30``), so its Inception normalises
each batch of 50 by that batch's statistics: the default here; ``--set fid=eval`` uses the
running statistics (pytorch-fid).

Two readings of every per-sample metric: ``<metric>`` is the released one (an answer with no
SVG or one that does not render is drawn white and counted) and ``<metric>_worst`` gives a
failed answer the metric's worst value (:data:`WORST`, ours).
"""

from __future__ import annotations

import functools
import random
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal

from svgeval.messages import Message, png_bytes, user_message
from svgeval.metrics.clip import clip_score
from svgeval.metrics.dino import dino
from svgeval.metrics.fid import clip_fid, fid
from svgeval.metrics.lpips import lpips
from svgeval.metrics.pixel import masked_mse, mse, ssim
from svgeval.metrics.presets import MetricPreset, get_preset, variant
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage, Picture
from svgeval.render.repair import repair
from svgeval.svg.extract import Extraction, extract_svg
from svgeval.tasks import register_task
from svgeval.tasks.base import BatchItem, MetricContext, Sample, distribution_metrics
from svgeval.tasks.common import CaptionedReference, Drawing, ImageGenerationTask, TwoReadings
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.outcome import MetricValues, Outcome
from svgeval.tasks.starvector.data import CAPTION_COLUMNS, BenchRow, load_rows

RENDER = RenderSpec.square(512, background="white", dpi=100)
"""``_save_svg_files``: ``rasterize_svg(svg, resolution=512, dpi=100, scale=1)``."""
AS_GIVEN = "starvector"
"""The ``extraction_rule`` of an answer scored as the model gave it (released)."""
INPUT = RenderSpec.square(384, background="white")
"""The image the model sees: the ground truth at the datasets' ``im_size`` of 384."""
LPIPS_SIZE: int | None = None
"""The released LPIPS runs on the 512 px renders as they are (tests shrink it)."""
PRESET = variant(
    "starvector",
    description="StarVector starvector/metrics: SVGenius' image metrics derive from it "
    "(LPIPS-VGG on ImageNet-normalised inputs, uniform 11 px SSIM, DINOv2-base, "
    "pytorch-fid Inception, CLIP ViT-B/32 for CLIP-FID), but its validator renders at "
    "512 px with no LPIPS resize and compute_clip_score.py uses CLIP ViT-B/32",
    metrics=("clip_fid", "clip_score", "dino", "fid", "lpips", "masked_mse", "mse", "ssim"),
    render_size=512,
    clip_model="openai/clip-vit-base-patch32",
    clip_truncation="cut",
    fid_batchnorm="train",
    lpips_size=None,
).name
WORST: Mapping[str, float] = {
    "l2": 1.0, "masked_l2": 1.0, "ssim": 0.0, "lpips": 1.0, "lpips_standard": 1.0, "dino": 0.0,
    "clip_score": 0.0,
}
"""The ``_worst`` value of a failed answer (ours): the bad end of each metric's usual range."""
READINGS = TwoReadings(suffix="_worst", paper="stand_in", other="worst", worst=WORST)
"""``<metric>``: a failed answer drawn white (released); ``<metric>_worst``: ours."""
IMAGE_PROMPT = ("Convert this image into SVG code that reproduces it exactly. "
                "Answer with the SVG code only.")
TEXT_PROMPT = "{caption}. Answer with the SVG code only."
CAPTION_PREFIXES = (
    "Draw an SVG of ", "Draw an SVG image of ", "Draw an SVG picture of ", "Generate an SVG of ",
    "Create an SVG of ", "Design an SVG of ", "Make an SVG of ",
)
"""``stacksvg.py:text2svg_captions``: one is drawn at random for each caption."""


def _readings(*names: str) -> dict[str, str]:
    metric = {"l2": "mse", "masked_l2": "masked_mse", "lpips_standard": "lpips"}
    return READINGS.keys({name: metric.get(name, name) for name in names})


@dataclass(frozen=True)
class StarVectorOptions:
    """``--set`` options of both SVG-Bench tasks."""

    split: Literal["test", "val", "train"] = field(default="test", metadata={"help": "split"})
    lpips: Literal["released", "standard"] = field(
        default="released", metadata={"help": "which LPIPS input convention the lpips key holds "
                                      "(both are reported: lpips, lpips_standard)"})
    fid: Literal["train", "eval"] = field(default="train", metadata={
        "help": "Inception batch norm: train (the released FIDCalculator) or eval (pytorch-fid)"})
    clip_truncation: Literal["cut", "eot"] = field(default="cut", metadata={
        "help": "captions over 77 tokens: cut (ids sliced, torchmetrics) or eot (end token kept)"})
    extract: Literal["released", "auto"] = field(
        default="released", metadata={"help": "released: the answer as given (a chat answer "
                                      "scores as the placeholder); auto: the SVG read out of it"})
    repair: Literal["released", "none"] = field(
        default="released", metadata={"help": "released: BeautifulSoup + CairoSVG repair of an "
                                      "answer svgpathtools cannot read; none: it fails, white"})


@dataclass(frozen=True)
class ImageOptions(StarVectorOptions):
    dataset: Literal[
        "svg-stack", "svg-fonts", "svg-icons", "svg-emoji", "svg-diagrams", "svg-stack-simple",
        "svg-fonts-simple", "svg-icons-simple", "svg-emoji-simple",
    ] = field(default="svg-stack", metadata={"help": "SVG-Bench dataset (starvector/<name>)"})


@dataclass(frozen=True)
class TextOptions(StarVectorOptions):
    dataset: Literal["text2svg-stack", "FIGR-SVG"] = field(
        default="text2svg-stack", metadata={"help": "SVG-Bench dataset (starvector/<name>)"})


def input_pngs(svgs: Sequence[str]) -> list[bytes | None]:
    """The 384 px renders the model is shown, drawn in the isolated renderer (None: failed)."""
    with Renderer(workers=min(4, len(svgs))) as renderer, ThreadPoolExecutor(4) as pool:
        drawn = list(pool.map(lambda svg: renderer.render(svg, INPUT), svgs))
    return [png_bytes(d.pixels) if isinstance(d, Picture) else None for d in drawn]


class StarVectorTask(ImageGenerationTask[CaptionedReference]):
    """Base of the two SVG-Bench tasks."""

    suite: ClassVar[str] = "StarVector SVG-Bench"
    suite_source: ClassVar[str] = ("starvector/* datasets (HF, SVG-Bench collection) + "
                                   "joanrod/star-vector starvector/metrics")
    preset: ClassVar[str] = PRESET
    Options = StarVectorOptions
    drawing = Drawing(RENDER, failed="white")
    set_metrics = ("fid", "clip_fid")

    def metric_preset(self) -> MetricPreset:
        """The preset with the run's ``fid`` and ``clip_truncation`` options."""
        return replace(get_preset(PRESET), fid_batchnorm=self.options.fid,
                       clip_truncation=self.options.clip_truncation)

    def metric_options(self, context: MetricContext) -> dict[str, Any]:
        return {**super().metric_options(context), "preset": self.metric_preset()}

    def load(self) -> list[Sample[CaptionedReference]]:
        rows = load_rows(self.common.data, self.options.dataset, self.options.split)
        return self.make_samples(rows)

    @abstractmethod
    def make_samples(self, rows: Sequence[BenchRow]) -> list[Sample[CaptionedReference]]:
        """One sample per row."""

    def sample(self, row: BenchRow, messages: list[Message],
               caption: str = "") -> Sample[CaptionedReference]:
        return Sample(id=row.id, group=self.options.dataset, messages=messages, reference=row.svg,
                      target=CaptionedReference(reference=row.svg, caption=caption))

    def extract(self, response: str) -> Extraction:
        """The answer as given (released), or the SVG read out of it (``--set extract=auto``)."""
        if self.options.extract == "auto":
            return extract_svg(response, "auto")
        if not response.strip():
            return Extraction(None, AS_GIVEN, "an empty answer")
        return Extraction(response, AS_GIVEN)

    def prepare(self, answer: Extraction, renderer: Renderer) -> Extraction:
        """The answer through the released repair chain (unless ``--set repair=none``)."""
        if self.options.repair == "released" and answer.svg is not None:
            return repair(answer.svg, answer.rule, renderer)
        return answer

    def score_picture(self, score: Outcome, sample: Sample[CaptionedReference],
                      answer: Extraction, picture: FloatImage | None, reference: FloatImage,
                      renderer: Renderer) -> None:
        """The per-sample pixel metrics (none for text-to-SVG)."""

    def set_score(self, groups: Mapping[str, Sequence[BatchItem[CaptionedReference]]],
                  context: MetricContext) -> MetricValues:
        """FID and CLIP-FID per dataset, over every sample (a failure drawn white, released)."""
        score = MetricValues()
        for group, items in groups.items():
            drawn = self.drawn_group(items, context.renderer)
            distribution_metrics(score, f"{group}/{{}}", {"fid": fid, "clip_fid": clip_fid},
                                 drawn.references, drawn.outputs, preset=self.metric_preset(),
                                 **context.keywords())
        return score


@register_task
class StarVectorImg2Svg(StarVectorTask):
    """Image -> SVG: the model sees the ground truth's render and redraws it."""

    name = "starvector-img2svg"
    description = ("StarVector SVG-Bench image-to-SVG: L2, masked L2, SSIM, LPIPS, DINO, FID, "
                   "CLIP-FID (--set dataset=svg-icons|svg-emoji|svg-fonts|...)")
    Options = ImageOptions
    batched_metrics = ("lpips", "lpips_standard", "dino")
    metrics: ClassVar[Mapping[str, str]] = {
        **_readings("l2", "masked_l2", "ssim", "lpips", "lpips_standard", "dino"),
        "fid": "fid", "clip_fid": "clip_fid"}
    degenerate: ClassVar[Mapping[str, frozenset[str]]] = {
        "empty": frozenset({"masked_l2"}), "hostile": frozenset({"masked_l2"})}
    """The released Masked-L2 zeroes every pixel white in either render, and a failed answer is
    drawn as the white placeholder: all its pixels are masked, so it scores 0, the best value,
    as the oracle does, on any data (``masked_l2_worst`` tells them apart)."""

    def make_samples(self, rows: Sequence[BenchRow]) -> list[Sample[CaptionedReference]]:
        pngs = input_pngs([row.svg for row in rows])
        return [self.sample(row, user_message(IMAGE_PROMPT, [png] if png else []))
                for row, png in zip(rows, pngs)]

    def score_picture(self, score: Outcome, sample: Sample[CaptionedReference],
                      answer: Extraction, picture: FloatImage | None, reference: FloatImage,
                      renderer: Renderer) -> None:
        drawn = self.drawing.stand_in(picture)
        for name, metric in (("l2", mse), ("masked_l2", masked_mse)):
            READINGS.put(score, name, metric(drawn, reference), picture is not None)
        READINGS.put(score, "ssim", ssim(drawn, reference, preset=PRESET), picture is not None)

    def batch_score(self, items: Sequence[BatchItem[CaptionedReference]],
                    context: MetricContext) -> list[MetricValues]:
        drawn = self.drawn(items, context.renderer)
        outputs, references = drawn.outputs, drawn.references
        options = self.metric_options(context)
        scores = [MetricValues() for _ in items]
        modes = ("imagenet", "standard")
        if self.options.lpips == "standard":
            modes = ("standard", "imagenet")
        for name, mode in zip(("lpips", "lpips_standard"), modes):
            READINGS.put_batch(scores, drawn.valid, name, functools.partial(
                lpips, outputs, references, normalization=mode, size=LPIPS_SIZE, **options))
        READINGS.put_batch(scores, drawn.valid, "dino",
                           lambda: dino(outputs, references, **options))
        return scores


@register_task
class StarVectorText2Svg(StarVectorTask):
    """Caption -> SVG; the caption is a released prefix plus one caption column, drawn at
    random per sample as ``stacksvg.py`` does, seeded by ``--seed`` (the release is unseeded)."""

    name = "starvector-text2svg"
    description = ("StarVector SVG-Bench text-to-SVG: CLIP score, FID, CLIP-FID "
                   "(--set dataset=text2svg-stack|FIGR-SVG)")
    Options = TextOptions
    batched_metrics = ("clip_score",)
    metrics: ClassVar[Mapping[str, str]] = {
        **_readings("clip_score"), "fid": "fid", "clip_fid": "clip_fid"}

    def make_samples(self, rows: Sequence[BenchRow]) -> list[Sample[CaptionedReference]]:
        rng = random.Random(self.common.seed)
        samples = []
        for row in rows:
            if not row.captions:
                raise MalformedData(f"{row.id}: no caption column ({', '.join(CAPTION_COLUMNS)})")
            column = rng.choice(sorted(row.captions))
            caption = rng.choice(CAPTION_PREFIXES) + row.captions[column]
            samples.append(self.sample(row, user_message(TEXT_PROMPT.format(caption=caption)),
                                       caption))
        return samples

    def batch_score(self, items: Sequence[BatchItem[CaptionedReference]],
                    context: MetricContext) -> list[MetricValues]:
        drawn = self.drawn(items, context.renderer)
        captions = [item.sample.target.caption for item in items]
        scores = [MetricValues() for _ in items]
        READINGS.put_batch(scores, drawn.valid, "clip_score", lambda: clip_score(
            drawn.outputs, captions, **self.metric_options(context)))
        return scores
