"""The model replies whose clean-up ``tests/tasks/test_vcode.py`` compares with VCode's released
``clean_svg_output`` (``tests/upstream/vcode_clean.py`` runs the release on them)."""

from __future__ import annotations

CLEAN_REPLIES = ('```svg\n<svg viewBox="0 0 1 1"></svg>\n```', "Here it is: <svg></svg> thanks",
                 "<svg><rect/>", "```xml\n<svg></svg>\n```")
"""A fenced SVG, an SVG inside prose, an unclosed SVG and an SVG in a fence of another kind."""
