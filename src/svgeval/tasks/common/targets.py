"""Targets several suites share (a suite's own target, when it needs other fields, is its own
:class:`~svgeval.tasks.base.Target`)."""

from __future__ import annotations

from svgeval.tasks.base import Target


class CaptionedReference(Target):
    """What a drawn answer is compared with: a reference SVG, and the text asked for (the
    caption CLIP reads, or the judge's instruction)."""

    reference: str
    """The reference SVG (the ground truth drawn for the picture metrics)."""
    caption: str
    """The text the answer was asked for: a caption, an edit instruction; empty when the
    task has none (image-to-SVG, Sketch2SVG)."""

    @property
    def reference_svg(self) -> str:
        """The SVG an answer's picture is compared with (:class:`DrawnTarget`)."""
        return self.reference
