"""SVGenius code optimization: compress SVG code without changing its render (appendix G.2).

Metrics per tier:

* ``ccr`` (percent, higher is better): (1 - output bytes / original bytes) x 100 over the
  samples whose response held an SVG, whether or not it renders (the released scorer's
  protocol); ``ccr_all`` counts every failed sample (no SVG, or an SVG that does not render)
  as 0, i.e. as if the original had been returned, over all samples.
* ``mse`` (in [0, 1], lower is better): mean squared error between the 224 px renders of the
  original and of the output, over the outputs that render. The released code draws an
  unrenderable output as a blank white image instead; we leave it out and flag it.

New ground truth comes from SVGO (the PyPI package ``svgo-py``, a byte-exact port of npm svgo
4.1.0) with :data:`RELEASED_SVGO_CONFIG`, and records SVGO's own compression as ``opti_ratio``.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping
from typing import Any, ClassVar

import svgo
from pydantic import BaseModel

from svgeval.metrics.editing import compression_ratio
from svgeval.metrics.pixel import mse
from svgeval.svg.extract import extract_svg
from svgeval.svg.isolation import Renderer
from svgeval.tasks import register_task
from svgeval.tasks.base import Failure, FailureKind, Sample, Score
from svgeval.tasks.svgenius import prompts
from svgeval.tasks.svgenius.editing_task import SvgeniusEditingTask
from svgeval.tasks.svgenius.scoring import RENDER_SPEC

_LOG = logging.getLogger(__name__)

RELEASED_SVGO_CONFIG: Mapping[str, Any] = {
    "plugins": [
        {"name": "preset-default", "params": {"floatPrecision": 1}},
        "removeDimensions",
    ]
}
"""SVGO settings that reproduce the released ground truth's style: the default preset with one
decimal place and no width/height (every released ``opti_svg`` lacks them). On the released
originals it gives renders as close to the originals as the released ``opti_svg`` (mean MSE
1.9e-4 / 7.7e-5 / 1.2e-4 vs 1.9e-4 / 1.1e-4 / 1.2e-4 easy / medium / hard); the released files
came from an older SVGO, so bytes differ (e.g. arc flags written ``0 01`` there)."""


def build_optimize_cases(
    svgs: Mapping[str, str], *, config: Mapping[str, Any] = RELEASED_SVGO_CONFIG
) -> list[dict[str, Any]]:
    """Code-optimization items in the released layout, one per SVG that SVGO can optimize.

    ``svgs`` maps a name (stored as ``svg_path``) to SVG code. Each item holds
    ``origin_svg``, SVGO's ``opti_svg`` and its ``opti_ratio`` (CCR in percent), plus the
    optimizer version. Deterministic: the same input gives the same bytes.
    """
    cases = []
    for name, svg in svgs.items():
        try:
            optimized = svgo.optimize(svg, copy.deepcopy(dict(config)))["data"]
        except Exception as error:  # noqa: BLE001 - svgo-py raises assorted errors on odd input
            _LOG.warning(
                "SVGO could not optimize %s (%s: %s); skipped", name, type(error).__name__, error
            )
            continue
        cases.append(
            {
                "svg_path": name,
                "origin_svg": svg,
                "opti_svg": optimized,
                "opti_ratio": compression_ratio(svg, optimized),
                "optimizer": f"svgo-py {svgo.VERSION}",
            }
        )
    return cases


class OptimizeItem(BaseModel):
    """A released code-optimization record (the fields svgeval reads)."""

    origin_svg: str
    opti_svg: str
    opti_ratio: float | None = None


@register_task
class SvgeniusOptimize(SvgeniusEditingTask):
    """Shrink SVG code while keeping its render."""

    name = "svgenius-optimize"
    description = "SVGenius code optimization: compression ratio (CCR) and render MSE"
    metrics: ClassVar[Mapping[str, str]] = {"ccr": "ccr", "ccr_all": "ccr", "mse": "mse"}
    task_file = "optimize"
    item_type = OptimizeItem

    def make_sample(self, sample_id: str, group: str, item: OptimizeItem) -> Sample:
        return Sample(
            id=sample_id,
            group=group,
            messages=prompts.user_message(
                prompts.CODE_OPTIMIZATION.format(origin_svg=item.origin_svg)
            ),
            reference=f"Answer: {item.opti_svg}",
            input_svg=item.origin_svg,
            target={"origin_svg": item.origin_svg, "opti_ratio": item.opti_ratio},
        )

    def score(self, sample: Sample, response: str, renderer: Renderer) -> Score:
        answer = extract_svg(response, rule=self.settings.extract)
        if answer.svg is None:
            return Score.unextracted(answer, {"ccr": None, "ccr_all": 0.0, "mse": None})
        original = sample.target["origin_svg"]
        ccr = compression_ratio(original, answer.svg)
        score = Score(
            metrics={"ccr": ccr, "ccr_all": ccr, "mse": None},
            extracted=answer.svg,
            extraction_rule=answer.rule,
        )
        reference = self._references.get(original, renderer)
        output = renderer.render(answer.svg, RENDER_SPEC)
        if output.image is None:
            score.metrics["ccr_all"] = 0.0
            score.failure = Failure.of_render(output)
        elif reference.image is None:
            score.failure = Failure.of_render(reference, FailureKind.REFERENCE)
        else:
            score.metrics["mse"] = mse(output.image, reference.image)
        return score
