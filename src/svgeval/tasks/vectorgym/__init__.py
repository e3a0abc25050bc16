"""VectorGym (ServiceNow, 2025): Sketch2SVG, complex SVG editing, Text2SVG and captioning.

Importing this package registers ``vectorgym-sketch``, ``vectorgym-edit``, ``vectorgym-text``
and ``vectorgym-caption``; :mod:`~svgeval.tasks.vectorgym.overall` combines four runs into the
paper's overall VectorGym score and :mod:`~svgeval.builders.vectorgym.sketch` draws sketches
of any SVG collection. See docs/suites/vectorgym.md.
"""

from svgeval.tasks.vectorgym import caption, image_tasks

__all__ = ["caption", "image_tasks"]
