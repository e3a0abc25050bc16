"""The replies of VGBench's released-value checks: ``tests/tasks/test_vgbench.py`` asserts on
them and ``tests/upstream/vgbench.py`` runs the release on them."""

from __future__ import annotations

VGQA_REPLIES: tuple[tuple[str | None, str], ...] = (
    ("B", "B"), ("B. red", "B"), ("The answer is B", "B"), (" B", "B"), (None, "A"))
"""(the model's last message, the gold letter) per VGQA question; ``None``: no reply."""
VGEN_REPLIES = ("```svg\n<svg/>\n```", "```svg\n<svg/>\n```\nHope this helps!", "<svg/>",
                "Here:\n```svg\n<svg/>\n```")
"""VGen replies whose released clean-up (``generate.py``) the test compares."""
