"""SArena tasks scored by images: text-to-SVG, image-to-SVG and Icon editing.

An answer is extracted (:func:`~svgeval.tasks.sarena.common.extract_svg`), rendered at 448 x
448 on white (the released ``utils/raster_svg.py``: CairoSVG, ``background_color='white'``,
``output_width=output_height=448``) and compared with the ground-truth picture
``images/<id>.png`` (composited on white and read as RGB; resized to 448 px if it is another
size; when the file is absent, the ground-truth SVG rendered the same way).

Failures follow ``evaluate_gen.py`` / ``evaluate_edit.py``: an answer with no SVG, or one that
does not render, is drawn as the 448 px black picture ``example/pure_black.png`` and counted in
every image metric (FID included); its token count is left out. ``counts.<group>.n_valid / n``
is the released "success rate".

Metrics (the ``internsvg`` preset, :data:`~svgeval.tasks.sarena.common.PRESET`):

* image-to-SVG and editing (``use_DINO_Score``, ``use_LPIPS``, ``use_SSIM``, ``use_PSNR``):
  ``dino`` ((cos + 1) / 2 of mean-pooled DINOv2-base features), ``lpips`` (VGG on
  ImageNet-normalised inputs, as released), ``lpips_standard`` (LPIPS' own ``2x - 1`` input,
  the corrected reading), ``ssim`` (scikit-image, uniform 11 px window, 8-bit RGB), ``psnr``
  (8-bit, identical images capped at 100);
* text-to-SVG (``use_FID``, ``use_FID_C``, ``use_CLIP_Score_T2I``, ``use_CLIP_Score_I2I``):
  ``fid`` (pytorch-fid's Inception per group, its batch norm in train mode as InternSVG's
  ``metrics/FID.py`` runs it; ``--set fid=eval``: running statistics, pytorch-fid's and
  VLMEvalKit's FID), ``fid_c`` (Fréchet distance of CLIP ViT-B/32 embeddings, per group),
  ``clip_t2i`` (100 x cos of CLIP ViT-L/14 image and caption per sample, unclamped, caption
  token ids cut at 77 as torchmetrics' ``_clip_score_update`` does; ``--set clip_clamp=zero``
  clamps each sample at 0, ``--set clip_truncation=eot`` keeps the end-of-text token; Icon and
  Illustration only: chemistry has no captions) and ``clip_i2i`` (the same between the render
  and the ground-truth picture, clamped with ``clip_clamp=zero``);
* every kind: ``tokens``, the answer's token count (``use_token_length``, the mean of
  ``pred_tokens`` over rendered answers).
"""

from __future__ import annotations

import functools
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
from PIL import Image

from svgeval.messages import Message, user_message
from svgeval.metrics.clip import clip_image_score, clip_score
from svgeval.metrics.dino import dino
from svgeval.metrics.fid import clip_fid, fid
from svgeval.metrics.lpips import lpips
from svgeval.metrics.pixel import psnr, ssim
from svgeval.metrics.presets import MetricPreset
from svgeval.metrics.tokens import DEFAULT_TOKENIZER, token_counts
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage, RenderFailure
from svgeval.tasks.base import (
    BatchItem,
    MetricContext,
    Sample,
    Target,
    batch_values,
    distribution_metrics,
)
from svgeval.tasks.common import Drawing
from svgeval.tasks.download import DataUnavailable
from svgeval.tasks.lazy import LazySequence
from svgeval.tasks.outcome import Failure, FailureKind, MetricValues, Outcome
from svgeval.tasks.sarena import data
from svgeval.tasks.sarena.common import PRESET, SArenaOptions, SArenaTask, extract_svg
from svgeval.tasks.sarena.vlmevalkit import LEVEL1, LEVEL2

SIZE = 448
SPEC = RenderSpec.square(SIZE, background="white")

PIXEL_METRICS: Mapping[str, str] = {
    "dino": "dino", "lpips": "lpips", "lpips_standard": "lpips", "ssim": "ssim", "psnr": "psnr",
    "tokens": "token_count",
}
TEXT_METRICS: Mapping[str, str] = {
    "fid": "fid", "fid_c": "clip_fid", "clip_t2i": "clip_score", "clip_i2i": "clip_i2i",
    "tokens": "token_count",
}


def read_picture(path: Path, size: int | None = SIZE) -> FloatImage:
    """A ground-truth PNG as RGB floats in [0, 1]: alpha composited on white, resized
    (bilinear) to ``size`` px when it has another size (None: kept at its own size, as the
    released CLIP scores read it)."""
    with Image.open(path) as opened:
        rgba = opened.convert("RGBA")
    if size is not None and rgba.size != (size, size):
        rgba = rgba.resize((size, size), Image.Resampling.BILINEAR)
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    rgb = Image.alpha_composite(white, rgba).convert("RGB")
    return np.asarray(rgb, dtype=np.float64) / 255.0


@dataclass(frozen=True)
class ImageOptions(SArenaOptions):
    """``--set`` options of the tasks that answer with SVG code."""

    tokenizer: str = field(default=DEFAULT_TOKENIZER, metadata={
        "help": "tokenizer of the token counts (hub id or folder)"})


@dataclass(frozen=True)
class TextOptions(ImageOptions):
    """``--set`` options of text-to-SVG: the released reading of each model metric by default."""

    fid: Literal["train", "eval"] = field(default="train", metadata={
        "help": "Inception batch norm: train (InternSVG's FIDCalculator) or eval (pytorch-fid)"})
    clip_clamp: Literal["none", "zero"] = field(default="none", metadata={
        "help": "CLIP scores per sample: none (released) or zero (clamped at 0, Hessel et al.)"})
    clip_truncation: Literal["cut", "eot"] = field(default="cut", metadata={
        "help": "captions over 77 tokens: cut (ids sliced, torchmetrics) or eot (end token kept)"})
    clip_preprocess: Literal["svgeval", "released"] = field(default="svgeval", metadata={
        "help": "CLIP-I2I's ground truth: svgeval (read at 448 px, transformers' image "
        "processor) or released (the PNG at its own size, the PIL image processor)"})


class PictureTarget(Target):
    """What an answer is compared with: the ground truth's SVG and picture, and its caption."""

    answer: str
    """The ground-truth SVG (drawn when the release has no picture of it)."""
    picture: str
    """The ground-truth PNG's path; empty when the release has none."""
    caption: str
    """The picture's caption (``caption.jsonl``; CLIP-T2I's text), empty when it has none."""


class SArenaImageTask(SArenaTask[PictureTarget]):
    """Base of the tasks scored against a ground-truth picture."""

    Options: ClassVar[type[Any]] = ImageOptions
    drawing = Drawing(SPEC, failed="black")
    """An answer the released code could not render is scored as ``pure_black.png``."""

    kind: ClassVar[str]
    """``text2svg``, ``img2svg`` or ``edit``."""
    track: ClassVar[str] = "icon"
    """``icon``, ``illustration`` or ``chemistry`` (editing is the Icon track's)."""

    def vlmevalkit_files(self) -> Mapping[str, tuple[str, str]]:
        return {"": (LEVEL1[self.track], LEVEL2[self.kind])}

    @abstractmethod
    def task_files(self, folder: Path) -> list[tuple[str, Path, Path]]:
        """(group, jsonl file, ground-truth folder holding ``images/`` and ``svg/``)."""

    def load(self) -> list[Sample[PictureTarget]]:
        folder = data.root(self.common.data, self.options.subset)
        samples = []
        for group, path, truth in self.task_files(folder):
            captions = data.read_captions(path.parent / "caption.jsonl")
            for row in data.read_rows(path):
                samples.append(self.make_sample(group, path, truth, row, captions))
        return samples

    def make_sample(self, group: str, path: Path, truth: Path, row: data.SArenaRow,
                    captions: Mapping[str, str]) -> Sample[PictureTarget]:
        picture = truth / "images" / f"{row.id}.png"
        return Sample(
            id=f"{group}/{row.id}" if self.kind == "edit" else str(row.id),
            group=group,
            messages=self.messages(path, row),
            reference=row.answer,
            input_svg=self.input_svg(row),
            target=PictureTarget(answer=row.answer,
                                 picture=str(picture) if picture.is_file() else "",
                                 caption=captions.get(f"{row.id}.png", "")),
        )

    def messages(self, path: Path, row: data.SArenaRow) -> list[Message]:
        return user_message(row.prompt)

    def input_svg(self, row: data.SArenaRow) -> str | None:
        return None

    def metric_preset(self) -> MetricPreset:
        """The preset the model metrics run with: :data:`PRESET` and the run's options."""
        return PRESET

    def picture(self, sample: Sample[PictureTarget], renderer: Renderer) -> FloatImage | None:
        """The ground-truth picture (None when neither the PNG nor the SVG gives one); read
        when needed rather than kept (4.8 MB a picture)."""
        path = sample.target.picture
        if path:
            return read_picture(Path(path))
        drawn = renderer.render(sample.target.answer, SPEC)
        return None if isinstance(drawn, RenderFailure) else drawn.floats

    def score(self, sample: Sample[PictureTarget], response: str, renderer: Renderer) -> Outcome:
        truth = self.picture(sample, renderer)
        if truth is None:
            return Outcome.of(sample, failure=Failure(kind=FailureKind.REFERENCE, reason="render",
                                         detail="the ground-truth SVG does not render"))
        extraction = extract_svg(response, self.options.reading)
        score = Outcome.of(sample, extracted=extraction.svg, extraction_rule=extraction.rule)
        image = self.drawing.canvas
        if extraction.svg is None:
            score.failure = Failure(kind=FailureKind.EXTRACT, detail=extraction.error)
        else:
            drawn = renderer.render(extraction.svg, SPEC)
            if isinstance(drawn, RenderFailure):
                score.failure = Failure.of_render(drawn)
            else:
                image = drawn.floats
        if self.kind != "text2svg":
            score.metrics["ssim"] = ssim(image, truth, preset=PRESET)
            score.metrics["psnr"] = psnr(image, truth)
        score.metrics["tokens"] = None
        svg = extraction.svg
        if score.failure is None and svg is not None:
            score.add_metric("tokens", lambda: float(
                token_counts([svg], tokenizer=self.options.tokenizer,
                             model_settings=self.common.model_settings())[0]))
        return score

    def batch_score(self, items: Sequence[BatchItem[PictureTarget]],
                    context: MetricContext) -> list[MetricValues]:
        scores = [MetricValues() for _ in items]
        truths = [self.picture(item.sample, context.renderer) for item in items]
        outputs = self.drawing.draw_all([item.output_svg for item in items], context.renderer)
        references = [self.drawing.stand_in(truth) for truth in truths]
        options: dict[str, Any] = {"preset": self.metric_preset(), **context.keywords()}
        runs: dict[str, Any] = {}
        if self.kind == "text2svg":
            pictures = self.clip_pictures(items, references)
            runs["clip_i2i"] = lambda: clip_image_score(outputs, pictures, **options)
            if "clip_t2i" in self.batched_metrics:
                captions = [item.sample.target.caption for item in items]
                runs["clip_t2i"] = lambda: clip_score(outputs, captions, **options)
        else:
            runs["dino"] = lambda: dino(outputs, references, **options)
            runs["lpips"] = lambda: lpips(outputs, references, **options)
            runs["lpips_standard"] = functools.partial(
                lpips, outputs, references, normalization="standard", **options)
        for key, compute in runs.items():
            values = batch_values(scores, (key,), compute)
            for score, truth, value in zip(scores, truths, values):
                score.metrics[key] = value if truth is not None else None
        return scores

    def clip_pictures(self, items: Sequence[BatchItem[PictureTarget]],
                      references: list[FloatImage]) -> list[FloatImage]:
        """CLIP-I2I's ground truths: ``references`` (448 px), or under ``clip_preprocess=
        released`` each released PNG at its own size, as ``metrics/CLIP_Score.py`` hands it to
        the image processor (the others as in ``references``)."""
        if self.options.clip_preprocess != "released":
            return references
        return [read_picture(Path(item.sample.target.picture), size=None)
                if item.sample.target.picture else reference
                for item, reference in zip(items, references, strict=True)]

    def set_score(
        self, groups: Mapping[str, Sequence[BatchItem[PictureTarget]]], context: MetricContext
    ) -> MetricValues:
        """FID and FID-C per group over every sample (failures drawn black), text-to-SVG only."""
        score = MetricValues()
        if self.kind != "text2svg":
            return score
        for group, items in groups.items():
            # kept compressed, and the released PNGs read again when FID reads them: a group
            # held as pictures took 5.4 MiB a sample
            outputs = self.drawing.draw_kept([item.output_svg for item in items],
                                             context.renderer)
            references = LazySequence(list(items), lambda item: self.drawing.stand_in(
                self.picture(item.sample, context.renderer)))
            distribution_metrics(score, f"{group}/{{}}", {"fid": fid, "fid_c": clip_fid},
                                 references, outputs, preset=self.metric_preset(),
                                 **context.keywords())
        return score


class SArenaText2Svg(SArenaImageTask):
    """Text-to-SVG of one track."""

    kind = "text2svg"
    Options: ClassVar[type[Any]] = TextOptions
    metrics: ClassVar[Mapping[str, str]] = TEXT_METRICS
    batched_metrics: ClassVar[tuple[str, ...]] = ("clip_t2i", "clip_i2i")
    set_metrics = ("fid", "fid_c")

    def metric_preset(self) -> MetricPreset:
        return replace(PRESET, fid_batchnorm=self.options.fid,
                       clip_clamp_zero=self.options.clip_clamp == "zero",
                       clip_truncation=self.options.clip_truncation,
                       clip_image_backend=("pil" if self.options.clip_preprocess == "released"
                                           else "auto"))

    def task_files(self, folder: Path) -> list[tuple[str, Path, Path]]:
        path = data.task_file(folder, f"{data.TRACK_DIRS[self.track]}/text2svg.jsonl")
        return [(self.track, path, path.parent)]


class SArenaImg2Svg(SArenaImageTask):
    """Image-to-SVG of one track: the prompt turn followed by the line's picture."""

    kind = "img2svg"
    metrics: ClassVar[Mapping[str, str]] = PIXEL_METRICS
    batched_metrics = ("dino", "lpips", "lpips_standard")

    def task_files(self, folder: Path) -> list[tuple[str, Path, Path]]:
        path = data.task_file(folder, f"{data.TRACK_DIRS[self.track]}/img2svg.jsonl")
        return [(self.track, path, path.parent)]

    def messages(self, path: Path, row: data.SArenaRow) -> list[Message]:
        picture = path.parent / (row.image or f"images/{row.id}.png")
        if not picture.is_file():
            raise DataUnavailable(f"{path}: line id {row.id}: its image {picture} does not exist")
        return user_message(row.prompt, [picture.read_bytes()])
