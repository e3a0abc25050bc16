"""SVGEditBench (Nishina & Matsui, CVPRW 2024): loader and task.

The case builder lives in :mod:`svgeval.builders.svgeditbench` (a run never imports it).
"""

from svgeval.tasks.svgeditbench.task import SvgEditBench

__all__ = ["SvgEditBench"]
