"""SVGEditBench (Nishina & Matsui, CVPRW 2024): loader and task.

The case builder (:func:`svgeval.tasks.svgeditbench.builder.build_cases`, ``write_release``)
lives in its own module, imported only by what builds data: it pulls in the SVGenius
generators, which scoring does not need.
"""

from svgeval.tasks.svgeditbench.task import SvgEditBench

__all__ = ["SvgEditBench"]
