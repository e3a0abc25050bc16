"""Batched reward computation: extract, render in isolated workers, compare, combine.

:class:`RewardScorer` turns (completion, reference, task) triples into :class:`RewardResult`
values following a :class:`~svgeval.rewards.presets.RewardPreset`. Renders go through
:func:`svgeval.svg.batch.render_many`, so they run in worker processes behind the sanitiser with
the time and memory limits of evaluation; reference renders are kept in memory, compressed and
bounded in bytes (:class:`~svgeval.svg.render_memo.RenderMemo`, least recently used evicted
first), so the 8 rollouts of a prompt render their reference once.

A scorer is checked when it is built (:mod:`svgeval.rewards.availability`): the packages and
weights its components need, and one tiny render through its workers; what is missing raises
:class:`~svgeval.rewards.availability.RewardUnavailable` then, not at the first call. The test
render is skipped in a process started by multiprocessing: a render worker that runs a calling
script without a main guard builds the script's reward too, and must not start a pool of its
own. A scorer may be called from several threads at once (the reward server does).
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import TracebackType

import numpy as np
from typing_extensions import Self

from svgeval.rewards import components as comp
from svgeval.rewards.availability import RewardUnavailable, check_packages, check_weights
from svgeval.rewards.presets import PRESETS, RewardPreset, get_reward_preset
from svgeval.svg.batch import Rendered, render_many
from svgeval.svg.extract import extract_svg
from svgeval.svg.isolation import DEFAULT_TIMEOUT_S, Renderer, RenderFunction
from svgeval.svg.render import RenderFailure, RenderSpec, render_svg_uint8
from svgeval.svg.render_memo import RenderMemo, render_key

TASK_ALIASES = {"svg_editing": "edit", "editing": "edit", "caption": "captioning",
                "svg_captioning": "captioning", "im2svg": "img2svg", "image2svg": "img2svg"}

DEFAULT_REFERENCE_CACHE_BYTES = 64 * 1024 * 1024
"""Compressed reference renders kept in memory: at 128 px, about 16,000 SVGEditBench icons (a
render of 48 KiB raw packs to 0.8-9.8 KiB, median 4.1 KiB), or 1,300 renders that do not
compress at all."""

PROBE_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8">'
             '<rect width="8" height="8" fill="#ff0000"/></svg>')
"""Drawn through the workers to check that they render: every pixel must come out red."""


@dataclass(frozen=True)
class RewardResult:
    """One completion's reward, its components (each in [0, 1]) and why it was penalised."""

    reward: float | None
    """In [penalty, 1]; None when the reference itself cannot be scored (not the model's
    fault; TRL ignores None rewards)."""
    components: Mapping[str, float] = field(default_factory=dict)
    failure: str | None = None
    """``no_svg``, ``empty``, ``blank``, a render failure tag (``rejected:...``, ``timeout``,
    ``crash``, ...) or ``reference:<tag>``."""


class RewardScorer:
    """Scores batches with one preset, or with the preset named by each row's task.

    ``preset="by_task"`` picks each row's preset from its ``task`` (``TASK_ALIASES`` apply);
    ``weights`` and ``penalty`` override the preset's. ``cache_bytes`` bounds the reference
    renders kept in memory. Building it checks what its presets need (``by_task``: every preset's
    packages and shipped weights; the BGE-M3 weights, a download, load at the first captioning
    row) and raises :class:`RewardUnavailable` with one line when something is missing. Use as a
    context manager, or call :meth:`close` (the render workers are shared by every call).
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
        cache_bytes: int = DEFAULT_REFERENCE_CACHE_BYTES,
    ) -> None:
        self.preset_name = preset if isinstance(preset, str) else preset.name
        self._fixed = None if preset == "by_task" else self._adjust(preset, weights, penalty)
        self._weights, self._penalty = weights, penalty
        self._bge_model_path = bge_model_path
        self._check_presets()
        self._renderer_name = getattr(render_function, "__name__", "render")
        self._own_renderer = renderer is None
        self.renderer = renderer or Renderer(workers, timeout_s, render_function=render_function)
        self.references = RenderMemo(cache_bytes)
        """Reference renders kept in memory (compressed, bounded in bytes, LRU)."""
        self._lock = threading.Lock()
        self.render_seconds = 0.0
        """Wall time spent waiting for renders, summed over calls (for profiling)."""
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
            check_weights(self._fixed, f"preset {self._fixed.name!r}", bge=True,
                          bge_model_path=self._bge_model_path)
            return
        for name in PRESETS:
            preset = self._adjust(name, self._weights, self._penalty)
            label = f"preset 'by_task' (rows of task {name!r})"
            check_packages(preset, label)
            check_weights(preset, label, bge=False)

    def check_render(self) -> str | None:
        """Draw :data:`PROBE_SVG` in a worker: None when it comes out red, else why not."""
        try:
            outcome = self.renderer.call(self.renderer.render_function, PROBE_SVG,
                                         RenderSpec.square(8))
        except Exception as error:  # noqa: BLE001 - a pool that cannot take work says why
            return f"{type(error).__name__}: {error}"
        if outcome.failure is not None:
            return f"{outcome.failure.tag}: {outcome.failure.message}"
        pixels = np.asarray(outcome.value)
        if pixels.shape[:2] != (8, 8) or not (pixels[..., :3] == (255, 0, 0)).all():
            return f"a red square rendered wrong (shape {pixels.shape}, first pixel {pixels.flat[:3]})"
        return None

    def preset_for(self, task: str | None) -> RewardPreset:
        """The preset that scores a row of ``task``."""
        if self._fixed is not None:
            return self._fixed
        known = ", ".join(sorted({*PRESETS, *TASK_ALIASES}))
        if task is None:
            raise ValueError(f"missing: preset 'by_task' needs every row's task (one of {known})")
        name = TASK_ALIASES.get(task, task)
        if name not in PRESETS:
            raise ValueError(f"unknown task {task!r}; known: {known}")
        return self._adjust(name, self._weights, self._penalty)

    def score(
        self,
        completions: Sequence[str],
        references: Sequence[str],
        tasks: Sequence[str | None] | None = None,
    ) -> list[RewardResult]:
        """Score each (completion, reference) pair; results keep the input order."""
        if len(completions) != len(references):
            raise ValueError(f"{len(completions)} completions but {len(references)} references")
        rows = list(tasks) if tasks is not None else [None] * len(completions)
        presets = [self.preset_for(t) for t in rows]
        results: list[RewardResult | None] = [None] * len(completions)
        for preset in {p.name: p for p in presets}.values():
            index = [i for i, p in enumerate(presets) if p.name == preset.name]
            preds = [completions[i] for i in index]
            refs = [references[i] for i in index]
            scored = (self._score_text if preset.kind == "text" else self._score_svg)(
                preset, preds, refs)
            for i, result in zip(index, scored):
                results[i] = result
        return [r for r in results if r is not None]

    def _score_text(self, preset: RewardPreset, preds: list[str],
                    refs: list[str]) -> list[RewardResult]:
        texts = [p.strip() for p in preds]
        valid = [i for i, t in enumerate(texts) if t]
        values: dict[str, list[float]] = {}
        vrefs, vpreds = [refs[i] for i in valid], [texts[i] for i in valid]
        if "bge" in preset.active():
            values["bge"] = comp.bge_similarity(vrefs, vpreds, self._bge_model_path)
        if "rouge" in preset.active():
            values["rouge"] = comp.rouge_similarity(vrefs, vpreds)
        out = [RewardResult(preset.penalty, {}, "empty") for _ in preds]
        for j, i in enumerate(valid):
            out[i] = _combine(preset, {name: v[j] for name, v in values.items()})
        return out

    def _score_svg(self, preset: RewardPreset, preds: list[str],
                   refs: list[str]) -> list[RewardResult]:
        spec = RenderSpec.square(preset.render_size)
        extracted = [extract_svg(p).svg for p in preds]
        ref_svgs = [extract_svg(r).svg or r for r in refs]
        ref_images = self._reference_renders(ref_svgs, spec)
        todo = [i for i, s in enumerate(extracted) if s is not None]
        rendered = self._render([extracted[i] or "" for i in todo], spec)
        pred_images: dict[int, Rendered] = dict(zip(todo, rendered))
        out: list[RewardResult] = []
        pairs: list[tuple[int, np.ndarray, np.ndarray]] = []
        for i, ref_image in enumerate(ref_images):
            image = pred_images.get(i)
            failure = _failure(image, "no_svg") or None
            if isinstance(ref_image, RenderFailure):
                out.append(RewardResult(None, {}, f"reference:{ref_image.tag}"))
            elif failure:
                out.append(RewardResult(preset.penalty, {}, failure))
            else:
                assert isinstance(image, np.ndarray)
                pairs.append((i, image, ref_image))
                out.append(RewardResult(None))
        lpips = (comp.lpips_similarity([p[1] for p in pairs], [p[2] for p in pairs],
                                       preset.lpips_net)
                 if "lpips" in preset.active() and pairs else [])
        for j, (i, image, ref_image) in enumerate(pairs):
            values = {"pixel": comp.pixel_similarity(image, ref_image),
                      "edge": comp.edge_similarity(image, ref_image),
                      "length": comp.length_reward(extracted[i] or "", ref_svgs[i])}
            if lpips:
                values["lpips"] = lpips[j]
            out[i] = _combine(preset, {k: v for k, v in values.items() if k in preset.active()})
        return out

    def _render(self, svgs: list[str], spec: RenderSpec) -> list[Rendered]:
        started = time.perf_counter()
        try:
            return render_many(self.renderer, svgs, spec)
        finally:
            with self._lock:
                self.render_seconds += time.perf_counter() - started

    def _reference_renders(self, svgs: list[str], spec: RenderSpec) -> list[Rendered]:
        """Each reference's render: kept in memory, else drawn (and kept if it rendered; a
        failure is drawn again next time, since a timeout can depend on the machine's load)."""
        keys = [render_key(s, spec, self._renderer_name) for s in svgs]
        found: dict[str, Rendered] = {}
        for key in dict.fromkeys(keys):
            kept = self.references.lookup(key)
            if kept is not None:
                found[key] = kept
        sources = dict(zip(keys, svgs))
        missing = [k for k in dict.fromkeys(keys) if k not in found]
        for key, image in zip(missing, self._render([sources[k] for k in missing], spec)):
            found[key] = image
            if isinstance(image, np.ndarray):
                self.references.remember(key, image)
        return [found[k] for k in keys]

    def close(self) -> None:
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


def _failure(image: Rendered | None, missing: str) -> str | None:
    if image is None:
        return missing
    if isinstance(image, RenderFailure):
        return image.tag
    flat = image.reshape(-1, image.shape[-1])
    return "blank" if bool(np.all(flat == flat[0])) else None


def _combine(preset: RewardPreset, values: Mapping[str, float]) -> RewardResult:
    """``R = sum_c w_c r_c / sum_c w_c`` over the preset's active components."""
    weights = {c: preset.weights[c] for c in preset.active()}
    reward = sum(weights[c] * values[c] for c in weights) / sum(weights.values())
    return RewardResult(float(min(max(reward, 0.0), 1.0)), dict(values))
