"""Batched reward computation: extract, render in isolated workers, compare, combine.

:class:`RewardScorer` turns (completion, reference, task, caption) rows into
:class:`RewardResult` values following a :class:`~svgeval.rewards.presets.RewardPreset`. Every
group of a call (a reference and up to 16 of its completions) is handed to the worker
processes at once (behind the sanitiser, with the time and memory limits of evaluation), which
draw and compare them there (:mod:`svgeval.rewards.groups`), and the rows are scored in order
as their groups come back, the model terms in batches while the next groups are drawn
(:mod:`svgeval.rewards.pipeline`). Reference renders are kept in memory, compressed and bounded
in bytes (:class:`~svgeval.render.memo.RenderMemo`, least recently used evicted first), so
the 8 rollouts of a prompt render their reference once, and a later call with the same prompt
not at all.

A scorer is checked when it is built (:mod:`svgeval.rewards.availability`): the packages and
weights its components need, and one tiny render through its workers; what is missing raises
:class:`~svgeval.rewards.availability.RewardUnavailable` then, not at the first call. The test
render is skipped in a process started by multiprocessing: a render worker that runs a calling
script without a main guard builds the script's reward too, and must not start a pool of its
own. A scorer may be called from several threads at once (the reward server does).
"""

from __future__ import annotations

import functools
import multiprocessing
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import replace
from types import TracebackType

import numpy as np
from typing_extensions import Self

from svgeval.render.cairo import RenderSpec, render_svg_uint8
from svgeval.render.isolated import DEFAULT_TIMEOUT_S, Renderer, RenderFunction
from svgeval.render.memo import RenderMemo, render_key
from svgeval.render.picture import RenderFailure
from svgeval.rewards import model_terms
from svgeval.rewards.availability import RewardUnavailable, check_packages, check_weights
from svgeval.rewards.groups import GROUP_SIZE, GroupJob, GroupScores, GroupScoring
from svgeval.rewards.pipeline import RewardResult, Row, score_rows
from svgeval.rewards.presets import (
    TASK_PRESETS,
    RewardPreset,
    get_reward_preset,
    passes_gate,
)
from svgeval.rewards.terms import TERMS
from svgeval.svg.extract import extract_svg

TASK_ALIASES = {"svg_editing": "edit", "editing": "edit", "caption": "captioning",
                "svg_captioning": "captioning", "im2svg": "img2svg", "image2svg": "img2svg"}

DEFAULT_REFERENCE_CACHE_BYTES = 64 * 1024 * 1024
"""Compressed reference renders kept in memory: at 128 px, about 16,000 SVGEditBench icons (a
render of 48 KiB raw packs to 0.8-9.8 KiB, median 4.1 KiB), or 1,300 renders that do not
compress at all."""

PROBE_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8">'
             '<rect width="8" height="8" fill="#ff0000"/></svg>')
"""Drawn through the workers to check that they render: every pixel must come out red."""


class RewardScorer:
    """Scores batches with one preset, or with the preset named by each row's task.

    ``preset="by_task"`` picks each row's preset from its ``task`` among
    :data:`~svgeval.rewards.presets.TASK_PRESETS` (``TASK_ALIASES`` apply); ``weights`` and
    ``penalty`` override the preset's. ``model_paths`` gives local weights by model family
    (``dreamsim``, ``clip``, ``dino``, ``hps``, ``lpips``, ``bge``; ``bge_model_path`` is the
    same as ``model_paths={"bge": ...}``); ``device`` is where the model terms run (default:
    the GPU when there is one) and ``model_batch`` how many rows each forward pass takes.
    ``cache_bytes`` bounds the reference renders kept in memory. Building it checks what its
    presets need (``by_task``: every task preset's packages and shipped weights; the BGE-M3
    weights, a download, load at the first captioning row) and raises
    :class:`RewardUnavailable` with one line when something is missing. Use as a context
    manager, or call :meth:`close` (the render workers are shared by every call).
    """

    def __init__(
        self,
        preset: str | RewardPreset = "by_task",
        *,
        weights: Mapping[str, float] | None = None,
        penalty: float | None = None,
        workers: int | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        render_function: RenderFunction = render_svg_uint8,
        renderer: Renderer | None = None,
        bge_model_path: str | None = None,
        model_paths: Mapping[str, str] | None = None,
        device: str | None = None,
        model_batch: int = 32,
        cache_bytes: int = DEFAULT_REFERENCE_CACHE_BYTES,
    ) -> None:
        self.preset_name = preset if isinstance(preset, str) else preset.name
        self._fixed = None if preset == "by_task" else self._adjust(preset, weights, penalty)
        self._weights, self._penalty = weights, penalty
        paths = {**(model_paths or {}), **({"bge": bge_model_path} if bge_model_path else {})}
        self._paths, self._device, self.model_batch = paths, device, model_batch
        self._check_presets()
        self._renderer_name = getattr(render_function, "__name__", "render")
        self._own_renderer = renderer is None
        self.renderer = renderer or Renderer(workers, timeout_s, render_function=render_function)
        self.references = RenderMemo(cache_bytes)
        """Reference renders kept in memory (compressed, bounded in bytes, LRU)."""
        self._groups = GroupScoring(self.renderer)
        problem = None if _in_a_child_process() else self.check_render()
        if problem is not None:
            self.close()
            raise RewardUnavailable(f"the render workers cannot render: {problem}")

    @staticmethod
    def _adjust(preset: str | RewardPreset, weights: Mapping[str, float] | None,
                penalty: float | None) -> RewardPreset:
        chosen = get_reward_preset(preset)
        if weights:
            chosen = chosen.with_weights(**weights)
        if penalty is not None:
            chosen = replace(chosen, penalty=penalty)
        return chosen

    def _check_presets(self) -> None:
        """Raise :class:`RewardUnavailable` now for what the presets need and is missing."""
        if self._fixed is not None:
            check_packages(self._fixed, f"preset {self._fixed.name!r}")
            check_weights(self._fixed, f"preset {self._fixed.name!r}",
                          self.model_settings(self._fixed), bge=True)
            return
        for name in TASK_PRESETS:
            preset = self._adjust(name, self._weights, self._penalty)
            label = f"preset 'by_task' (rows of task {name!r})"
            check_packages(preset, label)
            check_weights(preset, label, self.model_settings(preset), bge=False)

    def model_settings(self, preset: RewardPreset) -> model_terms.ModelSettings:
        """The weights, device and batch size of ``preset``'s model terms."""
        return model_terms.ModelSettings(preset.models, self._paths, self._device,
                                         self.model_batch)

    def check_render(self) -> str | None:
        """Draw :data:`PROBE_SVG` in a worker: None when it comes out red, else why not."""
        try:
            outcome = self.renderer.call(self.renderer.render_function, PROBE_SVG,
                                         RenderSpec.square(8))
        except Exception as error:  # noqa: BLE001 - a pool that cannot take work says why
            return f"{type(error).__name__}: {error}"
        if isinstance(outcome, RenderFailure):
            return f"{outcome.tag}: {outcome.message}"
        pixels = np.asarray(outcome)
        if pixels.shape[:2] != (8, 8) or not (pixels[..., :3] == (255, 0, 0)).all():
            return f"a red square rendered wrong (shape {pixels.shape}, first pixel {pixels.flat[:3]})"
        return None

    def preset_for(self, task: str | None) -> RewardPreset:
        """The preset that scores a row of ``task``."""
        if self._fixed is not None:
            return self._fixed
        known = ", ".join(sorted({*TASK_PRESETS, *TASK_ALIASES}))
        if task is None:
            raise ValueError(f"missing: preset 'by_task' needs every row's task (one of {known})")
        name = TASK_ALIASES.get(task, task)
        if name not in TASK_PRESETS:
            raise ValueError(f"unknown task {task!r}; known: {known}")
        return self._adjust(name, self._weights, self._penalty)

    def score(
        self,
        completions: Sequence[str],
        references: Sequence[str],
        tasks: Sequence[str | None] | None = None,
        captions: Sequence[str] | None = None,
    ) -> list[RewardResult]:
        """Score each (completion, reference) pair; results keep the input order. ``captions``
        (the prompts' texts) are what the caption terms (``clip_text``, ``hps``) compare the
        render with."""
        if len(completions) != len(references):
            raise ValueError(f"{len(completions)} completions but {len(references)} references")
        rows = list(tasks) if tasks is not None else [None] * len(completions)
        texts = list(captions) if captions is not None else [""] * len(completions)
        presets = [self.preset_for(t) for t in rows]
        results: list[RewardResult | None] = [None] * len(completions)
        for preset in {p.name: p for p in presets}.values():
            index = [i for i, p in enumerate(presets) if p.name == preset.name]
            preds = [completions[i] for i in index]
            refs = [references[i] for i in index]
            scored = (self._score_text(preset, preds, refs) if preset.kind == "text" else
                      self._score_svg(preset, preds, refs, [texts[i] for i in index]))
            for i, result in zip(index, scored):
                results[i] = result
        return [r if r is not None else RewardResult(None) for r in results]

    def _score_text(self, preset: RewardPreset, preds: list[str],
                    refs: list[str]) -> list[RewardResult]:
        texts = [p.strip() for p in preds]
        valid = [i for i, t in enumerate(texts) if t]
        values: dict[str, list[float]] = {}
        vrefs, vpreds = [refs[i] for i in valid], [texts[i] for i in valid]
        if "bge" in preset.active():
            values["bge"] = model_terms.bge_similarity(vrefs, vpreds, self._paths.get("bge"))
        if "rouge" in preset.active():
            values["rouge"] = model_terms.rouge_similarity(vrefs, vpreds)
        out = [RewardResult(preset.penalty, {}, "empty") for _ in preds]
        for j, i in enumerate(valid):
            components = {name: v[j] for name, v in values.items()}
            out[i] = RewardResult(preset.combined(components), components)
        return out

    def _score_svg(self, preset: RewardPreset, preds: list[str], refs: list[str],
                   captions: list[str]) -> list[RewardResult]:
        """Hand every group to the workers, then score the rows as they come back."""
        gated = [passes_gate(preset.gate, p) for p in preds]
        extracted = [extract_svg(p).svg if ok else None for p, ok in zip(preds, gated)]
        distinct = {r: extract_svg(r).svg or r for r in dict.fromkeys(refs)}  # once per prompt
        placed = self._submit_groups(preset, extracted, refs, distinct)
        rows = [Row(*placed[i], extracted[i] or "", distinct[refs[i]], captions[i],
                    None if gated[i] else "format") for i in range(len(preds))]
        return score_rows(preset, rows, self.model_settings(preset), self.model_batch)

    def _submit_groups(self, preset: RewardPreset, extracted: list[str | None], refs: list[str],
                       distinct: Mapping[str, str]) -> dict[int, tuple[Future[GroupScores],
                                                                       int | None]]:
        """Each row's group and its place in it (None: no SVG to draw; the group still tells
        whether the reference renders), every group submitted: the rows of one reference in
        groups of at most :data:`GROUP_SIZE`, its render taken from memory when kept."""
        spec = RenderSpec.square(preset.render_size)
        image_terms = tuple(c for c in preset.active() if TERMS[c].kind == "image")
        keep_pixels = any(TERMS[c].kind == "model" for c in preset.active())
        members: dict[str, list[int]] = {}
        for index, ref in enumerate(refs):
            members.setdefault(ref, []).append(index)
        jobs: list[GroupJob] = []
        keys: list[str] = []
        chunks: list[list[int]] = []
        without_svg: dict[int, list[int]] = {}  # rows with no SVG, by their reference's first job
        for ref, indices in members.items():
            key = render_key(distinct[ref], spec, self._renderer_name)
            drawable = [i for i in indices if extracted[i] is not None]
            without_svg[len(jobs)] = [i for i in indices if extracted[i] is None]
            for start in range(0, max(len(drawable), 1), GROUP_SIZE):
                chunk = drawable[start:start + GROUP_SIZE]
                jobs.append(GroupJob(distinct[ref], tuple(extracted[i] or "" for i in chunk),
                                     spec, image_terms, keep_pixels,
                                     self.references.lookup(key)))
                keys.append(key)
                chunks.append(chunk)
        groups = self._groups.submit_all(jobs)
        placed: dict[int, tuple[Future[GroupScores], int | None]] = {}
        for job, key, chunk, group in zip(jobs, keys, chunks, groups):
            if job.reference_render is None:
                group.add_done_callback(functools.partial(self._remember, key))
            placed.update({i: (group, position) for position, i in enumerate(chunk)})
        for first, rows in without_svg.items():
            placed.update({i: (groups[first], None) for i in rows})
        return placed

    def _remember(self, key: str, done: Future[GroupScores]) -> None:
        """Keep a reference's render that a group drew (a failure is drawn again next time,
        since a timeout can depend on the machine's load)."""
        scores = done.result() if done.exception() is None else None
        if scores is not None and not isinstance(scores.reference, RenderFailure):
            self.references.remember(key, scores.reference)

    def close(self) -> None:
        self._groups.close()
        if self._own_renderer:
            self.renderer.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


def _in_a_child_process() -> bool:
    """True in a process started by multiprocessing, also while it still runs the parent's
    main module (``_inheriting``: multiprocessing's own flag for that phase)."""
    return (multiprocessing.parent_process() is not None
            or bool(getattr(multiprocessing.current_process(), "_inheriting", False)))
