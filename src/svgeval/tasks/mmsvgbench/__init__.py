"""MMSVGBench (OmniSVG, Yang et al. 2025): text-to-SVG and image-to-SVG on icons and
illustrations, scored with OmniSVG's released ``metrics/compute_*.py`` protocol.

Importing this package registers ``mmsvgbench-text2svg``, ``mmsvgbench-img2svg`` and the
``omnisvg`` metric preset. See docs/suites/mmsvgbench.md.
"""

from svgeval.tasks.mmsvgbench import tasks

__all__ = ["tasks"]
