"""The built-in sample of the vcode suite (:mod:`svgeval.builders.vcode.builtin`)."""
