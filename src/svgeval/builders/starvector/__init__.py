"""StarVector SVG-Bench's built-in sample: svgeval's demo icons in the hub layouts of two
datasets (:mod:`~svgeval.builders.starvector.builtin`)."""
