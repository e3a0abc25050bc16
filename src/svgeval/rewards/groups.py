"""A reference and its completions scored together in one render worker.

The rollouts of a prompt share a reference. :func:`score_group` runs in a render worker: it
draws the reference (or unpacks the render kept from an earlier call), prepares the reference
side of each image term once, draws each completion and compares it there, so a render's
pixels never cross to the main process unless a model term needs them. A completion that
repeats another of the group, or the reference itself, is drawn and compared once: rollouts
often repeat one another (and an editing model's may be the reference), and the renderers draw
the same pixels each time. What comes back is a few floats per completion and the reference's
render, packed, for the scorer to keep. Moving this work out of the main process is what lets
the two run side by side: there, the main process spent its CPU on Sobel maps, pixel terms
and unpickling the pixels while the workers drew (``python -m bench rewards``).

Consecutive groups travel to a worker together, up to :data:`BUNDLE_RENDERS` renders a call: a
GRPO step's groups of 8 rollouts go two at a time. Each call costs the main process CPU
(the pool's messages, the call's acknowledgement and its result, and the thread waiting on
it), so fewer, larger calls lower the main process's CPU on a step (``bench/RESULTS.md``).

A call is isolated (:meth:`~svgeval.render.isolated.Renderer.call`: the render time limit for the
whole call, a worker death retried once). A call that dies as a whole (a hostile completion
that hangs or crashes its worker) is scored again piece by piece: each group's reference alone,
then each of its completions alone with the reference's render, so only the hostile completion
gets the failure, as it would have rendered alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from svgeval.render.batch import CHUNKS_PER_WORKER, RenderFunction, render_chunk
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import Picture, Rendered, RenderFailure
from svgeval.rewards.terms import TERMS

GROUP_SIZE = 16
"""Completions of one reference per group at most (a GRPO prompt's 8 rollouts fit)."""

BUNDLE_RENDERS = 18
"""Renders (completions, and references not kept from an earlier call) of consecutive groups
sent to a worker in one call at most: two groups of 8 rollouts with their references; a larger
group goes alone."""


@dataclass(frozen=True)
class GroupJob:
    """What one worker call scores: completions' SVG code against one reference."""

    reference: str
    completions: tuple[str, ...]
    spec: RenderSpec
    terms: tuple[str, ...]
    """The ``image`` terms to compute (:data:`~svgeval.rewards.terms.TERMS`)."""
    keep_pixels: bool
    """Send each completion's render back (the model terms need it)."""
    reference_render: Picture | None = None
    """The reference's render kept from an earlier call, packed (then it is not drawn again)."""


@dataclass(frozen=True)
class Compared:
    """One completion's outcome in the worker: its image terms, or why it was not scored."""

    values: dict[str, float]
    failure: str | None = None
    """``blank`` or the render failure's tag (then ``values`` is empty)."""
    pixels: NDArray[np.uint8] | None = None
    """Its render, when the job asked for it."""


@dataclass(frozen=True)
class GroupScores:
    """A job's outcome: the reference's render (packed) or its failure, and each completion's
    :class:`Compared` in order (none when the reference failed)."""

    reference: Picture | RenderFailure
    completions: tuple[Compared, ...]


def score_group(job: GroupJob, render: RenderFunction) -> GroupScores:
    """Draw and compare a :class:`GroupJob` in this process (runs in a render worker)."""
    if job.reference_render is not None:
        packed, drawn = job.reference_render, job.reference_render.unpacked()
    else:
        (rendered,) = render_chunk([(job.reference, job.spec)], render)
        if isinstance(rendered, RenderFailure):
            return GroupScores(rendered, ())
        packed, drawn = rendered.packed(), rendered
    reference = drawn.pixels
    terms = [TERMS[name] for name in job.terms]
    prepared = {t.name: t.prepare(reference) for t in terms if t.prepare}

    def compared(image: Rendered) -> Compared:
        if isinstance(image, RenderFailure):
            return Compared({}, image.tag)
        pixels = image.pixels
        if _uniform(pixels):
            return Compared({}, "blank")
        values = {t.name: t.compare(pixels, prepared[t.name]) for t in terms if t.compare}
        return Compared(values, None, pixels if job.keep_pixels else None)

    # each distinct SVG drawn once: the renderers are deterministic, so a copy of another
    # rollout, or of the reference, has the same render and the same terms
    distinct = [svg for svg in dict.fromkeys(job.completions) if svg != job.reference]
    by_svg = {svg: compared(image) for svg, image in
              zip(distinct, render_chunk([(svg, job.spec) for svg in distinct], render))}
    if job.reference in job.completions:
        by_svg[job.reference] = compared(drawn)
    return GroupScores(packed, tuple(by_svg[svg] for svg in job.completions))


def score_groups(jobs: tuple[GroupJob, ...], render: RenderFunction) -> tuple[GroupScores, ...]:
    """:func:`score_group` of each job, in order, in this process (runs in a render worker)."""
    return tuple(score_group(job, render) for job in jobs)


def _renders(job: GroupJob) -> int:
    return len(job.completions) + (job.reference_render is None)


def bundles(jobs: Sequence[GroupJob]) -> list[list[int]]:
    """The indices of ``jobs`` in runs of consecutive jobs of at most :data:`BUNDLE_RENDERS`
    renders (a larger job alone): what one worker call scores."""
    runs: list[list[int]] = []
    size = 0
    for index, job in enumerate(jobs):
        if runs and size + _renders(job) <= BUNDLE_RENDERS:
            runs[-1].append(index)
            size += _renders(job)
        else:
            runs.append([index])
            size = _renders(job)
    return runs


def _uniform(image: NDArray[np.uint8]) -> bool:
    """True when every pixel of ``image`` is the same (nothing drawn: ``blank``)."""
    raw = np.ascontiguousarray(image).tobytes()
    pixel = raw[: image.shape[-1]]
    return raw == pixel * (len(raw) // len(pixel))


class GroupScoring:
    """Scores :class:`GroupJob` values in ``renderer``'s workers, a few groups a call
    (:func:`bundles`), two calls per worker in flight (the one drawn and the next), a dead call
    scored again piece by piece (module doc). Thread-safe; :meth:`close` when done."""

    def __init__(self, renderer: Renderer) -> None:
        self._renderer = renderer
        self._calls = ThreadPoolExecutor(CHUNKS_PER_WORKER * renderer.workers,
                                         thread_name_prefix="svgeval-reward-group")

    def submit_all(self, jobs: Sequence[GroupJob]) -> list[Future[GroupScores]]:
        """Each job's scores, once a worker has drawn them; an exception only when the
        machinery failed (:class:`~svgeval.render.pool.RenderWorkersLost`)."""
        futures: list[Future[GroupScores]] = [Future() for _ in jobs]
        for bundle in bundles(jobs):
            self._calls.submit(self._settle, tuple(jobs[i] for i in bundle),
                               [futures[i] for i in bundle])
        return futures

    def _settle(self, jobs: tuple[GroupJob, ...], futures: list[Future[GroupScores]]) -> None:
        try:
            scores = self._score(jobs)
        except BaseException as error:  # noqa: BLE001 - the machinery failed: each caller raises it
            for future in futures:
                future.set_exception(error)
            return
        for future, scored in zip(futures, scores):
            future.set_result(scored)

    def _score(self, jobs: tuple[GroupJob, ...]) -> list[GroupScores]:
        whole = self._call(jobs)
        if not isinstance(whole, RenderFailure):
            return list(whole)
        if len(jobs) == 1 and not jobs[0].completions:  # the reference alone died
            return [GroupScores(whole, ())]
        return [self._piece_by_piece(job) for job in jobs]

    def _piece_by_piece(self, job: GroupJob) -> GroupScores:
        """``job`` scored again one call at a time: its reference alone, then each completion
        alone with the reference's render."""
        alone = self._call((replace(job, completions=()),))
        if isinstance(alone, RenderFailure):
            return GroupScores(alone, ())
        (reference,) = alone
        if isinstance(reference.reference, RenderFailure) or not job.completions:
            return reference
        compared = []
        for svg in job.completions:
            one = self._call((replace(job, completions=(svg,),
                                      reference_render=reference.reference),))
            compared.append(Compared({}, one.tag) if isinstance(one, RenderFailure)
                            else one[0].completions[0])
        return GroupScores(reference.reference, tuple(compared))

    def _call(self, jobs: tuple[GroupJob, ...]) -> tuple[GroupScores, ...] | RenderFailure:
        """The jobs in one isolated call: their scores, or why the call died."""
        return self._renderer.call(score_groups, jobs, self._renderer.render_function)

    def close(self) -> None:
        self._calls.shutdown(wait=True)
