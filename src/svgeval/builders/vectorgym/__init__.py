"""VectorGym-layout datasets from any folder of SVGs, with drawn sketches
(:mod:`~svgeval.builders.vectorgym.sketch`), and the ``svgeval vectorgym`` commands."""
