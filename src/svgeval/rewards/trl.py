"""Reward functions with TRL's signature: ``(prompts, completions, **columns) -> list[float]``.

>>> from svgeval.rewards import svg_reward
>>> trainer = GRPOTrainer(model=..., reward_funcs=[svg_reward("text2svg")], ...)  # doctest: +SKIP

TRL calls a reward function with keyword arguments ``prompts``, ``completions`` (strings, or
conversations whose last message holds the text), ``completion_ids`` and every other dataset
column, one value per completion. The reference is read from the ``reference`` column (change it
with ``reference_column``) and, with the ``by_task`` preset, each row's preset from ``task``.
Terms that compare the render with a caption (``clip_text``, ``hps``) read it from the
``caption`` column (``caption_column``), else from the prompt (its text, or the last message of
a conversation).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from svgeval.render.forkserver import DEFAULT_RENDERER
from svgeval.rewards.pipeline import RewardResult
from svgeval.rewards.presets import RewardPreset
from svgeval.rewards.scorer import RewardScorer


def completion_text(completion: Any) -> str:
    """The text of a TRL completion: a string, or the content of a conversation's last message
    (a string, or a list of ``{"type": "text", "text": ...}`` parts)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion:
        content = completion[-1].get("content", "") if isinstance(completion[-1], Mapping) else ""
        if isinstance(content, str):
            return content
        return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    return ""


class SvgReward:
    """A TRL reward function backed by a :class:`RewardScorer` (see :func:`svg_reward`)."""

    def __init__(self, scorer: RewardScorer, reference_column: str, task_column: str,
                 caption_column: str = "caption") -> None:
        self.scorer = scorer
        self.reference_column = reference_column
        self.task_column = task_column
        self.caption_column = caption_column
        self.__name__ = f"svg_reward_{scorer.preset_name}"
        self.last_results: list[RewardResult] = []
        """The full results (components, failures) of the latest call."""

    def __call__(self, prompts: Sequence[Any] | None = None,
                 completions: Sequence[Any] = (), **columns: Any) -> list[float | None]:
        if self.reference_column not in columns:
            raise KeyError(f"the dataset has no {self.reference_column!r} column "
                           f"(columns: {sorted(columns)})")
        references = [str(r) for r in columns[self.reference_column]]
        tasks = columns.get(self.task_column)
        captions = columns.get(self.caption_column, prompts)
        results = self.scorer.score([completion_text(c) for c in completions], references,
                                    list(tasks) if tasks is not None else None,
                                    [completion_text(c) for c in captions]
                                    if captions is not None else None)
        self.last_results = results
        return [r.reward for r in results]

    def close(self) -> None:
        self.scorer.close()


def svg_reward(
    preset: str | RewardPreset = "by_task",
    *,
    weights: Mapping[str, float] | None = None,
    penalty: float | None = None,
    reference_column: str = "reference",
    task_column: str = "task",
    workers: int | None = None,
    timeout_s: float = 10.0,
    renderer: str = DEFAULT_RENDERER,
    caption_column: str = "caption",
    **scorer_options: Any,
) -> SvgReward:
    """A TRL reward function for ``preset`` (one of :data:`~svgeval.rewards.presets.PRESETS`:
    ``text2svg``, ``img2svg``, ``sketch2svg``, ``edit``, ``fast``, ``rlrf``, ``rlrf-server``,
    ``reason-svg``, ``sgp-rl``, ``captioning``, ``captioning-rouge``; or ``by_task``).

    Rewards lie in [penalty, 1] (see :mod:`svgeval.rewards.presets`); a reference that cannot be
    rendered gives None. Renders run in ``workers`` isolated processes with a ``timeout_s``
    limit each; ``renderer`` is ``cairosvg`` (the papers'), ``resvg`` or ``skia``. The components
    of the latest call are in ``.last_results``. What the preset needs is checked here: a
    missing package or weights raises
    :class:`~svgeval.rewards.availability.RewardUnavailable`, a missing renderer
    :class:`~svgeval.render.backends.RendererUnavailable`, each with the install to run.
    """
    from svgeval.render.backends import render_function

    scorer = RewardScorer(preset, weights=weights, penalty=penalty, workers=workers,
                          timeout_s=timeout_s, render_function=render_function(renderer),
                          **scorer_options)
    return SvgReward(scorer, reference_column, task_column, caption_column)
