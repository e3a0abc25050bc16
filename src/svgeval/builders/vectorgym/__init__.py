"""VectorGym-layout datasets from any folder of SVGs, with drawn sketches
(:mod:`~svgeval.builders.vectorgym.sketch`), the ``svgeval vectorgym`` commands, and the
built-in sample (:mod:`~svgeval.builders.vectorgym.builtin`)."""
