"""MMSVGBench (OmniSVG, Yang et al. 2025): text-to-SVG and image-to-SVG, icon and illustration.

Protocol of the released scripts (``OmniSVG/OmniSVG`` ``metrics/compute_*.py``, read at
``f2e033e``), the ``omnisvg`` preset. An answer is rendered with CairoSVG at 1024 x 1024 on
white (``inference.py:505-522``, ``config.yaml`` ``render_size``; ``--set render_size=N``).

* text-to-SVG: ``clip_score`` (``compute_clip.py``: CLIP ViT-B/32, raw cosine of the render and
  the prompt), ``aesthetic`` (``compute_aesthetic.py``: LAION improved predictor on CLIP
  ViT-L/14), ``hps`` (``compute_hps.py``: HPS **v2.0**, ``--set hps_version=v2.1``), ``fid`` per
  group (``compute_fid.py``: torchvision's Inception v3, epsilon always on the covariance
  diagonals, against a 3 % sample of MMSVG-Icon / -Illustration drawn with seed 42);
* image-to-SVG (``compute_ssim_lpips_mse.py``, ``compute_dion.py``): the render resized to the
  bench picture's size (OpenCV bilinear), both composited on white: ``mse`` on [0, 1] floats,
  ``ssim`` (scikit-image defaults: uniform 7 x 7 window), ``lpips`` (AlexNet, ``2x - 1``
  inputs), ``dino`` (DINOv2-base mean-pooled tokens, ``(cos + 1) / 2``);
* both: ``tokens`` (``count_token.py``: Qwen2.5-VL-3B tokenizer).

The released scripts score the files that exist: a failed answer has no render and is left out
of every metric. ``<metric>`` is that reading; ``<metric>_all`` draws a failure as a white
canvas and counts it (ours; ``fid_all`` likewise). ``all/<metric>`` is the mean of the icon
and illustration means. See docs/suites/mmsvgbench.md for the defects and their options.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from svgeval.messages import png_bytes, user_message
from svgeval.metrics.clip import aesthetic, clip_score
from svgeval.metrics.dino import dino
from svgeval.metrics.fid import TORCHVISION_WEIGHTS, inception_features
from svgeval.metrics.frechet import fid_from_features
from svgeval.metrics.hps import hps
from svgeval.metrics.lpips import lpips
from svgeval.metrics.pixel import mse, ssim
from svgeval.metrics.presets import MetricPreset, get_preset, variant
from svgeval.metrics.registry import MetricUnavailable
from svgeval.metrics.tokens import token_counts
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage
from svgeval.svg.extract import extract_svg
from svgeval.tasks import register_task
from svgeval.tasks.aggregate import Aggregate
from svgeval.tasks.base import (
    BatchItem,
    MetricContext,
    Sample,
    Target,
    TargetT,
    Task,
    render_extracted,
)
from svgeval.tasks.common import Drawing, TwoReadings
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import DataUnavailable
from svgeval.tasks.mmsvgbench import data
from svgeval.tasks.outcome import MetricValues, Outcome

PRESET = variant(
    "omnisvg",
    description="OmniSVG metrics/compute_*.py (MMSVGBench): CLIP ViT-B/32 raw cosine, LAION "
    "aesthetic on ViT-L/14, HPS v2.0, torchvision Inception FID with epsilon always and a 3 % "
    "seed-42 reference sample, DINOv2-base, LPIPS-Alex on 2x-1 inputs, uniform 7 px SSIM, "
    "1024 px renders on white",
    metrics=("aesthetic", "clip_score", "dino", "fid", "hps", "lpips", "mse",
             "sample_count", "ssim", "token_count"),
    render_size=1024,
    clip_model="openai/clip-vit-base-patch32",
    clip_scale=1.0,
    clip_clamp_zero=False,
    lpips_net="alex",
    lpips_input="standard",
    lpips_size=None,
    ssim_window=7,
    ssim_gaussian=False,
    fid_network="torchvision",
    fid_model=TORCHVISION_WEIGHTS,
    fid_frechet="omnisvg",
    fid_reference_fraction=0.03,
    fid_reference_seed=42,
    hps_version="v2.0",
    background="white",
).name
TOKENIZER = "Qwen/Qwen2.5-VL-3B-Instruct"
"""``count_token.py:6-9``."""
SYSTEM = ("You are an expert SVG code generator. \n"
          "Generate precise, valid SVG path commands that accurately represent the described "
          "scene or object.\n"
          "Focus on capturing key shapes, spatial relationships, and visual composition.")
"""``inference.py:39-41``, word for word (the space after ``generator.`` included)."""
TEXT_PROMPT = ("Generate an SVG illustration for: {prompt}\n        \nRequirements:\n"
               "- Create complete SVG path commands\n- Include proper coordinates and colors\n"
               "- Maintain visual clarity and composition")
"""``inference.py:476-481`` (the blank line is the f-string's 8 spaces of indentation)."""
IMAGE_PROMPT = "Generate SVG code that accurately represents this image:"
"""``inference.py:492-495``: this text, then the picture."""
READINGS = TwoReadings(suffix="_all", paper="left_out", other="stand_in")
"""``<metric>``: failures left out (released); ``<metric>_all``: drawn white and counted."""
GROUPS = ("icon", "illustration")


@dataclass(frozen=True)
class MMSVGBenchOptions:
    """``--set`` options of both MMSVGBench tasks."""

    render_size: int = field(default=1024, metadata={"help": "square render size (config.yaml)"})
    extract: str = field(default="auto", metadata={"help": "answer extraction rule"})
    tokenizer: str = field(default=TOKENIZER, metadata={"help": "tokenizer of the token counts"})


@dataclass(frozen=True)
class TextOptions(MMSVGBenchOptions):
    hps_version: Literal["v2.0", "v2.1"] = field(
        default="v2.0", metadata={"help": "HPS checkpoint (compute_hps.py default v2.0)"})
    hps_tokenizer: str = field(default="laion/CLIP-ViT-H-14-laion2B-s32B-b79K",
                               metadata={"help": "CLIP tokenizer of HPS (hub id or folder)"})
    fid_reference: str = field(default="mmsvg", metadata={
        "help": "mmsvg (OmniSVG/MMSVG-Icon|-Illustration train), bench (the rows' svg column) "
                "or a folder of pictures or parquet shards (with icon/ illustration/ inside)"})
    fid_sample: float | None = field(default=None, metadata={
        "help": "share of the references to sample (default 0.03 of parquet/hub references, "
                "all of a picture folder)"})
    fid_seed: int = field(default=42, metadata={"help": "seed of that sample (released 42)"})
    fid_background: Literal["white", "black", "drop"] = field(default="white", metadata={
        "help": "transparent reference pixels: white (corrected), drop (released convert('RGB'))"})


def bilinear_matrix(n_in: int, n_out: int) -> NDArray[np.float64]:
    """(n_out, n_in) weights of OpenCV's ``INTER_LINEAR`` along one axis: half-pixel centres,
    ``src = (dst + 0.5) n_in / n_out - 0.5`` clamped to the edge, no antialiasing."""
    src = np.clip((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0, n_in - 1)
    lo = np.floor(src).astype(np.int64)
    hi = np.minimum(lo + 1, n_in - 1)
    frac = src - lo
    weights = np.zeros((n_out, n_in))
    np.add.at(weights, (np.arange(n_out), lo), 1.0 - frac)
    np.add.at(weights, (np.arange(n_out), hi), frac)
    return weights


def resize_to(picture: FloatImage, shape: tuple[int, ...]) -> FloatImage:
    """``cv2.resize(generated, (w, h))`` of the 8-bit render (``compute_ssim_lpips_mse.py:141``),
    rounded back to 8 bits, as [0, 1] floats."""
    if picture.shape[:2] == shape[:2]:
        return picture
    rows, cols = bilinear_matrix(picture.shape[0], shape[0]), bilinear_matrix(picture.shape[1], shape[1])
    pixels = np.rint(picture * 255.0)
    # contracted a pair at a time (optimize): one three-operand sum costs side^4 per channel
    out = np.einsum("ij,jkc,lk->ilc", rows, pixels, cols, optimize=True)
    return np.asarray(np.clip(np.rint(out), 0, 255) / 255.0, np.float64)


def on_white(rgba: NDArray[np.uint8]) -> FloatImage:
    """``composite_on_background``: ``rgb a + 1 (1 - a)`` on [0, 1] floats."""
    unit = rgba.astype(np.float64) / 255.0
    alpha = unit[..., 3:4]
    return np.asarray(unit[..., :3] * alpha + (1.0 - alpha))


def embedded_svg(picture: bytes, width: int, height: int) -> str:
    """An SVG that draws ``picture`` (what the oracle answers when the row has no SVG)."""
    url = "data:image/png;base64," + base64.b64encode(picture).decode("ascii")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}"><image width="{width}" height="{height}" '
            f'href="{url}"/></svg>')


class PromptTarget(Target):
    """What a text-to-SVG answer is scored with: its prompt, and the row's SVG if it has one."""

    prompt: str
    """The row's text (CLIP's and HPS' text)."""
    svg: str
    """The row's SVG, empty when it has none (FID's references with ``fid_reference=bench``)."""


class PictureTarget(Target):
    """What an image-to-SVG answer is compared with: the bench picture."""

    picture: str
    """The picture composited on white, as base64 PNG (the PNG the model is shown)."""


class MMSVGBenchTask(Task[TargetT]):
    """Base of the two MMSVGBench tasks."""

    suite: ClassVar[str] = "MMSVGBench"
    suite_source: ClassVar[str] = "OmniSVG/MMSVGBench (HF) + OmniSVG/OmniSVG metrics/compute_*.py"
    preset: ClassVar[str] = PRESET
    Options: ClassVar[type[Any]] = MMSVGBenchOptions
    kind: ClassVar[str]

    def load(self) -> list[Sample[TargetT]]:
        return [self.make_sample(row) for row in data.load_rows(self.common.data, self.kind)]

    def make_sample(self, row: data.BenchRow) -> Sample[TargetT]:
        """One sample of a bench row."""
        raise NotImplementedError

    @functools.cached_property
    def drawing(self) -> Drawing:
        return Drawing(RenderSpec.square(self.options.render_size, background="white"))

    def metric_preset(self) -> MetricPreset:
        """The ``omnisvg`` preset with the options that change it."""
        return get_preset(PRESET)

    def score(self, sample: Sample[TargetT], response: str, renderer: Renderer) -> Outcome:
        extraction = extract_svg(response, self.options.extract)
        score, picture = render_extracted(sample, extraction, renderer, self.drawing.spec)
        score.metrics["tokens"] = None
        svg = extraction.svg
        if picture is not None and svg is not None:
            score.add_metric("tokens", lambda: float(
                token_counts([svg], tokenizer=self.options.tokenizer,
                             model_settings=self.common.model_settings())[0]))
        self.score_picture(score, sample, picture)
        return score

    def score_picture(self, score: Outcome, sample: Sample[TargetT],
                      picture: FloatImage | None) -> None:
        """Per-sample pixel metrics (none for text-to-SVG)."""

    def options_of(self, context: MetricContext) -> dict[str, Any]:
        return {"preset": self.metric_preset(), **context.keywords()}

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        """Per group, and ``all/<metric>``: the mean of the two groups' means."""
        result = super().aggregate(outcomes)
        for key in [k for k in result.metrics if k.split("/", 1)[0] in GROUPS]:
            metric = key.split("/", 1)[1]
            means = [result.metrics.get(f"{g}/{metric}") for g in GROUPS]
            present = [m for m in means if m is not None]
            result.metrics[f"all/{metric}"] = sum(present) / len(present) if present else None
        return result


@register_task
class MMSVGBenchText2Svg(MMSVGBenchTask[PromptTarget]):
    """Text -> SVG: OmniSVG's system and user messages."""

    name = "mmsvgbench-text2svg"
    kind = "text2svg"
    description = ("MMSVGBench text-to-SVG (icon, illustration): CLIP ViT-B/32, aesthetic, "
                   "HPS v2.0, FID against a seeded 3 % MMSVG sample, tokens")
    Options = TextOptions
    batched_metrics = ("clip_score", "aesthetic", "hps")
    set_metrics = ("fid", "fid_all", "fid_references")
    metrics: ClassVar[Mapping[str, str]] = {
        **READINGS.keys({"clip_score": "clip_score", "aesthetic": "aesthetic", "hps": "hps"}),
        "tokens": "token_count", "fid": "fid", "fid_all": "fid",
        "fid_references": "sample_count"}

    def make_sample(self, row: data.BenchRow) -> Sample[PromptTarget]:
        messages = [{"role": "system", "content": SYSTEM},
                    *user_message(TEXT_PROMPT.format(prompt=row.text))]
        return Sample(id=row.id, group=row.group, messages=messages, reference=row.svg,
                      target=PromptTarget(prompt=row.text, svg=row.svg))

    def metric_preset(self) -> MetricPreset:
        return replace(get_preset(PRESET), hps_version=self.options.hps_version,
                       background=self.options.fid_background)

    def batch_score(self, items: Sequence[BatchItem[PromptTarget]],
                    context: MetricContext) -> list[MetricValues]:
        pictures = self.drawing.render_all([item.output_svg for item in items], context.renderer)
        valid = [p is not None for p in pictures]
        drawn = [self.drawing.stand_in_pixels(p) for p in pictures]
        prompts = [item.sample.target.prompt for item in items]
        kw = self.options_of(context)
        scores = [MetricValues() for _ in items]
        READINGS.put_batch(scores, valid, "clip_score", lambda: clip_score(drawn, prompts, **kw))
        READINGS.put_batch(scores, valid, "aesthetic", lambda: aesthetic(drawn, **kw))
        READINGS.put_batch(scores, valid, "hps", lambda: hps(
            drawn, prompts, tokenizer=self.options.hps_tokenizer, **kw))
        return scores

    def set_score(self, groups: Mapping[str, Sequence[BatchItem[PromptTarget]]],
                  context: MetricContext) -> MetricValues:
        """FID per group: every rendered answer (``fid``) or every answer, a failure drawn
        white (``fid_all``), against the group's reference pictures."""
        score = MetricValues()
        kw = self.options_of(context)
        for group, items in groups.items():
            for key in ("fid", "fid_all", "fid_references"):
                score.metrics[f"{group}/{key}"] = None
            try:
                references = self.reference_features(group, items, context, kw)
                kept = self.drawing.render_kept([i.output_svg for i in items], context.renderer)
                rendered = self.drawing.unpacked([p for p in kept if p is not None])
                every = self.drawing.unpacked(kept)
                score.metrics[f"{group}/fid_references"] = float(len(references))
                for key, generated in (("fid", rendered), ("fid_all", every)):
                    if len(generated) >= 2 and len(references) >= 2:
                        features = inception_features(generated, **kw)
                        score.metrics[f"{group}/{key}"] = fid_from_features(
                            references, features, variant=kw["preset"].fid_frechet)
            except (MetricUnavailable, DataUnavailable, MalformedData) as error:
                score.not_computed.update(dict.fromkeys(("fid", "fid_all"), str(error)))
        return score

    def reference_features(self, group: str, items: Sequence[BatchItem[PromptTarget]],
                           context: MetricContext, kw: dict[str, Any]) -> NDArray[np.float64]:
        """Inception features of the group's FID references (see ``fid_reference``)."""
        source = self.options.fid_reference
        if source == "bench":
            svgs = [i.sample.target.svg for i in items if i.sample.target.svg]
            if not svgs:
                raise DataUnavailable("fid_reference=bench needs an svg column in the bench rows")
            kept = self.drawing.render_kept(svgs, context.renderer)
            return inception_features(self.drawing.unpacked([p for p in kept if p is not None]),
                                      **kw)
        from pathlib import Path

        folder = data.hub_folder(data.REFERENCE_HUB_IDS[group]) if source == "mmsvg" else Path(
            source).expanduser()
        fraction = self.options.fid_sample
        if fraction is None and (source == "mmsvg" or not data.has_pictures(folder, group)):
            fraction = kw["preset"].fid_reference_fraction
        _, chunks = data.reference_pictures(folder, group, fraction, self.options.fid_seed)
        parts = [inception_features(chunk, **kw) for chunk in chunks]
        return np.concatenate(parts) if parts else np.zeros((0, 2048))


@register_task
class MMSVGBenchImg2Svg(MMSVGBenchTask[PictureTarget]):
    """Image -> SVG: OmniSVG's messages with the bench picture (composited on white)."""

    name = "mmsvgbench-img2svg"
    kind = "img2svg"
    description = ("MMSVGBench image-to-SVG (icon, illustration): MSE, SSIM (7 px), "
                   "LPIPS-Alex, DINOv2, tokens")
    batched_metrics = ("lpips", "dino")
    metrics: ClassVar[Mapping[str, str]] = {
        **READINGS.keys({"mse": "mse", "ssim": "ssim", "lpips": "lpips", "dino": "dino"}),
        "tokens": "token_count"}

    def make_sample(self, row: data.BenchRow) -> Sample[PictureTarget]:
        try:
            truth = on_white(data.decode(row.picture))
        except Exception as error:  # noqa: BLE001 (PIL raises several kinds)
            raise MalformedData(f"{row.id}: its picture cannot be decoded ({error})") from None
        png = png_bytes(truth)
        height, width = truth.shape[:2]
        messages = [{"role": "system", "content": SYSTEM}, *user_message(IMAGE_PROMPT, [png])]
        return Sample(id=row.id, group=row.group, messages=messages,
                      reference=row.svg or embedded_svg(png, width, height),
                      target=PictureTarget(picture=base64.b64encode(png).decode("ascii")))

    def truth(self, sample: Sample[PictureTarget]) -> FloatImage:
        """The bench picture on white, [0, 1] floats."""
        return on_white(data.decode(base64.b64decode(sample.target.picture)))

    def score_picture(self, score: Outcome, sample: Sample[PictureTarget],
                      picture: FloatImage | None) -> None:
        truth = self.truth(sample)
        drawn = resize_to(self.drawing.stand_in(picture), truth.shape)
        READINGS.put(score, "mse", mse(drawn, truth), picture is not None)
        READINGS.put(score, "ssim", ssim(drawn, truth, preset=PRESET), picture is not None)

    def batch_score(self, items: Sequence[BatchItem[PictureTarget]],
                    context: MetricContext) -> list[MetricValues]:
        truths = [self.truth(item.sample) for item in items]
        pictures = [self.drawing.render(item.output_svg, context.renderer) for item in items]
        valid = [p is not None for p in pictures]
        drawn = [resize_to(self.drawing.stand_in(p), t.shape) for p, t in zip(pictures, truths)]
        kw = self.options_of(context)
        if len({t.shape for t in truths}) > 1:  # LPIPS stacks a batch: one size per batch
            kw = {**kw, "batch_size": 1}
        scores = [MetricValues() for _ in items]
        READINGS.put_batch(scores, valid, "lpips", lambda: lpips(drawn, truths, **kw))
        READINGS.put_batch(scores, valid, "dino", lambda: dino(drawn, truths, **kw))
        return scores
