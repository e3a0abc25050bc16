"""SVGBench: draw what a prompt asks; a vision judge counts the requirements the render meets.

Protocol of ``src/benchmark/benchmark.py`` (johnbean393/SVGBench at 55c1cde):

* **Prompt** (``:249-261``): one user message, no system message, :data:`PROMPT` word for word
  (it starts and ends with a newline), the requirements numbered ``1. ...`` one a line.
* **Extraction** (``:264-285``, rule ``svgbench``): the text after the first fenced
  ````` ```svg ````` up to the next fence, stripped; else, when both occur, from the first
  ``<svg`` to the first ``</svg>``; else none (an ``extract`` failure).
* **Render**: at the size :mod:`.size` gives (``--set size=released``, default) or with the
  longest side 1024 (``size=fixed``, ours), on white, in svgeval's isolated renderer (the
  release uses headless Chrome with scripts, ``file://`` and network allowed).
* **Judge** (``:305-342``): one user message, :data:`JUDGE_PROMPT` word for word and the PNG,
  with the release's JSON-schema structured output (:data:`RESPONSE_FORMAT`) and the provider's
  default temperature (none sent); the release's judge is ``google/gemini-2.5-flash`` on
  OpenRouter (``--judge openai-compatible:google/gemini-2.5-flash --judge-base-url
  https://openrouter.ai/api/v1``).
* **Score** (``:338-341``, ``:163-166``): ``number_of_fulfilled_requirements / N``, averaged over
  the questions; svgeval reports it in percent (the README leaderboard's number).

Two readings of every judge reply (one request, both parsed from the same cached reply):
``requirement_share`` is the release's (any number divided by N, so 5 of 3 gives 166.7 %; a
reply that is not the JSON object scores 0, what the release gives after its retries) and
``requirement_share_checked`` is ours (an integer count in [0, N], anything else a judge failure,
left out of the mean and counted). An answer with no SVG, or one that does not render, scores 0
in both without asking the judge (the release's 0 after three attempts).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from svgeval.messages import png_bytes, user_message
from svgeval.metrics.presets import variant
from svgeval.metrics.registry import MetricInfo, describe_metric
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.svg.extract import Extraction, extract_svg, extraction_rule
from svgeval.tasks import register_task
from svgeval.tasks.aggregate import Aggregate, mean_per_group
from svgeval.tasks.base import Sample, Target, Task, render_extracted
from svgeval.tasks.judge import JudgeRequest
from svgeval.tasks.outcome import Outcome
from svgeval.tasks.svgbench.data import load_questions
from svgeval.tasks.svgbench.size import fixed_size, released_size

PROMPT = (
    "\n{prompt} Wrap the SVG code in an SVG code block following the example below.\n\n"
    "Example:\n```svg\n"
    "<svg viewBox=\"0 0 100 100\" width=\"100\" height=\"100\">\n"
    "    <circle cx=\"50\" cy=\"50\" r=\"40\" fill=\"red\" />\n"
    "</svg>\n```\n\nRequirements:\n{requirements}\n"
)
JUDGE_PROMPT = (
    "\nExamine the generated image. How many of the following {count} requirements were "
    "fulfilled? \n\nRespond with a number ONLY, and be strict about the requirements.\n\n"
    "Requirements:\n{requirements}\n"
)
SCHEMA: Mapping[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "number_of_fulfilled_requirements": {
            "type": "number",
            "minimum": 0,
            "description": "The count of requirements that have been fulfilled",
        }
    },
    "required": ["number_of_fulfilled_requirements"],
    "additionalProperties": False,
}
RESPONSE_FORMAT: Mapping[str, Any] = {
    "type": "json_schema", "json_schema": {"name": "structured_response", "schema": SCHEMA},
}
"""``llm.py:66-74``: the schema under the name ``structured_response``."""
EXAMPLE_SVG = ('<svg viewBox="0 0 100 100" width="100" height="100">\n'
               '    <circle cx="50" cy="50" r="40" fill="red" />\n</svg>')
"""The prompt's example: what the ``oracle`` answers (SVGBench has no reference drawing)."""
FIELD = "number_of_fulfilled_requirements"
KEYS = ("requirement_share", "requirement_share_checked")
PRESET = variant(
    "svgbench",
    description="SVGBench benchmark.py: share of requirements a VLM judge (gemini-2.5-flash, "
    "JSON schema) finds met on the render, in percent",
    metrics=("requirement_share",),
).name

describe_metric(MetricInfo(
    name="requirement_share",
    summary="share of a prompt's requirements a vision judge finds met on the render, in percent "
            "(the released reading can exceed 100 when the judge over-counts)",
    value_range="[0, 100]",
    higher_is_better=True,
    source="SVGBench (johnbean393/SVGBench), src/benchmark/benchmark.py",
))


@extraction_rule("svgbench")
def extract_answer(response: str) -> Extraction:
    """The released rule (see the module docstring)."""
    if "```svg" in response:
        return Extraction(response.split("```svg")[1].split("```")[0].strip(), "svgbench")
    start, end = response.find("<svg"), response.find("</svg>")
    if start != -1 and end != -1:
        return Extraction(response[start : end + len("</svg>")].strip(), "svgbench")
    return Extraction(None, "svgbench", "no ```svg block and no <svg ...</svg> in the response")


def released_share(reply: str, count: int) -> float:
    """``json.loads(reply)[FIELD] / N`` in percent, any number; 0 for anything else."""
    try:
        value = json.loads(reply)[FIELD]
    except (ValueError, TypeError, KeyError, IndexError):
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return 0.0
    return 100.0 * value / count


def checked_share(reply: str, count: int) -> float | None:
    """Ours: the count must be a whole number in [0, N] (``3`` or ``3.0``); None otherwise."""
    try:
        value = json.loads(reply)[FIELD]
    except (ValueError, TypeError, KeyError, IndexError):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value) or value != int(value) or not 0 <= value <= count:
        return None
    return 100.0 * value / count


@dataclass(frozen=True)
class SVGBenchOptions:
    """``--set`` options of ``svgbench``."""

    size: Literal["released", "fixed"] = field(default="released", metadata={
        "help": "render size: released (the answer's width/height or viewBox, else 800x600) "
                "or fixed (longest side 1024, ours)"})
    reask: int = field(default=1, metadata={
        "help": "asks per question until the reply holds an SVG (1, ours; 3 as the release's "
                "whole-question retries)"})
    subset: Literal["full", "test"] = field(default="full", metadata={
        "help": "questions.json (105) or test_questions.json (3)"})


def numbered(requirements: Sequence[str]) -> str:
    """``1. first\\n2. second``, as the release lists requirements."""
    return "\n".join(f"{i + 1}. {requirement}" for i, requirement in enumerate(requirements))


class RequirementsTarget(Target):
    """What the judge checks a render against."""

    requirements: tuple[str, ...]
    """The question's requirements, in the order they are numbered."""


@register_task
class SVGBench(Task[RequirementsTarget]):
    """Text-to-SVG with a list of requirements per prompt, judged on the render."""

    name = "svgbench"
    description = "SVGBench: share of requirements met (%), judged by a VLM on the render"
    suite = "SVGBench"
    suite_source = "johnbean393/SVGBench@55c1cde questions/questions.json, src/benchmark"
    preset = PRESET
    Options: ClassVar[type[Any]] = SVGBenchOptions
    metrics: ClassVar[Mapping[str, str]] = dict.fromkeys(KEYS, "requirement_share")
    judge_metrics: ClassVar[tuple[str, ...]] = KEYS
    judge_sees_images = True

    def load(self) -> list[Sample[RequirementsTarget]]:
        questions = load_questions(self.common.data, self.options.subset)
        return [Sample(
            id=f"{index:03d}",
            group="all",
            messages=user_message(PROMPT.format(prompt=question.prompt,
                                                requirements=numbered(question.requirements))),
            reference=f"```svg\n{EXAMPLE_SVG}\n```",
            target=RequirementsTarget(requirements=tuple(question.requirements)),
        ) for index, question in enumerate(questions)]

    def answer_complete(self, response: str) -> bool:
        """With ``reask`` > 1, asked again while the reply holds no SVG (the release retries the
        whole question on any error, up to 3 times)."""
        return extract_answer(response).svg is not None

    def score(self, sample: Sample[RequirementsTarget], response: str, renderer: Renderer) -> Outcome:
        extraction = extract_svg(response, "svgbench")
        svg = extraction.svg or ""
        width, height = (fixed_size if self.options.size == "fixed" else released_size)(svg)
        score, image = render_extracted(sample, extraction, renderer, RenderSpec(width, height))
        if image is None:
            score.metrics = dict.fromkeys(KEYS, 0.0)
            return score
        requirements = sample.target.requirements
        count = len(requirements)
        messages = user_message(JUDGE_PROMPT.format(count=count,
                                                    requirements=numbered(requirements)),
                                images=[png_bytes(image)])
        score.ask_judge(JudgeRequest("requirement_share", messages,
                                     lambda reply: released_share(reply, count),
                                     temperature=None, response_format=RESPONSE_FORMAT))
        score.ask_judge(JudgeRequest("requirement_share_checked", messages,
                                     lambda reply: checked_share(reply, count),
                                     temperature=None, response_format=RESPONSE_FORMAT))
        return score

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        return mean_per_group(outcomes, judged=KEYS)

