"""What benchmark suites share, so that no suite imports another.

* :class:`ReferenceRenders`: renders of reference SVGs, cached by content;
* :class:`Drawing`: the render spec of a suite's image metrics and what stands in for a failed
  answer (a white or black canvas, or no picture);
* :class:`TwoReadings`: the paper's reading of each metric beside a second one, under a key
  with a suffix (``_all``, ``_worst``);
* :class:`CaptionedReference`: the target of an answer drawn and compared with a reference
  SVG, with the text asked for;
* :class:`ImageGenerationTask`: the base of tasks whose answer is SVG code drawn and compared
  with a reference picture;
* :func:`unique_ids`, :func:`parquet_files`, :func:`read_parquet_tables`: rows of parquet
  releases and their sample ids.
"""

from svgeval.tasks.common.drawing import Drawing, FailedPicture
from svgeval.tasks.common.image_generation import DrawnBatch, DrawnTarget, ImageGenerationTask
from svgeval.tasks.common.readings import FailedValue, TwoReadings
from svgeval.tasks.common.references import ReferenceRenders
from svgeval.tasks.common.rows import parquet_files, read_parquet_tables, unique_ids
from svgeval.tasks.common.targets import CaptionedReference

__all__ = [
    "CaptionedReference",
    "Drawing",
    "DrawnBatch",
    "DrawnTarget",
    "FailedPicture",
    "FailedValue",
    "ImageGenerationTask",
    "ReferenceRenders",
    "TwoReadings",
    "parquet_files",
    "read_parquet_tables",
    "unique_ids",
]
