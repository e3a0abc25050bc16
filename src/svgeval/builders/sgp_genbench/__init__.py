"""The built-in sample of the sgp-genbench suite (:mod:`svgeval.builders.sgp_genbench.builtin`)."""
