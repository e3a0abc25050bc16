"""SGP-CompBench (Chen et al. 2025): compositional text-to-SVG judged by a VLM on the render.

Protocol of ``Sphere-AI-Lab/SGP-RL`` ``sgp-compbench/`` at ``533171a``, the ``sgp-compbench``
preset:

* **Prompt** (``generation.py:7-23``, ``util.py:31-39``): the system message ``You are a
  helpful assistant.`` and :data:`PROMPT`; the release asks again, up to 3 times, while the
  reply holds no ``<svg``...``</svg>`` (``--set reask=3``, default).
* **Answer** (:func:`~.answers.extract_compbench`), then XML well-formedness; an answer with
  neither, or whose drawing fails, scores 0 without asking the judge.
* **Judge** (``--judge``; released ``gpt-4o-mini``): the render at its own size, on white, as a
  JPEG of quality 95 after the text (``util.py:54-158``); binding and relation one question
  (:data:`BINDING`, :data:`RELATION`), numeracy three kinds (:data:`TOTAL`, :data:`ITEMS`,
  one :data:`COUNT` per noun), combined by :func:`~.answers.numeracy_score`.
* **Readings**: ``score`` reads each reply as released (:func:`~.answers.released_verdict`,
  an unreadable reply is 0); ``score_checked`` reads the last ``SCORE:`` strictly
  (:func:`~.answers.strict_verdict`) and leaves a reply it cannot read out, counted as a judge
  failure. Results per ``<major>/<minor>`` group, per major type and ``all``.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from svgeval.messages import Message
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage, RenderFailure
from svgeval.tasks import register_task
from svgeval.tasks.aggregate import Aggregate, mean_per_group
from svgeval.tasks.base import Sample, Task
from svgeval.tasks.judge import JudgeRequest
from svgeval.tasks.outcome import Failure, FailureKind, Outcome
from svgeval.tasks.sgp_genbench import answers, data
from svgeval.tasks.sgp_genbench.genbench import intrinsic_spec
from svgeval.tasks.sgp_genbench.metrics import COMPBENCH_PRESET

SYSTEM = "You are a helpful assistant."
PROMPT = (
    "You are an expert in generating SVG code.\n"
    "Your task is to carefully analyze the description and produce only the corresponding SVG "
    "code.\nDo not generate any images or explanations\u2014output strictly the SVG code that "
    "fulfills the following description.\n\n"
    "You must generate the SVG code in the following format:\n1. Start with <svg> tag\n"
    "2. Include all necessary SVG elements and attributes\n3. End with </svg> tag\n\n"
    "You must ensure that the SVG code is valid and complete.\n\n"
    "You must ensure the SVG code is minimal and only includes elements necessary to satisfy "
    "the description.\n\nDescription: {description}"
)
_ASK = "Please give your response in this format:\nREASONING: [your reasoning]\nSCORE: [score]"
_BRIEF = ("Please {verb} your response in {where}format:\nREASONING: [your really brief "
          "reasoning]\nSCORE: [score]")
BINDING = (
    "Evaluate whether the image matches the following prompt: {prompt}\nScoring criteria:\n"
    "100: All items are recognizable and the binding between items and their attributes is "
    "correct.\n50: All items are recognizable, but the binding between items and their "
    "attributes is incorrect or unclear.\n30: Items are not recognizable, but the attribute "
    "binding appears correct.\n0: Items are not recognizable and the binding between items "
    "and their attributes is incorrect.\n" + _ASK)
RELATION = (
    "Evaluate whether the image matches the following prompt: {prompt}\nScoring criteria:\n"
    "100: The items is clear and the relation between items is correct.\n50: The items is not "
    "clear, but the relation between items is correct.\n30: The items is clear, but the "
    "relation between items is incorrect.\n0: The items is not clear and the relation between "
    "items is incorrect.\n" + _ASK)
TOTAL = (
    "Evaluate whether the image contains exactly {total_count} distinct items in total (they "
    "do not need to be recognizable, but should be clearly individual objects).\nScoring "
    "criteria:\n100: All items in the image are clearly individual objects, and the total "
    "count is correct.\n50: All items are clearly individual objects, but the total count is "
    "incorrect.\n30: Some items are clearly individual objects, and the total count is "
    "incorrect.\n0: The items are not clearly individual objects and the total count is "
    "incorrect.\n" + _BRIEF.format(verb="provide", where="the following "))
ITEMS = (
    "Check whether the image contains the following items: {noun_list}.\nScoring criteria:\n"
    "100: The image contains all the items listed above.\n50: The image contains most of the "
    "items listed above.\n30: The image contains some of the items listed above.\n0: The image "
    "does not contain any of the items listed above.\n"
    + _BRIEF.format(verb="give", where="this "))
COUNT = (
    "Evaluate whether the image contains exactly {count} distinct {noun} in total.\nScoring "
    "criteria:\n100: the image contains exactly {count} distinct {noun}, and they are clearly "
    "individual objects.\n50: the image does not contain all the {count} distinct {noun}, but "
    "the count is close to {count}.\n30: the image does not contain all the {count} distinct "
    "{noun}, but the count is far from {count}.\n0: the image does not contain any of the "
    "{count} distinct {noun}.\n" + _BRIEF.format(verb="provide", where="the following "))
PARTS = ("total", "item", "count_binding")
"""Numeracy's three judged components (weights 0.2, 0.2, 0.6)."""
READINGS = {"score": answers.released_verdict, "score_checked": answers.strict_verdict}
JUDGED = tuple(f"{part}{suffix}" for part in ("score", *PARTS) for suffix in ("", "_checked"))


def jpeg_message(text: str, picture: FloatImage) -> list[Message]:
    """One user message: the text, then the picture as a JPEG (quality 95) data URL."""
    from PIL import Image

    pixels = np.rint(np.clip(picture[..., :3], 0, 1) * 255).astype(np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="JPEG", quality=95)
    url = "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
    return [{"role": "user", "content": [{"type": "text", "text": text},
                                         {"type": "image_url", "image_url": {"url": url}}]}]


def questions(target: data.CompTarget) -> list[tuple[str, str]]:
    """(component, judge prompt) of each question the release asks about ``target``."""
    if target.major_type == "binding":
        return [("score", BINDING.format(prompt=target.prompt))]
    if target.major_type == "relation":
        return [("score", RELATION.format(prompt=target.prompt))]
    nouns = [c.noun for c in target.object_counts]
    return [("total", TOTAL.format(total_count=target.total_count)),
            ("item", ITEMS.format(noun_list=", ".join(nouns))),
            *(("count_binding", COUNT.format(count=c.count, noun=c.noun))
              for c in target.object_counts)]


def with_numeracy_score(outcome: Outcome) -> Outcome:
    """A numeracy outcome with ``score`` (and ``score_checked``) from its components: None when
    a component has none (a judge failure of the checked reading)."""
    metrics = outcome.metrics
    if "total" not in metrics or "score" in metrics:
        return outcome
    update = dict(metrics)
    for suffix in ("", "_checked"):
        total, item, binding = (metrics.get(f"{part}{suffix}") for part in PARTS)
        update[f"score{suffix}"] = None if total is None or item is None or binding is None \
            else answers.numeracy_score(total, item, [binding])
    return outcome.model_copy(update={"metrics": update})


@dataclass(frozen=True)
class CompBenchOptions:
    """``--set`` options of ``sgp-genbench-compbench``."""

    reask: int = field(default=3, metadata={
        "help": "asks per prompt until the reply holds <svg...</svg> (released 3; 1: once)"})


@register_task
class CompBench(Task[data.CompTarget]):
    """3,200 compositional prompts: attribute binding, spatial relations, numeracy."""

    name = "sgp-genbench-compbench"
    description = ("SGP-CompBench: binding, relation, numeracy judged 0-100 by a VLM (--judge) "
                   "with the released prompts")
    suite = "SGP-CompBench"
    suite_source = "Sphere-AI-Lab/SGP-RL@533171a sgp-compbench/ (prompts/, evaluation*.py)"
    preset = COMPBENCH_PRESET
    Options: ClassVar[type[Any]] = CompBenchOptions
    metrics: ClassVar[Mapping[str, str]] = dict.fromkeys(JUDGED, "compbench_score")
    judge_metrics: ClassVar[tuple[str, ...]] = JUDGED
    judge_sees_images = True

    def load(self) -> list[Sample[data.CompTarget]]:
        return [Sample(id=sample_id, group=f"{target.major_type}/{target.minor_type}",
                       messages=[{"role": "system", "content": SYSTEM},
                                 {"role": "user", "content": PROMPT.format(
                                     description=target.prompt)}],
                       reference=ORACLE_SVG, target=target)
                for sample_id, target in data.compbench_targets(self.common.data)]

    def answer_complete(self, response: str) -> bool:
        return answers.extract_compbench(response).svg is not None

    def score(self, sample: Sample[data.CompTarget], response: str, renderer: Renderer) -> Outcome:
        extraction = answers.extract_compbench(response)
        svg = extraction.svg
        outcome = Outcome.of(sample, extracted=svg, extraction_rule=extraction.rule)
        asked = questions(sample.target)
        failed = dict.fromkeys({f"{part}{s}" for part, _ in asked for s in ("", "_checked")}, 0.0)
        if svg is None:
            outcome.failure = Failure(kind=FailureKind.EXTRACT, detail=extraction.error)
        elif not answers.well_formed(svg):
            outcome.failure = Failure(kind=FailureKind.RENDER, reason="invalid_xml",
                                      detail="the SVG does not parse as XML (scored 0)")
        else:
            rendered = renderer.render(svg, intrinsic_spec(svg))
            if isinstance(rendered, RenderFailure):
                outcome.failure = Failure.of_render(rendered)
            else:
                for part, text in asked:
                    messages = jpeg_message(text, rendered.floats)
                    for suffix, read in (("", answers.released_verdict),
                                         ("_checked", answers.strict_verdict)):
                        outcome.ask_judge(JudgeRequest(f"{part}{suffix}", messages, read,
                                                       temperature=None))
                return outcome
        outcome.metrics.update(failed)
        return outcome

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        """Per ``<major>/<minor>`` group, per major type and ``all`` (every prompt)."""
        scored = [with_numeracy_score(outcome) for outcome in outcomes]
        levels = [mean_per_group(scored, judged=JUDGED),
                  mean_per_group((o.model_copy(update={"group": o.group.split("/")[0]})
                                  for o in scored), judged=JUDGED),
                  mean_per_group((o.model_copy(update={"group": "all"}) for o in scored),
                                 judged=JUDGED)]
        return Aggregate(
            metrics={k: v for level in levels for k, v in level.metrics.items()},
            counts={k: v for level in levels for k, v in level.counts.items()},
            stats={k: v for level in levels for k, v in level.stats.items()},
            not_computed={k: v for level in levels for k, v in level.not_computed.items()})


ORACLE_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64">'
              '<rect width="64" height="64" fill="#2a6"/></svg>')
"""What the ``oracle`` answers: CompBench has no reference drawing (a judge scores it)."""
