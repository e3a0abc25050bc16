"""The built-in sample of the unisvg suite (:mod:`svgeval.builders.unisvg.builtin`)."""
