"""Base of the tasks whose answer is SVG code, drawn and compared with a reference's picture.

Text-to-SVG, image-to-SVG, sketch-to-SVG and the picture-scored editing tasks of every suite
score an answer the same way; only the rule that reads the SVG out of the answer, the drawing
(render size, stand-in of a failed answer) and the metrics differ. :meth:`score` is that way:

1. draw the reference (cached by content); one that does not draw is the data's failure
   (``reference``), never the model's;
2. read the answer's SVG with the task's extraction rule and draw it
   (:func:`~svgeval.tasks.base.render_extracted`: nothing extracted or a failed render is
   recorded as the sample's failure);
3. :meth:`ImageGenerationTask.score_picture` adds the per-sample metrics of the answer's
   picture (None when it has none) against the reference's.

In the batched metric stage, :meth:`~ImageGenerationTask.drawn` gives every item's picture in
8 bits with the drawing's stand-in for a failed answer (:meth:`~ImageGenerationTask.drawn_group`
a set-level metric's whole group, kept compressed), and
:meth:`~ImageGenerationTask.metric_options` the keyword arguments of the model metrics (batch
size, device, model settings, the task's metric preset).
"""

from __future__ import annotations

import functools
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np
from numpy.typing import NDArray
from typing_extensions import TypeVar

from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage, Rendered, RenderFailure
from svgeval.svg.extract import Extraction, extract_svg
from svgeval.tasks.base import BatchItem, MetricContext, Sample, Task, render_extracted
from svgeval.tasks.common.drawing import Drawing, kept_in_chunks
from svgeval.tasks.common.references import ReferenceRenders
from svgeval.tasks.outcome import Failure, FailureKind, Outcome


class DrawnTarget(Protocol):
    """The target of a sample whose answer is drawn: it holds the SVG compared with."""

    @property
    def reference_svg(self) -> str:
        """The SVG whose picture an answer's picture is compared with."""


DrawnT = TypeVar("DrawnT", bound=DrawnTarget, default=Any)


@dataclass(frozen=True)
class DrawnBatch:
    """The 8-bit pictures of a batch: whether each answer drew (False for a failed one), the
    answers' pictures (the drawing's stand-in for a failed one) and the references' (the
    stand-in for one that does not draw). 8 bits, as drawn: the model metrics take them so,
    and floats would be turned back into bytes (the same values, at a cost in time for each
    image, and eight times the memory)."""

    valid: list[bool]
    outputs: Sequence[NDArray[np.uint8]]
    references: Sequence[NDArray[np.uint8]]


class ImageGenerationTask(Task[DrawnT]):
    """A task whose answer is SVG code compared, drawn, with a reference SVG's picture (its
    samples' targets are :class:`DrawnTarget`)."""

    drawing: ClassVar[Drawing]
    """How answers and references are drawn, and what a failed answer is compared as."""
    extraction_rule: ClassVar[str] = "auto"
    """The registered rule that reads an answer's SVG, unless the task's options name one (an
    ``extract`` option, ``--set extract=...``)."""

    @functools.cached_property
    def references(self) -> ReferenceRenders:
        """The references' renders at :attr:`drawing`'s spec, cached by content."""
        return ReferenceRenders(self.drawing.spec)

    @abstractmethod
    def score_picture(self, outcome: Outcome, sample: Sample[DrawnT], answer: Extraction,
                      picture: FloatImage | None, reference: FloatImage,
                      renderer: Renderer) -> None:
        """Add to ``outcome`` the per-sample metrics of the answer's ``picture`` (None: nothing
        was extracted, or it did not draw) against the ``reference`` picture."""

    def reference_svg(self, sample: Sample[DrawnT]) -> str:
        """The SVG an answer to ``sample`` is compared with (its target's)."""
        return sample.target.reference_svg

    def extract(self, response: str) -> Extraction:
        """The answer's SVG code, read by the rule the options or :attr:`extraction_rule`
        name."""
        return extract_svg(response, rule=getattr(self.options, "extract", self.extraction_rule))

    def reference(self, sample: Sample[DrawnT], renderer: Renderer) -> Rendered:
        """The render of the sample's reference SVG (cached)."""
        return self.references.get(self.reference_svg(sample), renderer)

    def prepare(self, answer: Extraction, renderer: Renderer) -> Extraction:
        """What is drawn for an extracted answer: the answer itself here; a suite whose released
        pipeline repairs answers first (StarVector, VectorGym) does so here."""
        return answer

    def score(self, sample: Sample[DrawnT], response: str, renderer: Renderer) -> Outcome:
        reference = self.reference(sample, renderer)
        if isinstance(reference, RenderFailure):
            return Outcome.of(sample, failure=Failure.of_render(reference, FailureKind.REFERENCE))
        answer = self.prepare(self.extract(response), renderer)
        outcome, picture = render_extracted(sample, answer, renderer, self.drawing.spec)
        self.score_picture(outcome, sample, answer, picture, reference.floats, renderer)
        return outcome

    def drawn(self, items: Sequence[BatchItem[DrawnT]], renderer: Renderer) -> DrawnBatch:
        """The pictures of ``items`` for the batched metrics, drawn side by side (those drawn
        before are kept by the renderer and by :attr:`references`); a set-level metric's group
        is drawn by :meth:`drawn_group`."""
        pictures = self.drawing.render_all([item.output_svg for item in items], renderer)
        references = self.references.draw_all(
            [self.reference_svg(item.sample) for item in items], renderer)
        return DrawnBatch(
            valid=[picture is not None for picture in pictures],
            outputs=[self.drawing.stand_in_pixels(picture) for picture in pictures],
            references=[self.drawing.stand_in_pixels(picture) for picture in references],
        )

    def drawn_group(self, items: Sequence[BatchItem[DrawnT]], renderer: Renderer,
                    chunk: int = 64) -> DrawnBatch:
        """The pictures of a whole group for the set-level metrics (FID, CLIP-FID), drawn
        ``chunk`` at a time as :meth:`drawn` draws a batch and kept compressed, each unpacked
        when a metric reads it (:func:`~svgeval.tasks.common.drawing.kept_in_chunks`; a
        stand-in is the shared canvas): held as pixels, a group's pictures took 1.5 MiB a sample
        at 512 px (bench/RESULTS.md)."""
        outputs = self.drawing.render_kept([item.output_svg for item in items], renderer, chunk)
        references = kept_in_chunks([self.reference_svg(item.sample) for item in items],
                                    lambda part: self.references.draw_all(part, renderer), chunk)
        return DrawnBatch([picture is not None for picture in outputs],
                          self.drawing.unpacked(outputs), self.drawing.unpacked(references))

    def metric_options(self, context: MetricContext) -> dict[str, Any]:
        """Keyword arguments of the batched model metrics: the context's
        (:meth:`MetricContext.keywords`) and the preset."""
        return {**context.keywords(), "preset": self.preset}
