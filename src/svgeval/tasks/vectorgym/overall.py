"""The overall VectorGym score (paper Sec. 3.5), from the results of the four tasks.

Each task's score is the mean of its components, each scaled to [0, 100]; the overall score is
the mean of the four task scores::

    Sketch2SVG, editing:  mean(10 J, 100 DINO, inv(MSE), inv(LPIPS))
    Text2SVG:             mean(10 J, CLIP, 100 DINO)
    Captioning:           mean(J_cap, BGE-M3, ROUGE-L)
    VectorGym score:      mean over the four tasks

with J the 1-10 VLM judge score, J_cap the 0-100 caption rubric score, CLIP, BGE-M3 and ROUGE-L
already on 0-100. The paper's inversion formula is lost in our copy of the text; the default
``inversion="linear"`` is ``inv(x) = 100 (1 - x)`` (ours, stated in docs/suites/vectorgym.md);
``"clipped"`` is ``100 max(0, 1 - x)`` (LPIPS may exceed 1). ``reading`` picks the released
keys (``mse``: the released L2 over RGB; failures drawn as the released placeholder or red X)
or the ``_worst`` keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from svgeval.errors import UserError

Inversion = Literal["linear", "clipped"]
Reading = Literal["released", "worst"]

TASK_COMPONENTS: Mapping[str, tuple[tuple[str, str], ...]] = {
    "vectorgym-sketch": (("judge", "x10"), ("dino", "x100"), ("mse", "inv"), ("lpips", "inv")),
    "vectorgym-edit": (("judge", "x10"), ("dino", "x100"), ("mse", "inv"), ("lpips", "inv")),
    "vectorgym-text": (("judge", "x10"), ("clip", "x1"), ("dino", "x100")),
    "vectorgym-caption": (("judge", "x1"), ("bge_m3", "x1"), ("rouge_l", "x1")),
}
"""Each task's (metric key, scaling) components, in the paper's order."""
_HAS_WORST = ("dino", "mse", "lpips", "clip")


class IncompleteRuns(UserError, ValueError):
    """A task is missing, repeated, or lacks a component value (of the runs the user named). A
    ValueError as well, the error it was before, which callers may catch."""


@dataclass(frozen=True)
class TaskScore:
    """One task's score and its scaled components (metric key -> value on 0-100)."""

    task: str
    components: dict[str, float]

    @property
    def score(self) -> float:
        return sum(self.components.values()) / len(self.components)


def _scale(kind: str, inversion: Inversion) -> Callable[[float], float]:
    if kind == "inv":
        return (lambda x: 100.0 * (1.0 - x)) if inversion == "linear" else (
            lambda x: 100.0 * max(0.0, 1.0 - x))
    factor = {"x1": 1.0, "x10": 10.0, "x100": 100.0}[kind]
    return lambda x: factor * x


def task_score(task: str, metrics: Mapping[str, float | None], inversion: Inversion = "linear",
               reading: Reading = "released") -> TaskScore:
    """The score of one task from its metric means (keys without the group prefix)."""
    components: dict[str, float] = {}
    for key, kind in TASK_COMPONENTS[task]:
        name = f"{key}_worst" if reading == "worst" and key in _HAS_WORST else key
        value = metrics.get(name)
        if value is None:
            raise IncompleteRuns(f"{task}: no value for {name} (a judge run? model weights?)")
        components[name] = _scale(kind, inversion)(value)
    return TaskScore(task, components)


def overall(per_task: Mapping[str, Mapping[str, float | None]], inversion: Inversion = "linear",
            reading: Reading = "released") -> tuple[float, list[TaskScore]]:
    """The VectorGym score and the four task scores; ``per_task`` maps each of the four task
    names to its metric means."""
    missing = sorted(set(TASK_COMPONENTS) - set(per_task))
    if missing:
        raise IncompleteRuns(f"no run of {', '.join(missing)}; give one run of each of the "
                             "four VectorGym tasks")
    scores = [task_score(task, per_task[task], inversion, reading) for task in TASK_COMPONENTS]
    return sum(s.score for s in scores) / len(scores), scores
