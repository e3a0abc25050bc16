"""SArena's text-to-animation task (InternSVG 77a891e, ``evaluate_animation.py``,
``metrics/video/FVD.py``, ``CLIP_video.py``): FVD of the answers' videos against the released
ones, ViCLIP T2V and V2V, tokens. The data, prompts, drawing and failure rules are the
animation track's (:mod:`svgeval.tasks.sarena.animation`)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np

from svgeval.metrics.registry import MetricUnavailable
from svgeval.metrics.viclip import viclip_scores
from svgeval.metrics.video import fvd
from svgeval.render.animation import at_once
from svgeval.render.isolated import Renderer
from svgeval.render.picture import Frames
from svgeval.tasks import register_task
from svgeval.tasks.base import BatchItem, MetricContext, Sample
from svgeval.tasks.download import DataUnavailable
from svgeval.tasks.lazy import LazySequence
from svgeval.tasks.outcome import MetricValues, Outcome
from svgeval.tasks.sarena.animation import (
    FVD_WINDOW,
    AnimationOptions,
    AnimationTarget,
    SArenaAnimationTask,
    Selection,
    truth_frames,
)
from svgeval.tasks.sarena.animation_video import FVD_SIZE, read_video


@dataclass(frozen=True)
class TextOptions(AnimationOptions):
    """``--set`` options of text-to-animation (FVD's released reading by default)."""

    fvd_window: Literal["random", "first"] = field(default="random", metadata={
        "help": "FVD's 16 frames per video: random (one window drawn from --seed, as cd-fvd) "
                "or first (frames 0-15)"})
    fvd_reference: Literal["overall", "task"] = field(default="overall", metadata={
        "help": "FVD's real set: overall (every video of animation/overall/, as released) or "
                "task (the ground-truth videos of this run's samples)"})



def fvd_start(frames: int, name: str, window: str, seed: int) -> int:
    """The first frame of a video's FVD window: 0 (``first``), or drawn from ``seed`` and the
    video's name (``random``: cd-fvd draws one per video with Python's ``random``)."""
    if window == "first" or frames <= FVD_WINDOW:
        return 0
    digest = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)
    return int(np.random.default_rng([seed, digest]).integers(0, frames - FVD_WINDOW + 1))


@register_task
class SArenaAnimationText2Sani(SArenaAnimationTask):
    name = "sarena-animation-text2sani"
    description = ("SArena text-to-animation: FVD (I3D) of the answers' videos (headless "
                   "Chromium) against the released ones, ViCLIP T2V and V2V, tokens")
    kind = "text2sani"
    Options: ClassVar[type[Any]] = TextOptions
    metrics: ClassVar[Mapping[str, str]] = {"fvd": "fvd", "viclip_t2v": "viclip_t2v",
                                            "viclip_v2v": "viclip_v2v", "tokens": "token_count"}
    batched_metrics = ("viclip_t2v", "viclip_v2v")
    set_metrics = ("fvd",)

    def window(self, name: str) -> Selection:
        def select(frames: Frames) -> Frames:
            start = fvd_start(len(frames), name, self.options.fvd_window, self.common.seed)
            return frames[start : start + FVD_WINDOW]
        return select

    def score(self, sample: Sample[AnimationTarget], response: str, renderer: Renderer) -> Outcome:
        score = Outcome.of(sample)
        self.answer(response, score, FVD_SIZE, self.window_key(sample.id),
                    self.window(sample.id))
        return score

    def batch_score(self, items: Sequence[BatchItem[AnimationTarget]],
                    context: MetricContext) -> list[MetricValues]:
        """ViCLIP T2V (answer video, caption) and V2V (answer video, ground-truth video) of each
        item; None where the answer is dropped or, for V2V, the ground-truth video is missing."""
        scores = [MetricValues(metrics={"viclip_t2v": None, "viclip_v2v": None}) for _ in items]
        drawn = at_once(lambda item: self.answer_frames(item.output_svg), items)
        answers = {i: frames for i, frames in enumerate(drawn) if frames is not None}
        truths = {i: truth_frames(items[i].sample.target.video) for i in answers}
        try:
            t2v, v2v = viclip_scores(
                list(answers.values()), [items[i].sample.target.caption for i in answers],
                list(truths.values()), **context.keywords())
        except MetricUnavailable as error:
            for score in scores:
                score.not_computed.update(viclip_t2v=str(error), viclip_v2v=str(error))
            return scores
        for i, text, video in zip(answers, t2v or [], v2v or []):
            scores[i].metrics.update(viclip_t2v=text, viclip_v2v=video)
            if truths[i] is None:
                scores[i].not_computed["viclip_v2v"] = (
                    f"no ground-truth video {items[i].sample.target.video}")
        return scores

    def fvd_video(self, item: BatchItem[AnimationTarget]) -> Frames | None:
        """What FVD's generated set holds for ``item``: its answer's window
        (:meth:`answer_part`), or None when it is dropped."""
        return self.answer_part(item.output_svg, FVD_SIZE, self.window_key(item.sample.id),
                                self.window(item.sample.id))

    def window_key(self, sample_id: str) -> str:
        """The cache key of a sample's FVD window: the window is drawn from the seed and the
        sample's id, so the same answer to two samples is cut twice (it was cut once, at the
        first sample's window, and FVD followed the order the answers were scored in)."""
        return f"fvd:{self.options.fvd_window}:{self.common.seed}:{sample_id}"

    def references(self, items: Sequence[BatchItem[AnimationTarget]]) -> Sequence[Frames]:
        """FVD's real set: every video under ``overall/`` or the same samples' (``task``), each
        read and cut to its window when it is read."""
        folder = Path(items[0].sample.target.video).parent.parent / "overall"
        files = sorted(folder.rglob("*.mp4"))
        if self.options.fvd_reference == "task":
            ids = {item.sample.id for item in items}
            files = [path for path in files if path.stem in ids]
        if not files:
            raise DataUnavailable(f"{folder} holds no ground-truth .mp4 for FVD")
        return LazySequence(files, lambda path: self.window(path.stem)(read_video(path)))

    def set_score(
        self, groups: Mapping[str, Sequence[BatchItem[AnimationTarget]]],
        context: MetricContext
    ) -> MetricValues:
        """Per group, FVD of the answers' videos against the real set (:meth:`references`).
        Each answer's window stays compressed in :attr:`videos` until I3D reads it, and each
        real video is read as it is reached: a group held as frames took 0.8 MiB an answer
        and, for a real video, its window at the video's own size."""
        def kept_video(item: BatchItem[AnimationTarget]) -> Frames:
            video = self.fvd_video(item)
            assert video is not None, "only items with a video are kept"
            return video

        score = MetricValues()
        for group, items in groups.items():
            fakes = LazySequence([item for item in items if self.options.failure_video == "black"
                                  or self.fvd_video(item) is not None], kept_video)
            reals = self.references(items)
            score.metrics[f"{group}/fvd_n_real"] = float(len(reals))
            score.metrics[f"{group}/fvd_n_fake"] = float(len(fakes))
            score.metrics[f"{group}/fvd"] = None
            if len(reals) >= 2 and len(fakes) >= 2:  # a Gaussian needs two points
                try:
                    score.metrics[f"{group}/fvd"] = fvd(
                        reals, fakes, window="first", length=FVD_WINDOW, resolution=FVD_SIZE,
                        **context.keywords())
                except MetricUnavailable as error:
                    score.not_computed["fvd"] = str(error)
        return score
