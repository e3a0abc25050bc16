"""SVGBench (johnbean393/SVGBench): text-to-SVG prompts with lists of requirements, judged by a
vision model on the render.

Importing this package registers the task ``svgbench``, its extraction rule and the ``svgbench``
preset. See docs/suites/svgbench.md.
"""

from svgeval.tasks.svgbench import task

__all__ = ["task"]
