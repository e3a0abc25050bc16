"""SGP-Bench invariance: how consistently a model answers the same question about a program and
its translated or rotated variants (``evaluate_consistency.py`` of the release).

For each family (``translation``: ``inv``, ``inv_t0``..``inv_t4``; ``rotation``: ``inv``,
``inv_r0``..``inv_r4``) and each question *i* (the *i*-th row of every split: the release pairs
them by position), the six extracted answers give ``c_i = (count of the most common answer) / 6``;
``<family>/consistency`` is the mean of ``c_i`` and ``<family>/accuracy`` the mean of the six
splits' accuracies (``calculate_average_accuracy``). The release counts an unextracted answer
as the answer ``None``, so six unanswered variants are "100 % consistent";
``<family>/consistency_answered`` (ours) is the mean over questions whose six variants all have
an answer, and ``<family>/left_out`` counts the others.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from svgeval.tasks.outcome import Outcome

TRANSLATION = ("inv", "inv_t0", "inv_t1", "inv_t2", "inv_t3", "inv_t4")
ROTATION = ("inv", "inv_r0", "inv_r1", "inv_r2", "inv_r3", "inv_r4")
FAMILIES = {"translation": TRANSLATION, "rotation": ROTATION}
SPLITS = TRANSLATION + ROTATION[1:]


def question_consistency(answers: Iterable[str | None]) -> float:
    """Share of the answers equal to the most common one (``None`` counted as an answer)."""
    counted = Counter("None" if answer is None else answer for answer in answers)
    return max(counted.values()) / sum(counted.values())


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def consistency_metrics(outcomes: Iterable[Outcome]) -> dict[str, float | None]:
    """``<family>/consistency``, ``consistency_answered``, ``left_out`` and ``accuracy`` of the
    invariance outcomes (ids ``<split>/<index>``; epochs apart). A question missing from one of
    a family's splits is left out of both consistencies and counted in ``left_out``."""
    answers: dict[tuple[int, str], dict[str, str | None]] = defaultdict(dict)
    accuracy: dict[str, list[float]] = defaultdict(list)
    for outcome in outcomes:
        split, index = outcome.id.split("/", 1)
        answers[(outcome.epoch, index)][split] = outcome.extracted
        value = outcome.metrics.get("accuracy")
        if value is not None:
            accuracy[split].append(float(value))
    metrics: dict[str, float | None] = {}
    for family, splits in FAMILIES.items():
        every: list[float] = []
        answered: list[float] = []
        left_out = 0
        for by_split in answers.values():
            if not all(split in by_split for split in splits):
                left_out += 1
                continue
            variants = [by_split[split] for split in splits]
            every.append(question_consistency(variants))
            if all(variant is not None for variant in variants):
                answered.append(every[-1])
            else:
                left_out += 1
        split_means = [_mean(accuracy[split]) for split in splits]
        metrics[f"{family}/consistency"] = _mean(every)
        metrics[f"{family}/consistency_answered"] = _mean(answered)
        metrics[f"{family}/left_out"] = float(left_out)
        metrics[f"{family}/accuracy"] = (None if None in split_means
                                         else _mean([m for m in split_means if m is not None]))
    return metrics
