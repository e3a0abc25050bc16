"""What the SVGenius generation tasks share: their data, reference renders, failure readings.

Text-to-SVG and image-to-SVG read one caption file per tier (``question``: the caption, a
one-element list in the release; ``answer``: the ground-truth SVG; ``image``: its PNG). The
answer is extracted with the released rule (:mod:`svgeval.svg.extract`), rendered at 224 px on
white and compared with the ground truth's render.

Two readings of every metric, as for the editing tasks:

* ``<metric>``: the released protocol. An answer with no SVG to extract is left out; an
  extracted SVG that does not render is drawn as a white canvas and counted (the released
  ``rasterize_svg`` falls back to a white image).
* ``<metric>_all``: every sample; an answer with no SVG is drawn as a white canvas too.

Every sample also carries the generation statistics of SVGauge's Table 1 (``has_svg``,
``valid_svg``, ``blank_render``; :mod:`svgeval.metrics.generation_stats`).

PSS runs inside the render isolation (:meth:`Renderer.call`): it renders every path itself.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel

from svgeval.metrics.fid import clip_fid, fid
from svgeval.metrics.generation_stats import generation_stats
from svgeval.metrics.pss import InvalidReference, pss
from svgeval.svg.extract import extract_svg
from svgeval.svg.isolation import Renderer
from svgeval.svg.render import FloatImage
from svgeval.tasks.base import (
    BatchItem,
    Failure,
    FailureKind,
    MetricContext,
    Sample,
    Score,
    batch_values,
    distribution_metrics,
    render_extracted,
)
from svgeval.tasks.svgenius.code_task import SvgeniusCodeTask
from svgeval.tasks.svgenius.scoring import RENDER_SPEC

WHITE: FloatImage = np.ones((RENDER_SPEC.height, RENDER_SPEC.width, 3))
"""What the released code draws for an output it cannot render."""


class CaptionItem(BaseModel):
    """A released generation record (the fields svgeval reads)."""

    question: list[str] | str
    answer: str
    image: str = ""

    @property
    def caption(self) -> str:
        return self.question[0] if isinstance(self.question, list) else self.question


def pss_percent(reference: str, generated: str) -> float | None:
    """PSS x 100 (the papers' scale), None when the reference fails PSS' validity rules; run
    through :meth:`Renderer.call`."""
    try:
        return pss(reference, generated, percent=True)
    except InvalidReference:
        return None


def put(score: Score, item_in_paper: bool, name: str, value: float | None) -> None:
    """Store a value under both readings (``name`` only when the paper counts the sample)."""
    score.metrics[f"{name}_all"] = value
    score.metrics[name] = value if item_in_paper else None


def batched(
    items: Sequence[BatchItem], scores: list[Score], name: str,
    compute: Callable[[], Sequence[float | None]],
) -> None:
    """Run one model metric over a batch; when it cannot run here, record why for every item."""
    values = batch_values(scores, (name, f"{name}_all"), compute)
    for item, score, value in zip(items, scores, values):
        put(score, item.in_paper_reading, name, value)


class SvgeniusGenerationTask(SvgeniusCodeTask):
    """Base of text-to-SVG and image-to-SVG.

    Set-level metrics per tier, as the released ``calculate_batch_fid``: ``fid`` (Inception v3)
    and ``clip_fid`` (CLIP ViT-B/32) between the output renders and the ground-truth renders,
    over the samples of the paper's reading, and ``fid_all``/``clip_fid_all`` over every
    sample (a failure drawn as a white canvas).
    """

    item_type = CaptionItem
    set_metrics = ("fid", "clip_fid")

    @abstractmethod
    def pixel_metrics(self, output: FloatImage, reference: FloatImage) -> dict[str, float]:
        """The per-sample image metrics of a render against the reference render."""

    def draw(self, svg: str, renderer: Renderer) -> FloatImage:
        """The 224 px render of an answer, or a white canvas when it does not render."""
        outcome = renderer.render(svg, RENDER_SPEC)
        return outcome.image if outcome.image is not None else WHITE

    def reference_image(self, sample: Sample, renderer: Renderer) -> FloatImage | None:
        return self._references.get(sample.target["answer"], renderer).image

    def score(self, sample: Sample, response: str, renderer: Renderer) -> Score:
        answer = sample.target["answer"]
        reference = self._references.get(answer, renderer)
        if reference.image is None:
            return Score(failure=Failure.of_render(reference, FailureKind.REFERENCE))
        extraction = extract_svg(response, rule=self.settings.extract)
        score, drawn = render_extracted(extraction, renderer, RENDER_SPEC)
        in_paper = extraction.svg is not None
        score.metrics.update(generation_stats(in_paper, drawn))
        output = drawn if drawn is not None else WHITE
        for name, value in self.pixel_metrics(output, reference.image).items():
            put(score, in_paper, name, value)
        self._score_pss(score, answer, extraction.svg, renderer)
        return score

    def _score_pss(
        self, score: Score, reference: str, generated: str | None, renderer: Renderer
    ) -> None:
        if generated is None:
            put(score, False, "pss", 0.0)
            return
        outcome = renderer.call(pss_percent, reference, generated)
        if outcome.failure is None and outcome.value is None:
            score.failure = Failure(
                kind=FailureKind.REFERENCE, reason="pss", detail="the ground truth fails PSS' rules"
            )
            put(score, True, "pss", None)
            return
        # an SVG whose PSS hangs or crashes the worker is as invalid as one PSS refuses: 0
        put(score, True, "pss", outcome.value if outcome.value is not None else 0.0)

    def set_score(
        self, groups: Mapping[str, Sequence[BatchItem]], context: MetricContext
    ) -> Score:
        score = Score()
        for group, items in groups.items():
            _, outputs, references, _ = self.batch_context(items, context)
            readings = {
                "": [i for i, item in enumerate(items) if item.in_paper_reading],
                "_all": list(range(len(items))),
            }
            for reading, picked in readings.items():
                distribution_metrics(score, f"{group}/{{}}{reading}",
                                     {"fid": fid, "clip_fid": clip_fid},
                                     [references[i] for i in picked], [outputs[i] for i in picked],
                                     batch_size=context.batch_size, device=context.device)
        return score

    def batch_context(self, items: Sequence[BatchItem], context: MetricContext) -> tuple[
        list[Score], list[FloatImage], list[FloatImage], dict[str, Any]
    ]:
        """Empty scores, output renders, reference renders and the metric keyword arguments."""
        outputs = [self.draw(item.output_svg, context.renderer) for item in items]
        references = [
            image if (image := self.reference_image(item.sample, context.renderer)) is not None
            else WHITE
            for item in items
        ]
        options = {"batch_size": context.batch_size, "device": context.device}
        return [Score() for _ in items], outputs, references, options
