"""The built-in sample of the mmsvgbench suite (:mod:`svgeval.builders.mmsvgbench.builtin`)."""
