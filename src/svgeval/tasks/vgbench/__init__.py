"""VGBench (Zou et al., 2024), SVG part: VGQA multiple choice and VGen caption-to-SVG.

Importing this package registers ``vgbench-vgqa``, ``vgbench-vgen`` and the ``vgbench`` preset.
See docs/suites/vgbench.md.
"""

from svgeval.tasks.vgbench import vgen, vgqa

__all__ = ["vgen", "vgqa"]
