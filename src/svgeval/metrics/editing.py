"""Editing metrics: SVGenius' rMSE (style editing), RLD (style editing) and CCR (optimization),
and SVGEditBench's code length ratio (compression task).

The first three come from SVGenius (Chen et al., 2025, appendix G and the released scorers under
``src/editing/`` of github.com/ZJU-REAL/SVGenius). The code-level metrics work on the SVG text
with every whitespace character removed, as the released scorers do.
"""

from __future__ import annotations

import difflib
import functools
import math
import re

from svgeval.metrics.registry import MetricInfo, describe_metric

_SVGENIUS = "SVGenius (Chen et al., 2025), appendix G and its released scorers"

describe_metric(
    MetricInfo(
        name="rmse",
        summary="relative MSE score sqrt(1 - min(1, MSE(gen, gt) / MSE(ori, gt))) x 100",
        value_range="[0, 100]",
        higher_is_better=True,
        source=f"{_SVGENIUS}, eq. 3",
    )
)
describe_metric(
    MetricInfo(
        name="rld",
        summary="change size (original -> output) minus change size (original -> ground truth)",
        value_range="integer, may be negative; 0 is the reference edit's size",
        higher_is_better=False,
        source=f"{_SVGENIUS} (calculate_change_magnitude)",
        best_at=0.0,  # the paper's "RLD↓" reads its positive values; below 0 is an under-edit
    )
)
describe_metric(
    MetricInfo(
        name="ccr",
        summary="code compression ratio (1 - optimized bytes / original bytes) x 100",
        value_range="(-inf, 100]",
        higher_is_better=True,
        source=f"{_SVGENIUS}, eq. 2",
    )
)
describe_metric(
    MetricInfo(
        name="length_ratio",
        summary="output code length / input code length",
        value_range="[0, inf); 1 is the input's length",
        higher_is_better=False,
        source="SVGEditBench (Nishina & Matsui, 2024), compression task",
    )
)

_WHITESPACE = re.compile(r"\s+")


def strip_whitespace(text: str) -> str:
    """``text`` with every whitespace character removed (the released scorers' normalisation)."""
    return _WHITESPACE.sub("", text)


def same_code(output: str, reference: str) -> bool:
    """True when the two SVG texts are equal once all whitespace is removed.

    This is SVGenius' bug-fixing accuracy test: the released scorer takes the
    ``difflib.SequenceMatcher`` ratio of the whitespace-free texts and counts a repair only
    when the ratio is exactly 1, which happens exactly when the texts are equal.
    """
    return strip_whitespace(output) == strip_whitespace(reference)


def change_size(source: str, target: str) -> int:
    """Characters changed to turn ``source`` into ``target``, whitespace ignored.

    The whitespace-free texts are aligned with ``difflib.SequenceMatcher`` (default settings,
    as in the released code); each replaced, deleted or inserted block counts the length of its
    longer side. 0 means identical; the value is at most ``len(source) + len(target)``.
    """
    return _change_size(strip_whitespace(source), strip_whitespace(target))


@functools.lru_cache(maxsize=512)
def _change_size(source: str, target: str) -> int:
    # Cached: a scorer asks for the reference edit's size again for every response.
    matcher = difflib.SequenceMatcher(None, source, target)
    return sum(
        max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
    )


def relative_change_distance(original: str, output: str, reference: str) -> int:
    """RLD: ``change_size(original, output) - change_size(original, reference)``.

    0 when the output changes the original as much as the reference edit does; positive when
    the model rewrote more than needed, negative when it changed less (the unchanged original
    scores minus the reference edit's size). Lower absolute values are better; the paper
    reports the mean (lower is better).
    """
    return change_size(original, output) - change_size(original, reference)


def relative_mse_score(mse_output: float, mse_original: float) -> float | None:
    """rMSE = sqrt(1 - min(1, MSE(gen, gt) / MSE(ori, gt))) x 100, in [0, 100], higher is better.

    ``mse_output`` is MSE(gen, gt) and ``mse_original`` MSE(ori, gt). 100 means the output
    renders exactly like the ground truth; 0 means it is no closer to it than the unedited
    original. Undefined (None) when the edit does not change the render (MSE(ori, gt) = 0).
    """
    if mse_original <= 0:
        return None
    return math.sqrt(1.0 - min(1.0, mse_output / mse_original)) * 100.0


def compression_ratio(original: str, optimized: str) -> float:
    """CCR = (1 - bytes(optimized) / bytes(original)) x 100, UTF-8 bytes; higher is better.

    0 for an unchanged file, 100 for an empty one, negative when the output grew.
    """
    original_size = len(original.encode("utf-8"))
    if original_size == 0:
        raise ValueError("the original SVG is empty")
    return (1.0 - len(optimized.encode("utf-8")) / original_size) * 100.0


def length_ratio(output: str, input_length: int) -> float:
    """len(output code) / len(input code), in characters: SVGEditBench's (Nishina & Matsui,
    2024) size measure of the compression task; below 1 the output is shorter."""
    return len(output) / input_length
