"""VCode (Lin et al., 2025): image-to-SVG on MM-Vet, CV-Bench and MMMU pictures; a fixed vision
model answers each picture's original question from the render (CodeVQA).

Importing this package registers ``vcode-mmvet``, ``vcode-cvbench``, ``vcode-mmmu``, the metrics
``codevqa`` and ``success_rate`` and the ``vcode`` preset. See docs/suites/vcode.md.
"""

from svgeval.tasks.vcode import task

__all__ = ["task"]
