"""The built-in sample of the sgp-bench suite (:mod:`svgeval.builders.sgp_bench.builtin`)."""
