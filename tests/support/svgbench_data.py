"""The inputs of SVGBench's released-value checks: one question, the judge replies, the model
replies and the SVGs whose render size the release computes. ``tests/tasks/test_svgbench.py``
asserts on them and ``tests/upstream/svgbench.py`` runs the release on them."""

from __future__ import annotations

import json

QUESTION = "Draw a red circle."
REQUIREMENTS = ["The circle is red.", "It is centred.", "There is one circle."]
JUDGE_COUNTS = (2, 3, 5, 1.5)
"""Fulfilled-requirement counts the judge answers (as its JSON object) for the question."""
JUDGE_REPLIES = {str(n): json.dumps({"number_of_fulfilled_requirements": n})
                 for n in JUDGE_COUNTS} | {'"3"': "3"}
"""Judge reply per key: the object for each count, and ``"3"`` the bare number (not the
object the schema asks for)."""
MODEL_REPLIES = {
    "fenced": "Sure!\n```svg\n<svg viewBox=\"0 0 10 10\"><circle r=\"4\"/></svg>\n```\nDone",
    "two": '<svg id="a"></svg> and <svg id="b"></svg>',
    "none": "no svg at all",
}
SIZED_SVGS = ('<svg width="2in" height="1in"/>', '<svg width="50%" height="30%"/>',
              '<svg viewBox="0 0 10 20"/>', '<svg width="120" height="80" viewBox="0 0 10 10"/>',
              '<svg width="10mm" height="3pc"/>', "<svg/>", '<svg width="1e3" height="5"/>')
"""SVGs whose render size (``SVGRenderer.calculate_svg_bounds``) the test compares."""
