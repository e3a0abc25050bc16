"""The built-in sample of the svgbench suite (:mod:`svgeval.builders.svgbench.builtin`)."""
