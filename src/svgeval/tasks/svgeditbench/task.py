"""SVGEditBench: six SVG editing tasks on Twemoji, scored by MSE of 72x72 CairoSVG renders.

Nishina & Matsui, "SVGEditBench: A Benchmark Dataset for Quantitative Assessment of LLM's SVG
Editing Capabilities", CVPRW 2024. Per sample: the SVG between ```svg and ``` is the output (none
or several blocks: invalid); output and answer are rendered at 72x72 on white, values in [0, 1],
and ``mse`` is the mean squared difference over pixels and the three channels. ``compression``
also reports ``ratio`` = len(output code) / len(input code).

Two readings of the averages, both in ``results.json``:

* ``<subtask>/mse`` (and ``compression/ratio``): the paper's protocol, mean over valid outputs
  only; ``n_invalid`` is reported beside it.
* ``<subtask>/mse_all`` (and ``compression/ratio_all``): every sample counts; an invalid output
  is scored as if the model had returned the input unchanged ("No Edit"), so a broken answer is
  never better than doing nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from svgeval.metrics.pixel import mse
from svgeval.svg.extract import extract_svg
from svgeval.svg.isolation import Renderer
from svgeval.svg.render import RenderSpec
from svgeval.tasks import register_task
from svgeval.tasks.base import Sample, Score, Task
from svgeval.tasks.download import resolve_data
from svgeval.tasks.svgeditbench.data import RELEASE, load_release

RENDER = RenderSpec.square(72)


@register_task
class SvgEditBench(Task):
    """SVGEditBench (CVPRW 2024): change_color, set_contour, compression, upside_down,
    transparency, crop_to_half.

    Options (``--set``): ``extract=svgeditbench`` (paper rule, default) or ``auto`` (also
    accept bare ``<svg>`` and other fences).
    """

    name = "svgeditbench"
    description = "SVGEditBench (CVPRW 2024): 6 editing tasks on 100 Twemoji, MSE of 72x72 renders"
    version = "1"
    metric_directions: ClassVar[Mapping[str, bool]] = {
        "mse": False,
        "mse_all": False,
        "ratio": False,
        "ratio_all": False,
    }

    def load(self) -> list[Sample]:
        if self.options.tier != "all":
            raise ValueError("svgeditbench has no difficulty tiers; leave out --tier")
        return load_release(resolve_data(RELEASE, self.options.data))

    def score(self, sample: Sample, response: str, renderer: Renderer) -> Score:
        lenient = self.options.extra.get("extract") == "auto"
        extraction = extract_svg(response, rule="auto" if lenient else "svgeditbench")
        answer = renderer.render(sample.target["answer_svg"], RENDER)
        if answer.image is None:
            raise RuntimeError(f"reference answer of {sample.id} does not render: {answer.failure}")
        if extraction.svg is None:
            return self._failure(sample, answer.image, renderer, "extract", extraction.error)
        output = renderer.render(extraction.svg, RENDER)
        if output.image is None:
            assert output.failure is not None
            score = self._failure(
                sample, answer.image, renderer, f"render:{output.failure.tag}",
                output.failure.message,
            )
            score.extracted = extraction.svg
            return score
        value = mse(output.image, answer.image)
        metrics: dict[str, float | None] = {"mse": value, "mse_all": value}
        if sample.group == "compression":
            ratio = len(extraction.svg) / int(sample.target["input_length"])
            metrics.update(ratio=ratio, ratio_all=ratio)
        return Score(
            valid=True,
            metrics=metrics,
            extracted=extraction.svg,
            extraction_rule=extraction.rule,
        )

    def _failure(
        self, sample: Sample, answer: Any, renderer: Renderer, failure: str, detail: str | None
    ) -> Score:
        """An invalid output, carrying the No-Edit values for the ``*_all`` readings."""
        assert sample.input_svg is not None
        no_edit = renderer.render(sample.input_svg, RENDER)
        metrics: dict[str, float | None] = {
            "mse_all": mse(no_edit.image, answer) if no_edit.image is not None else None
        }
        if sample.group == "compression":
            metrics["ratio_all"] = 1.0
        return Score(valid=False, metrics=metrics, failure=failure, detail=detail)
