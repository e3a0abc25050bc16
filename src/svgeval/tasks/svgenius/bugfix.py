"""SVGenius bug fixing: repair an SVG with injected syntax errors (paper appendix G.1).

Metrics per tier (percent, higher is better):

* ``acc``: the repaired code equals the ground truth once all whitespace is removed (the
  released scorer's test), over the samples whose response held an answer (the paper's
  protocol: the released script drops responses it cannot extract code from);
  ``acc_all`` counts those as failed repairs, over all samples.
* ``render_acc`` / ``render_acc_all``: the repaired code renders (224 px) pixel for pixel like
  the ground truth, so that repairs written differently still count. An answer that does not
  render counts as a miss; the sample is flagged with its render failure.

The answer is taken with the released extractor (``--set extract=svgenius``, the default: the
last ``<svg>...</svg>``). With ``--set extract=auto`` a response with no complete SVG element
still gives an answer: the raw body of a code block or the text after ``Answer:`` (the repair
may be malformed, and is then simply wrong).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import ClassVar

import numpy as np
from pydantic import BaseModel

from svgeval.metrics.editing import same_code
from svgeval.render.isolated import Renderer
from svgeval.render.picture import RenderFailure
from svgeval.svg.extract import Extraction, after_last_answer, extract_svg
from svgeval.tasks import register_task
from svgeval.tasks.base import Sample, Target
from svgeval.tasks.outcome import Failure, FailureKind, Outcome
from svgeval.tasks.svgenius import prompts
from svgeval.tasks.svgenius.code_task import SvgeniusCodeTask
from svgeval.tasks.svgenius.data import TaskFile, tier_table
from svgeval.tasks.svgenius.protocol import RENDER_SPEC

_CODE_BLOCK = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)


def extract_repair(response: str, rule: str = "svgenius") -> Extraction:
    """The repaired SVG of a response (see the module docstring for the rules)."""
    found = extract_svg(response, rule=rule)
    if found.ok or rule != "auto":
        return found
    blocks = [body.strip() for body in _CODE_BLOCK.findall(response) if body.strip()]
    if blocks:
        return Extraction(blocks[0], "code_block")
    answer = after_last_answer(response)
    if answer is not None and response[answer:].strip():
        return Extraction(response[answer:].strip(), "answer_text")
    return found


class BugFixItem(BaseModel):
    """A released bug-fixing record (the fields svgeval reads)."""

    bug_svg: str
    ground_truth: str
    error_type: str = ""


class BugFixTarget(Target):
    """What a repair is scored against."""

    ground_truth: str
    """The released repaired SVG."""
    error_type: str = ""
    """The kind of bug injected (for reading results by bug)."""


@register_task
class SvgeniusBugFix(SvgeniusCodeTask):
    """Repair tag, path-command and attribute errors in SVG code."""

    name = "svgenius-bugfix"
    description = "SVGenius bug fixing: repair injected SVG syntax errors (exact-match accuracy)"
    paper_table = tier_table(("acc", "Acc"), ("render_acc", "Render acc"))
    metrics: ClassVar[Mapping[str, str]] = {
        "acc": "exact_match",
        "acc_all": "exact_match",
        "render_acc": "render_match",
        "render_acc_all": "render_match",
    }
    takes_input_svg = True
    task_file = "bugfix"
    item_type = BugFixItem

    def make_sample(
        self, sample_id: str, task_file: TaskFile[BugFixItem], item: BugFixItem
    ) -> Sample:
        return Sample(
            id=sample_id,
            group=task_file.group,
            messages=prompts.user_message(prompts.BUG_FIXING.format(bug_svg=item.bug_svg)),
            reference=f"Answer:{item.ground_truth}",
            input_svg=item.bug_svg,
            target=BugFixTarget(ground_truth=item.ground_truth, error_type=item.error_type),
        )

    def score(self, sample: Sample[BugFixTarget], response: str, renderer: Renderer) -> Outcome:
        answer = extract_repair(response, self.options.extract)
        if answer.svg is None:
            return Outcome.unextracted(sample, 
                answer,
                {"acc": None, "acc_all": 0.0, "render_acc": None, "render_acc_all": 0.0},
            )
        truth = sample.target.ground_truth
        exact = 100.0 if same_code(answer.svg, truth) else 0.0
        metrics: dict[str, float | None] = {"acc": exact, "acc_all": exact}
        score = Outcome.of(sample, metrics=metrics, extracted=answer.svg, extraction_rule=answer.rule)
        reference = self.references.get(truth, renderer)
        if isinstance(reference, RenderFailure):  # the text comparison stands; the render one cannot run
            metrics.update(render_acc=None, render_acc_all=None)
            score.failure = Failure.of_render(reference, FailureKind.REFERENCE)
            return score
        output = renderer.render(answer.svg, RENDER_SPEC)
        if isinstance(output, RenderFailure):
            metrics.update(render_acc=0.0, render_acc_all=0.0)
            score.failure = Failure.of_render(output)
            return score
        same_render = 100.0 if np.array_equal(output.pixels, reference.pixels) else 0.0
        metrics.update(render_acc=same_render, render_acc_all=same_render)
        return score
