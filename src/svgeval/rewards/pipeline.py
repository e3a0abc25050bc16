"""Scoring rows as their groups come back, with the model terms batched behind them.

The scorer hands every group of a call (a reference and its completions,
:mod:`svgeval.rewards.groups`) to the render workers at once, where the image terms are
computed, and then walks the rows in order: each row waits only for its own group, so the main
process combines row ``k`` (its code terms at once, its model terms with the next
``batch - 1`` rows) while the workers draw the groups after it. A model term therefore runs on
one batch of renders while the next batch is being drawn, on the GPU when there is one.
Results are the same as scoring every row after all renders are done, in the same order
(``tests/rewards/test_pipeline.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

import numpy as np

from svgeval.render.picture import RenderFailure
from svgeval.rewards.groups import GroupScores
from svgeval.rewards.model_terms import MODEL_TERMS, ModelSettings
from svgeval.rewards.presets import RewardPreset
from svgeval.rewards.terms import TERMS


@dataclass(frozen=True)
class RewardResult:
    """One completion's reward, its components and why it was penalised."""

    reward: float | None
    """In the preset's bounds, or its penalty; None when the reference itself cannot be scored
    (not the model's fault; TRL ignores None rewards)."""
    components: Mapping[str, float] = field(default_factory=dict)
    failure: str | None = None
    """``no_svg``, ``format``, ``empty``, ``blank``, a render failure tag (``rejected:...``,
    ``timeout``, ``crash``, ...) or ``reference:<tag>``."""


@dataclass(frozen=True)
class Row:
    """One completion to score: its group (the reference's outcome, and the completion's at
    ``position`` when it had SVG to draw; see ``failure``), both codes and the prompt's
    caption."""

    group: Future[GroupScores]
    position: int | None
    code: str
    reference_code: str
    caption: str = ""
    failure: str | None = None


@dataclass
class _Scored:
    index: int
    image: np.ndarray
    reference: np.ndarray
    caption: str
    values: dict[str, float]


def score_rows(preset: RewardPreset, rows: Sequence[Row], settings: ModelSettings,
               batch: int = 32) -> list[RewardResult]:
    """Each row's :class:`RewardResult` under ``preset``, in order (module docstring)."""
    active = preset.active()
    code_terms = [TERMS[c] for c in active if TERMS[c].kind == "code"]
    model_terms = [c for c in active if TERMS[c].kind == "model"]
    references: dict[Future[GroupScores], np.ndarray] = {}  # unpacked once a group, for models
    results: list[RewardResult | None] = [None] * len(rows)
    waiting: list[_Scored] = []
    for index, row in enumerate(rows):
        scores = row.group.result()
        if isinstance(scores.reference, RenderFailure):
            results[index] = RewardResult(None, {}, f"reference:{scores.reference.tag}")
            continue
        compared = scores.completions[row.position] if row.position is not None else None
        failure = row.failure or ("no_svg" if compared is None else compared.failure)
        if failure is not None or compared is None:
            results[index] = RewardResult(preset.penalty, {}, failure or "no_svg")
            continue
        values = dict(compared.values)
        values.update({t.name: t.code(row.code, row.reference_code)
                       for t in code_terms if t.code})
        if not model_terms or compared.pixels is None:
            results[index] = _combine(preset, values)
            continue
        reference = references.get(row.group)
        if reference is None:
            reference = references[row.group] = scores.reference.pixels
        waiting.append(_Scored(index, compared.pixels, reference, row.caption, values))
        if len(waiting) >= batch:
            _run_models(preset, model_terms, waiting, settings, results)
            waiting = []
    _run_models(preset, model_terms, waiting, settings, results)
    return [r if r is not None else RewardResult(None) for r in results]


def _run_models(preset: RewardPreset, names: list[str], scored: list[_Scored],
                settings: ModelSettings, results: list[RewardResult | None]) -> None:
    """Compute the model terms of ``scored`` in one batch each and store their results."""
    if not scored:
        return
    predictions = [s.image for s in scored]
    references = [s.reference for s in scored]
    captions = [s.caption for s in scored]
    for name in names:
        for item, value in zip(scored, MODEL_TERMS[name](predictions, references, captions,
                                                         settings)):
            item.values[name] = value
    for item in scored:
        results[item.index] = _combine(preset, item.values)


def _combine(preset: RewardPreset, values: Mapping[str, float]) -> RewardResult:
    """The preset's ``R`` of ``values``, kept within its bounds (rounding)."""
    low, high = preset.bounds()
    reward = min(max(preset.combined(values), low), high)
    ordered = {c: values[c] for c in preset.active()}
    return RewardResult(float(reward), ordered)
