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

A released answer that does not render is a data problem: the sample is recorded with a
``reference`` failure and no metric, never as the model's failure.

The answer rule ``svgeditbench`` (registered in :data:`svgeval.svg.extract.EXTRACTION_RULES`)
is the paper's (Sec. 3.1): only text between ```` ```svg ```` and ```` ``` ```` counts, and a
response with no such block or with more than one is invalid. The release
(github.com/mti-lab/SVGEditBench) ships no evaluation code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from svgeval.metrics.editing import length_ratio
from svgeval.metrics.pixel import mse
from svgeval.metrics.presets import variant
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage, Rendered, RenderFailure
from svgeval.svg.extract import Extraction, extract_svg, extraction_rule
from svgeval.tasks import register_task
from svgeval.tasks.base import Sample, Task
from svgeval.tasks.download import resolve_data
from svgeval.tasks.outcome import Failure, FailureKind, Outcome
from svgeval.tasks.svgeditbench.data import RELEASE, EditTarget, load_release
from svgeval.tasks.tables import MetricRowsTable, TableRow

RENDER = RenderSpec.square(72)
PRESET = variant(
    "svgeditbench",
    description="SVGEditBench (Nishina & Matsui, CVPRW 2024) Sec. 3.3: CairoSVG 72 x 72 on "
    "white, MSE over pixels and channels; the compression ratio of the code",
    metrics=("length_ratio", "mse"),
    render_size=72,
)
TABLE_1 = MetricRowsTable(
    name="Table 1",
    rows=(
        TableRow("change_color", "Change Color", "mse", "MSE"),
        TableRow("set_contour", "Set Contour", "mse", "MSE"),
        TableRow("compression", "Compression", "mse", "MSE"),
        TableRow("compression", "Compression", "ratio", "Compression ratio", percent=True),
        TableRow("upside_down", "Upside-Down", "mse", "MSE"),
        TableRow("transparency", "Transparency", "mse", "MSE"),
        TableRow("crop_to_half", "Crop to Half", "mse", "MSE"),
    ),
    notes_invalid=True,
)
"""Table 1 of the paper: MSE of every subtask and the compression ratio, valid outputs only."""
_OPENING, _CLOSING = "```svg", "```"


def svg_blocks(response: str) -> list[str]:
    """The text of each ```` ```svg ```` block of ``response``: what the regular expression
    ``"```svg[ \\t]*\\n(.*?)```"`` (dot matching newlines) finds with ``findall``, found with
    ``str.find`` (faster than the regex, which tries the closing fence at every character of
    the block). An opening not followed by spaces or tabs and a newline
    is passed over, as the regex does when it moves on by one character; once an opening has
    no closing fence after it, no later opening has one either."""
    blocks: list[str] = []
    start = response.find(_OPENING)
    while start >= 0:
        end = start + len(_OPENING)
        while response.startswith((" ", "\t"), end):
            end += 1
        if not response.startswith("\n", end):
            start = response.find(_OPENING, start + 1)
            continue
        close = response.find(_CLOSING, end + 1)
        if close < 0:
            break
        blocks.append(response[end + 1:close])
        start = response.find(_OPENING, close + len(_CLOSING))
    return blocks


@extraction_rule("svgeditbench")
def extract_svgeditbench(response: str) -> Extraction:
    """The one ```` ```svg ```` block of the response, stripped (the paper's rule)."""
    blocks = svg_blocks(response)
    if not blocks:
        return Extraction(None, "svgeditbench", "no ```svg block in the response")
    if len(blocks) > 1:
        return Extraction(None, "svgeditbench", f"{len(blocks)} ```svg blocks in the response")
    return Extraction(blocks[0].strip(), "svgeditbench")


@dataclass(frozen=True)
class SvgEditBenchOptions:
    """``--set`` options of ``svgeditbench``."""

    extract: Literal["svgeditbench", "auto"] = field(
        default="svgeditbench",
        metadata={
            "help": "svgeditbench: exactly one ```svg block (the paper's rule); "
            "auto: also other fences and bare <svg>"
        },
    )


@register_task
class SvgEditBench(Task[EditTarget]):
    """SVGEditBench (CVPRW 2024): change_color, set_contour, compression, upside_down,
    transparency, crop_to_half."""

    name = "svgeditbench"
    suite = "SVGEditBench"
    suite_source = "mti-lab/SVGEditBench (GitHub)"
    preset = PRESET.name
    description = "SVGEditBench (CVPRW 2024): 6 editing tasks on 100 Twemoji, MSE of 72x72 renders"
    version = "1"
    metrics: ClassVar[Mapping[str, str]] = {
        "mse": "mse",
        "mse_all": "mse",
        "ratio": "length_ratio",
        "ratio_all": "length_ratio",
    }
    Options = SvgEditBenchOptions
    paper_table = TABLE_1
    takes_input_svg = True
    # the release has no compressed reference (the oracle answers the input itself), and the
    # paper scores a failed answer as no edit: on Compression, no baseline can trail the oracle
    degenerate: ClassVar[Mapping[str, frozenset[str]]] = {
        "identity": frozenset({"compression/mse", "compression/mse_all", "compression/ratio",
                               "compression/ratio_all"}),
        **dict.fromkeys(("empty", "hostile"),
                        frozenset({"compression/mse_all", "compression/ratio_all"})),
    }
    scores_many = True

    def load(self) -> Sequence[Sample[EditTarget]]:
        return load_release(resolve_data(RELEASE, self.common.data))

    def score(self, sample: Sample[EditTarget], response: str, renderer: Renderer) -> Outcome:
        return self.score_many([(sample, response)], renderer)[0]

    def score_many(self, items: Sequence[tuple[Sample[EditTarget], str]],
                   renderer: Renderer) -> list[Outcome]:
        """Each answer and what is compared with it (the output, else the unchanged input),
        for the whole batch, drawn together; then each sample scored."""
        extractions = [extract_svg(response, rule=self.options.extract) for _, response in items]
        drawn = renderer.draw_all(
            [svg for (sample, _), extraction in zip(items, extractions)
             for svg in (sample.target.answer_svg, extraction.svg or _input(sample))], RENDER)
        return [self._scored(sample, extraction, drawn[2 * k], drawn[2 * k + 1], renderer)
                for k, ((sample, _), extraction) in enumerate(zip(items, extractions))]

    def _scored(self, sample: Sample[EditTarget], extraction: Extraction, expected: Rendered,
                drawn: Rendered, renderer: Renderer) -> Outcome:
        """The outcome of one sample from its renders (``drawn``: the output's, or the input's
        when no SVG was extracted)."""
        if isinstance(expected, RenderFailure):
            return Outcome.of(sample, failure=Failure.of_render(expected, FailureKind.REFERENCE))
        answer = expected.floats
        if extraction.svg is None:
            return Outcome.unextracted(sample, extraction, self._no_edit(sample, answer, drawn))
        if isinstance(drawn, RenderFailure):
            return Outcome.of(
                sample,
                self._no_edit(sample, answer, renderer.render(_input(sample), RENDER)),
                extracted=extraction.svg,
                extraction_rule=extraction.rule,
                failure=Failure.of_render(drawn),
            )
        value = mse(drawn.floats, answer)
        metrics: dict[str, float | None] = {"mse": value, "mse_all": value}
        if sample.group == "compression":
            ratio = length_ratio(extraction.svg, sample.target.input_length)
            metrics.update(ratio=ratio, ratio_all=ratio)
        return Outcome.of(sample, metrics, extracted=extraction.svg,
                          extraction_rule=extraction.rule)

    def _no_edit(self, sample: Sample[EditTarget], answer: FloatImage,
                 no_edit: Rendered) -> dict[str, float | None]:
        """The ``*_all`` values of an invalid output: those of the unchanged input (No Edit),
        drawn as ``no_edit``."""
        metrics: dict[str, float | None] = {
            "mse_all": None if isinstance(no_edit, RenderFailure) else mse(no_edit.floats, answer)
        }
        if sample.group == "compression":
            metrics["ratio_all"] = 1.0
        return metrics


def _input(sample: Sample[EditTarget]) -> str:
    """The SVG the sample asks to edit (every SVGEditBench sample has one)."""
    if sample.input_svg is None:
        raise ValueError(f"SVGEditBench sample {sample.id} has no input SVG")
    return sample.input_svg
