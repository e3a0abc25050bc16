"""``toy-circles``: draw N circles; the answer is the SVG between ``<answer>`` tags."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import ClassVar

from svgeval.messages import user_message
from svgeval.metrics.presets import variant
from svgeval.svg.extract import Extraction, extract_svg, extraction_rule
from svgeval.render.isolated import Renderer
from svgeval.tasks import register_task
from svgeval.tasks.base import Sample, Target, Task
from svgeval.tasks.outcome import Outcome
from toy_suite.metric import circle_error

PROMPT = "Draw {count} circles. Answer with the SVG code between <answer> and </answer>."
PRESET = variant("toy", description="the toy suite: svgeval's default settings",
                 metrics=("circle_error",))
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)


@extraction_rule("toy")
def extract_answer(response: str) -> Extraction:
    """The text between the last ``<answer>`` and ``</answer>``."""
    found = _ANSWER.findall(response)
    if not found:
        return Extraction(None, "toy", "no <answer>...</answer> in the response")
    return Extraction(found[-1].strip(), "toy")


class Circles(Target):
    """What an answer is scored against: the number of circles asked for."""

    count: int


@register_task
class ToyCircles(Task[Circles]):
    """Draw N circles (N from ``--data``, a JSON list of counts; 1, 2, 3 without it)."""

    name = "toy-circles"
    description = "draw N circles; error = |circles drawn - N|"
    suite = "Toy"
    preset = PRESET.name
    metrics: ClassVar[Mapping[str, str]] = {"error": "circle_error"}

    def load(self) -> Sequence[Sample[Circles]]:
        data = self.common.data
        counts = json.loads(data.read_text()) if data is not None else [1, 2, 3]
        return [Sample(id=f"n{count}", group="toy", target=Circles(count=count),
                       messages=user_message(PROMPT.format(count=count)),
                       reference="<answer><svg>" + "<circle r='1'/>" * count + "</svg></answer>")
                for count in counts]

    def score(self, sample: Sample[Circles], response: str, renderer: Renderer) -> Outcome:
        answer = extract_svg(response, "toy")
        if answer.svg is None:
            return Outcome.unextracted(sample, answer, {"error": None})
        return Outcome.of(sample, {"error": circle_error(answer.svg, sample.target.count)},
                          extracted=answer.svg, extraction_rule=answer.rule)
