"""The SVGenius editing metrics (svgeval.metrics.editing) against hand-computed values."""

from __future__ import annotations

import math

import pytest

from svgeval.metrics.editing import (
    change_size,
    compression_ratio,
    relative_change_distance,
    relative_mse_score,
    same_code,
    strip_whitespace,
)
from svgeval.metrics.presets import presets_using
from svgeval.metrics.registry import METRICS


def test_strip_whitespace_removes_every_kind() -> None:
    assert strip_whitespace(' <svg a="1"\n\t b="2" />\r\n') == '<svga="1"b="2"/>'


def test_same_code_ignores_whitespace_even_inside_values() -> None:
    assert same_code('<svg>\n  <path d="M1 2"/>\n</svg>', '<svg><path d="M1 2"/></svg>')
    # The released test strips every whitespace, so "M1 2" and "M12" count as the same code.
    assert same_code('<path d="M1 2"/>', '<path d="M12"/>')
    assert not same_code('<path d="M1 2"/>', '<path d="M1 3"/>')


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        ("abcdef", "abcdef", 0),
        ("abcdef", "abXdef", 1),  # one replaced character
        ("abcdef", "abcXYZdef", 3),  # three inserted
        ("abcdef", "abf", 3),  # three deleted
        ("ab cd", "a b c d", 0),  # whitespace does not count
        ("abcdef", "abXYdef", 2),  # 'c' replaced by 'XY': the longer side counts
    ],
)
def test_change_size_by_hand(source: str, target: str, expected: int) -> None:
    assert change_size(source, target) == expected


def test_relative_change_distance_is_difference_of_change_sizes() -> None:
    original = '<svg><path d="M0 0h10v10z" fill="#000000"/></svg>'
    reference = original.replace("#000000", "#123456")  # 6 characters replaced
    assert relative_change_distance(original, reference, reference) == 0
    assert relative_change_distance(original, original, reference) == -6
    rewritten = reference.replace("M0 0", "M00 00")  # two more characters
    assert relative_change_distance(original, rewritten, reference) == 2


@pytest.mark.parametrize(
    ("mse_output", "mse_original", "expected"),
    [
        (0.0, 0.2, 100.0),
        (0.05, 0.2, math.sqrt(0.75) * 100),
        (0.2, 0.2, 0.0),
        (0.9, 0.2, 0.0),  # worse than the original is clipped to 0
    ],
)
def test_relative_mse_score_formula(
    mse_output: float, mse_original: float, expected: float
) -> None:
    assert relative_mse_score(mse_output, mse_original) == pytest.approx(expected)


def test_relative_mse_score_is_undefined_without_a_visible_edit() -> None:
    assert relative_mse_score(0.1, 0.0) is None


def test_compression_ratio_counts_utf8_bytes() -> None:
    assert compression_ratio("aaaa", "aa") == 50.0
    assert compression_ratio("aaaa", "aaaa") == 0.0
    assert compression_ratio("aa", "aaa") == -50.0
    assert compression_ratio("éé", "é") == 50.0  # 4 bytes -> 2 bytes
    assert compression_ratio("ééa", "a") == 80.0  # 5 bytes -> 1 byte


def test_metrics_are_registered_with_their_direction() -> None:
    assert METRICS.get("rmse").higher_is_better and METRICS.get("ccr").higher_is_better
    assert not METRICS.get("rld").higher_is_better
    assert all("svgenius" in presets_using(name) for name in ("rmse", "rld", "ccr"))
