"""SArena's animation track: text-to-animation and video-to-animation (InternSVG 77a891e,
``evaluate_animation.py``, ``metrics/video/``, ``metrics/inference/inference_animation.py``).

Data (``SArena.zip``, README "SArena Benchmark"): ``animation/text2sani.jsonl`` and
``animation/video2sani.jsonl`` (ShareGPT lines: ``id``, ``conversations``; video-to-animation
lines also ``video``, relative to the jsonl), ``animation/video/<id>.mp4`` (448 px ground-truth
videos), ``animation/svg/<id>.svg`` and ``animation/overall/`` (every ground-truth video at
128 px: FVD's real set).

Prompts: the first turn as it is; video-to-animation adds 8 frames of the input video
(``np.unique(np.round(np.linspace(0, T - 1, 8, dtype=int)))``) as JPEG data URLs of quality
100 after the text (``video_api.py:23-55``, encoded with OpenCV as there). An answer is the first
``<svg[^>]*>.*?</svg>`` (``inference_animation.py:60-64``), drawn by
:mod:`~svgeval.tasks.sarena.animation_video` as the released MP4.

Metrics (``evaluate_animation.py:80-101``, ``video_metrics.py:30-49``):

* text2sani: ``fvd`` (I3D, 16-frame windows at 128 px, population covariance; real set
  ``overall/``, ``--set fvd_reference=task``: the ground-truth videos of the same samples;
  one random window per video drawn from ``--seed``, ``--set fvd_window=first``: frames
  0-15), ``viclip_t2v`` and ``viclip_v2v`` (:mod:`svgeval.metrics.viclip`: 100 x cosine of the
  ViCLIP-L/14 features of the answer's 448 px video, 8 frames, and the caption, the text after
  ``Instruction: ``, or the ground-truth video ``video/<id>.mp4``), ``tokens``;
* video2sani: ``video_dino``, ``video_ssim``, ``video_lpips`` (released ImageNet
  normalisation), ``video_lpips_standard``, ``video_psnr`` over the 8 sampled frame pairs of
  the answer's and the ground-truth video, ``tokens``.

``tokens`` is the answer's token count when an SVG was extracted (``token_length.py``).
Failures (no SVG, a refused or failed render): the release means to score them as a black video
(``example/pure_black.mp4``, absent from its repository); that is the default,
``--set failure_video=black``; ``drop`` gives what the released code computes without the file
(the sample left out of every video metric; the released ViCLIP mean is NaN instead).
``counts.<group>.n_valid / n`` is the released success rate.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np

from svgeval.messages import Message
from svgeval.metrics.pixel import psnr, ssim
from svgeval.metrics.tokens import DEFAULT_TOKENIZER, token_counts
from svgeval.metrics.video import frame_scores, sample_frames
from svgeval.render.animation import at_once
from svgeval.render.isolated import Renderer
from svgeval.render.picture import Frames, RenderFailure
from svgeval.render.video import check_codec, decode_sampled
from svgeval.tasks import register_task
from svgeval.tasks.base import (
    BatchItem,
    CommonOptions,
    MetricContext,
    Sample,
    Target,
    batch_values,
)
from svgeval.tasks.data_files import MalformedData, read_jsonl_items
from svgeval.tasks.download import DataUnavailable, cache_dir
from svgeval.tasks.outcome import Failure, FailureKind, MetricValues, Outcome
from svgeval.tasks.sarena import data
from svgeval.tasks.sarena.animation_video import (
    SIZE,
    AnswerVideos,
    black_video,
)
from svgeval.tasks.sarena.common import PRESET, SArenaOptions, SArenaTask, extract_svg
from svgeval.tasks.sarena.vlmevalkit import LEVEL1, LEVEL2

FOLDER = "animation"
FVD_WINDOW = 16
Selection = Callable[[Frames], Frames]
"""What a metric keeps of an answer's video (8 sampled frames, one FVD window)."""


class AnimationRow(data.SArenaRow):
    """A task line; video-to-animation lines name their input video."""

    video: str | None = None


@dataclass(frozen=True)
class AnimationOptions(SArenaOptions):
    """``--set`` options of both animation tasks."""

    tokenizer: str = field(default=DEFAULT_TOKENIZER, metadata={
        "help": "tokenizer of the token counts (hub id or folder)"})
    failure_video: Literal["black", "drop"] = field(default="black", metadata={
        "help": "a failed answer: black (a black video, the intended protocol) or drop (left "
                "out, what the released code computes without its pure_black.mp4)"})
    encode: Literal["mp4", "none"] = field(default="mp4", metadata={
        "help": "answers through the released H.264 MP4 (mp4) or the rendered frames (none)"})
    browser_timeout: float = field(default=60.0, metadata={
        "help": "seconds for one answer's 150 frames in Chromium (past it: render:timeout)"})


class AnimationTarget(Target):
    """What an animation answer is compared with."""

    answer: str
    """The released animated SVG."""
    caption: str
    """The instruction (the prompt after ``Instruction: ``): ViCLIP's text."""
    video: str
    """The ground-truth video's path (``video/<id>.mp4``; it may be missing)."""


class SArenaAnimationTask(SArenaTask[AnimationTarget]):
    """Base of the two animation tasks."""

    kind: ClassVar[str]
    Options: ClassVar[type[Any]] = AnimationOptions
    # tokens counts every extracted answer, refused or not, and measures length: a hostile SVG
    # (a script, an entity bomb cut to its <svg> element) is shorter than a real animation
    degenerate: ClassVar[Mapping[str, frozenset[str]]] = {"hostile": frozenset({"tokens"})}

    def __init__(self, common: CommonOptions, options: Any = None) -> None:
        super().__init__(common, options)
        self.videos = AnswerVideos(self.options.browser_timeout, self.options.encode == "mp4",
                                    cache_dir() / "animations")

    def close(self) -> None:
        """Stop the browser that drew this run's answers (their parts stay on disk)."""
        self.videos.close()

    def load(self) -> list[Sample[AnimationTarget]]:
        from svgeval.render.animation import BrowserUnavailable, check_browser
        from svgeval.render.video import VideoCodecUnavailable

        try:
            check_browser()
            check_codec()
        except (BrowserUnavailable, VideoCodecUnavailable) as error:
            raise DataUnavailable(f"{self.name} needs a browser and ffmpeg: {error}") from None
        folder = data.root(self.common.data, self.options.subset)
        path = data.task_file(folder, f"{FOLDER}/{self.kind}.jsonl")
        rows = read_jsonl_items(path, AnimationRow)
        if not rows:
            raise MalformedData(f"{path} has no task lines")
        return [self.make_sample(path, row) for row in rows]

    def make_sample(self, path: Path, row: AnimationRow) -> Sample[AnimationTarget]:
        _, _, caption = row.prompt.partition("Instruction: ")
        return Sample(id=str(row.id), group=self.kind, messages=self.messages(path, row),
                      reference=row.answer,
                      target=AnimationTarget(
                          answer=row.answer, caption=caption,
                          video=str(path.parent / "video" / f"{row.id}.mp4")))

    def messages(self, path: Path, row: AnimationRow) -> list[Message]:
        return [{"role": "user", "content": row.prompt}]

    def vlmevalkit_files(self) -> Mapping[str, tuple[str, str]]:
        return {"": (LEVEL1["animation"], LEVEL2[self.kind])}

    def answer(self, response: str, score: Outcome, size: int, name: str,
               select: Selection) -> Frames | None:
        """Extract and draw the answer (``select`` of its video), recording a failure on
        ``score``; None when it failed."""
        extraction = extract_svg(response, self.options.reading)
        score.extracted, score.extraction_rule = extraction.svg, extraction.rule
        score.metrics["tokens"] = None
        svg = extraction.svg
        if svg is None:
            score.failure = Failure(kind=FailureKind.EXTRACT, detail=extraction.error)
            return None
        score.add_metric("tokens", lambda: float(
            token_counts([svg], tokenizer=self.options.tokenizer,
                         model_settings=self.common.model_settings())[0]))
        drawn = self.videos.part(svg, size, name, select)
        if isinstance(drawn, RenderFailure):
            score.failure = Failure(kind=FailureKind.RENDER, reason=drawn.tag,
                                    detail=drawn.message)
            return None
        return drawn

    def answer_frames(self, output_svg: str | None) -> Frames | None:
        """The 8 sampled 448 px frames of an answer's video (:meth:`answer_part`)."""
        return self.answer_part(output_svg, SIZE, "frames8", _first8)

    def answer_part(self, output_svg: str | None, size: int, name: str,
                    select: Selection) -> Frames | None:
        """``select`` of an answer's video at ``size`` px (kept in :attr:`videos` under
        ``name``), the black video's for a failed answer (no SVG, or one that does not draw;
        ``failure_video=black``), or None (``drop``)."""
        drawn: Frames | RenderFailure | None = None
        if output_svg is not None:
            drawn = self.videos.part(output_svg, size, name, select)
        if isinstance(drawn, np.ndarray):
            return drawn
        return None if self.options.failure_video == "drop" else select(black_video(size))


def _first8(frames: Frames) -> Frames:
    return np.stack(sample_frames(frames, 8))


@register_task
class SArenaAnimationVideo2Sani(SArenaAnimationTask):
    name = "sarena-animation-video2sani"
    description = ("SArena video-to-animation: frame-pair DINO, SSIM, LPIPS, PSNR of the "
                   "answer's video (headless Chromium), tokens")
    kind = "video2sani"
    metrics: ClassVar[Mapping[str, str]] = {
        "video_dino": "video_dino", "video_ssim": "video_ssim", "video_lpips": "video_lpips",
        "video_lpips_standard": "video_lpips", "video_psnr": "video_psnr",
        "tokens": "token_count"}
    batched_metrics = ("video_dino", "video_lpips", "video_lpips_standard")

    def messages(self, path: Path, row: AnimationRow) -> list[Message]:
        import cv2

        source = path.parent / (row.video or f"video/{row.id}.mp4")
        if not source.is_file():
            raise DataUnavailable(f"{path}: line id {row.id}: its video {source} does not exist")
        parts: list[dict[str, Any]] = [{"type": "text", "text": row.prompt}]
        for frame in decode_sampled(source, 8, unique=True):
            _, jpeg = cv2.imencode(".jpg", frame[..., ::-1],
                                    [cv2.IMWRITE_JPEG_QUALITY, 100])
            url = "data:image/jpeg;base64," + base64.b64encode(jpeg.tobytes()).decode()
            parts.append({"type": "image_url", "image_url": {"url": url}})
        return [{"role": "user", "content": parts}]

    def pair(self, sample: Sample[AnimationTarget],
             output_svg: str | None) -> tuple[Frames, Frames] | None:
        """(answer frames, ground-truth frames), 8 of each; None when the ground truth is
        missing, or the answer failed and failures are dropped."""
        truth = truth_frames(sample.target.video)
        drawn = self.answer_frames(output_svg)
        return None if truth is None or drawn is None else (drawn, truth)

    def score(self, sample: Sample[AnimationTarget], response: str, renderer: Renderer) -> Outcome:
        truth = truth_frames(sample.target.video)
        if truth is None:
            return Outcome.of(sample, failure=Failure(
                kind=FailureKind.REFERENCE, reason="video",
                detail=f"no ground-truth video {sample.target.video}"))
        score = Outcome.of(sample)
        drawn = self.answer(response, score, SIZE, "frames8", _first8)
        pair = self.pair(sample, None) if drawn is None else (drawn, truth)
        for key, metric in (("video_ssim", _ssim), ("video_psnr", psnr)):
            score.metrics[key] = None if pair is None else frame_mean(pair, metric)
        return score

    def batch_score(self, items: Sequence[BatchItem[AnimationTarget]],
                    context: MetricContext) -> list[MetricValues]:
        scores = [MetricValues() for _ in items]
        pairs = at_once(lambda item: self.pair(item.sample, item.output_svg), items)
        kept = [p for p in pairs if p is not None]
        options: dict[str, Any] = {"frames": 8, "preset": PRESET, **context.keywords()}
        runs = {"video_dino": functools.partial(frame_scores, metric="dino", **options),
                "video_lpips": functools.partial(frame_scores, metric="lpips", **options),
                "video_lpips_standard": functools.partial(
                    frame_scores, metric="lpips", normalization="standard", **options)}
        answers, truths = [a for a, _ in kept], [b for _, b in kept]
        for key, run in runs.items():
            values = iter(batch_values(scores, (key,), functools.partial(run, answers, truths))
                          if kept else [])
            for score, got in zip(scores, pairs):
                score.metrics[key] = None if got is None else next(values)
        return scores


def _ssim(a: Frames, b: Frames) -> float:
    return ssim(a, b, preset=PRESET)


def frame_mean(pair: tuple[Frames, Frames], metric: Callable[[Frames, Frames], float]) -> float:
    """The mean of ``metric`` over the frame pairs (zip: up to the shorter list)."""
    return float(np.mean([metric(a, b) for a, b in zip(*pair)]))


@functools.lru_cache(maxsize=16)
def truth_frames(path: str) -> Frames | None:
    """The 8 sampled frames of a ground-truth video (kept: 4.8 MB at 448 px); None when the
    file is missing (the sample's reference failure)."""
    return decode_sampled(path, 8) if Path(path).is_file() else None
