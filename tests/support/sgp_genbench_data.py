"""The replies of SGP-GenBench's and SGP-CompBench's released-value checks:
``tests/tasks/test_sgp_genbench.py`` asserts on them and ``tests/upstream/sgp_genbench.py`` runs
the release on them."""

from __future__ import annotations

GENBENCH_REPLIES = (
    'plan </think> <answer><svg width="2"><rect/></svg></answer>',
    'x </think> <answer><svg width="1"/> <svg width="3"><text>a</text></svg></answer>',
    '<svg width="1"></svg> then <svg width="2"></svg>', "<svg><rect/></svg>",
    'text <svg viewBox="0 0 1 1"><rect/>', "no svg here")
"""SGP-GenBench replies whose extracted SVG the test compares."""
FORMATTED_REPLY = '<think>plan</think> <answer><svg width="2"><rect/></svg></answer>'
TRUNCATED = '<svg viewBox="0 0 1 1"><rect/>'
"""An SVG cut short, which the release draws after lxml's recover mode closes it."""
COMPBENCH_REPLIES = ('Here: <svg width="4"><rect/></svg> and <svg width="9"></svg>',
                     "</svg> early <svg>", "no svg")
"""SGP-CompBench replies whose extracted SVG the test compares."""
VERDICT_REPLIES = ("REASONING: fine\nSCORE: 100", "SCORE: 50.", "SCORE: **30**", "I give it 75",
                   "SCORE: 0\nBut 100 would be too much",
                   "REASONING: 2 items, 100% sure\nSCORE: 30/100", "no number")
"""SGP-CompBench judge replies whose score the test compares."""
