"""The built-in sample of the vgbench suite (:mod:`svgeval.builders.vgbench.builtin`)."""
