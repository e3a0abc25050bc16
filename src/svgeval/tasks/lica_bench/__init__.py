"""LICA-Bench (Graphic-Design-Bench), SVG tasks svg-1 .. svg-8 (``purvanshi/lica-bench``).

Importing this package registers ``lica-svg-1`` .. ``lica-svg-8``, the ``lica`` preset, the
extraction rules ``lica`` and ``lica-last`` and the suite's code metrics. See
docs/suites/lica_bench.md.
"""

from svgeval.tasks.lica_bench import answers, editing, generation, qa, scores

__all__ = ["answers", "editing", "generation", "qa", "scores"]
