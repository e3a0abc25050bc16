"""StarVector SVG-Bench (Rodriguez et al., 2023): image-to-SVG and text-to-SVG over the
StarVector datasets, scored with the released ``starvector/metrics`` protocol.

Importing this package registers ``starvector-img2svg`` and ``starvector-text2svg``. See
docs/suites/starvector.md.
"""

from svgeval.tasks.starvector import tasks

__all__ = ["tasks"]
