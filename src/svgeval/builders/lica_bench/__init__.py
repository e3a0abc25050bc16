"""The built-in sample of the lica suite (:mod:`svgeval.builders.lica_bench.builtin`)."""
