"""UniSVG (Li et al., 2025) as evaluated by VLMEvalKit: image-to-SVG, text-to-SVG and SVG
understanding, with the released weighted final score.

Importing this package registers ``unisvg-img2svg``, ``unisvg-text2svg``,
``unisvg-understanding`` and ``unisvg`` (every type, with ``overall/final_score``). See
docs/suites/unisvg.md.
"""

from svgeval.tasks.unisvg import tasks

__all__ = ["tasks"]
