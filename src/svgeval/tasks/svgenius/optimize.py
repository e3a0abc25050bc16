"""SVGenius code optimization: compress SVG code without changing its render (appendix G.2).

Metrics per tier:

* ``ccr`` (percent, higher is better): (1 - output bytes / original bytes) x 100 over the
  samples whose response held an SVG, whether or not it renders (the released scorer's
  protocol); ``ccr_all`` counts every failed sample (no SVG, or an SVG that does not render)
  as 0, i.e. as if the original had been returned, over all samples.
* ``mse`` (in [0, 1], lower is better): mean squared error between the 224 px renders of the
  original and of the output, over the outputs that render. The released code draws an
  unrenderable output as a blank white image instead; we leave it out and flag it.

New cases come from :mod:`svgeval.builders.svgenius.optimize_generator`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import BaseModel

from svgeval.metrics.editing import compression_ratio
from svgeval.metrics.pixel import mse
from svgeval.render.isolated import Renderer
from svgeval.render.picture import RenderFailure
from svgeval.svg.extract import extract_svg
from svgeval.tasks import register_task
from svgeval.tasks.base import Sample, Target
from svgeval.tasks.outcome import Failure, FailureKind, Outcome
from svgeval.tasks.svgenius import prompts
from svgeval.tasks.svgenius.code_task import SvgeniusCodeTask
from svgeval.tasks.svgenius.data import TaskFile, tier_table
from svgeval.tasks.svgenius.protocol import RENDER_SPEC


class OptimizeItem(BaseModel):
    """A released code-optimization record (the fields svgeval reads)."""

    origin_svg: str
    opti_svg: str
    opti_ratio: float | None = None


class OptimizeTarget(Target):
    """What an optimisation is scored against."""

    origin_svg: str
    """The SVG to optimise (the compression ratio's denominator and the render compared)."""
    opti_ratio: float | None
    """The released reference optimisation's ratio, where the release gives one."""


@register_task
class SvgeniusOptimize(SvgeniusCodeTask):
    """Shrink SVG code while keeping its render."""

    name = "svgenius-optimize"
    description = "SVGenius code optimization: compression ratio (CCR) and render MSE"
    paper_table = tier_table(("ccr", "CCR"), ("mse", "MSE"))
    metrics: ClassVar[Mapping[str, str]] = {"ccr": "ccr", "ccr_all": "ccr", "mse": "mse"}
    takes_input_svg = True
    # identity answers the original itself, which renders exactly as the original (mse 0, the
    # floor), while any rewrite moves anti-aliased edge pixels; the released ccr scores an
    # extracted SVG's length whether or not it renders, so a short hostile answer can compress
    # as well as a real optimisation
    degenerate: ClassVar[Mapping[str, frozenset[str]]] = {
        "identity": frozenset({"mse"}), "hostile": frozenset({"ccr"})}
    task_file = "optimize"
    item_type = OptimizeItem

    def make_sample(
        self, sample_id: str, task_file: TaskFile[OptimizeItem], item: OptimizeItem
    ) -> Sample:
        return Sample(
            id=sample_id,
            group=task_file.group,
            messages=prompts.user_message(
                prompts.CODE_OPTIMIZATION.format(origin_svg=item.origin_svg)
            ),
            reference=f"Answer: {item.opti_svg}",
            input_svg=item.origin_svg,
            target=OptimizeTarget(origin_svg=item.origin_svg, opti_ratio=item.opti_ratio),
        )

    def score(self, sample: Sample[OptimizeTarget], response: str, renderer: Renderer) -> Outcome:
        answer = extract_svg(response, rule=self.options.extract)
        if answer.svg is None:
            return Outcome.unextracted(sample, answer, {"ccr": None, "ccr_all": 0.0, "mse": None})
        original = sample.target.origin_svg
        ccr = compression_ratio(original, answer.svg)
        score = Outcome.of(sample, 
            metrics={"ccr": ccr, "ccr_all": ccr, "mse": None},
            extracted=answer.svg,
            extraction_rule=answer.rule,
        )
        reference = self.references.get(original, renderer)
        output = renderer.render(answer.svg, RENDER_SPEC)
        if isinstance(output, RenderFailure):
            score.metrics["ccr_all"] = 0.0
            score.failure = Failure.of_render(output)
        elif isinstance(reference, RenderFailure):
            score.failure = Failure.of_render(reference, FailureKind.REFERENCE)
        else:
            score.metrics["mse"] = mse(output.floats, reference.floats)
        return score
