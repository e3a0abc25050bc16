"""The built-in sample of the starvector suite (:mod:`svgeval.builders.starvector.builtin`)."""
