"""SGP-Bench (Qiu et al., ICLR 2025): questions about symbolic graphics programs.

Importing this package registers ``sgp-bench-svg``, ``sgp-bench-cad``, ``sgp-bench-inv``,
``sgp-bench-mnist``, the ``sgp-bench`` preset and the ``invariance_consistency`` metric. See
docs/suites/sgp_bench.md.
"""

from svgeval.tasks.sgp_bench import metric, tasks

__all__ = ["metric", "tasks"]
