"""SVGenius style editing: apply a colour or transform edit to an SVG (paper appendix G.3).

Metrics per tier, from the 224 px renders of the original (ori), the ground truth (gt) and the
output (gen), as in the released scorer (``src/editing/style_editing``):

* ``acc`` (percent): MSE(gen, gt) <= MSE(ori, gt), the released ``mse_better_samples_
  percentage``. Beware: returning the original unchanged satisfies it (equality), so the
  ``identity`` baseline scores 100. ``acc_strict`` asks for MSE(gen, gt) < MSE(ori, gt)
  (equivalently ``rmse`` > 0) and leaves out edits that do not change the render.
* ``rmse`` (percent, higher is better): sqrt(1 - min(1, MSE(gen, gt) / MSE(ori, gt))) x 100;
  samples whose edit does not change the render (MSE(ori, gt) = 0) are left out and counted in
  ``n_rmse_undefined``.
* ``rld`` (characters, lower is better, may be negative): change size original -> output minus
  change size original -> ground truth, whitespace removed
  (:func:`svgeval.metrics.editing.relative_change_distance`).

Paper protocol: means over the samples whose response held an SVG (``rld``) and that render
(``acc``, ``acc_strict``, ``rmse``; the released code would draw a failed render as a white
image). ``acc_all`` and ``rmse_all`` count every failed sample as 0, over all samples.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from svgeval.metrics.editing import relative_change_distance, relative_mse_score
from svgeval.metrics.pixel import mse
from svgeval.svg.extract import extract_svg
from svgeval.svg.isolation import Renderer
from svgeval.tasks import register_task
from svgeval.tasks.base import Aggregate, Sample, Score, Task, TaskOptions, mean_per_group
from svgeval.tasks.svgenius import prompts
from svgeval.tasks.svgenius.data import load_task_files
from svgeval.tasks.svgenius.scoring import (
    RENDER_SPEC,
    ReferenceRenders,
    render_failure_tag,
)


@register_task
class SvgeniusStyleEdit(Task):
    """Edit colours, strokes and transforms of an SVG as instructed."""

    name = "svgenius-style-edit"
    description = "SVGenius style editing: rMSE, RLD and accuracy of instructed SVG edits"
    metric_directions: ClassVar[Mapping[str, bool]] = {
        "acc": True,
        "acc_all": True,
        "acc_strict": True,
        "rmse": True,
        "rmse_all": True,
        "rld": False,
        "n_rmse_undefined": False,
    }

    def __init__(self, options: TaskOptions) -> None:
        super().__init__(options)
        self._references = ReferenceRenders()

    def load(self) -> list[Sample]:
        samples = []
        for task_file in load_task_files(self.options, "style_edit"):
            for index, item in enumerate(task_file.items):
                ((name, edit),) = item.items()
                prompt = prompts.STYLE_EDITING.format(
                    origin_svg=edit["original"], command=edit["command"]
                )
                samples.append(
                    Sample(
                        id=f"{task_file.group}/{index:03d}",
                        group=task_file.group,
                        messages=prompts.user_message(prompt),
                        reference=f"Answer:{edit['modified']}",
                        input_svg=edit["original"],
                        target={
                            "name": name,
                            "command": edit["command"],
                            "original": edit["original"],
                            "modified": edit["modified"],
                        },
                    )
                )
        return samples

    def score(self, sample: Sample, response: str, renderer: Renderer) -> Score:
        original, truth = sample.target["original"], sample.target["modified"]
        ori = self._references.get(original, renderer)
        gt = self._references.get(truth, renderer)
        if ori.image is None or gt.image is None:
            failed = ori if ori.image is None else gt
            return Score(
                valid=False,
                metrics=dict.fromkeys(self.metric_directions),
                failure=render_failure_tag("reference_render", failed),
                detail="the original or the ground truth does not render; sample left out",
            )
        mse_original = mse(ori.image, gt.image)
        undefined = mse_original == 0
        metrics: dict[str, float | None] = {
            "acc": None,
            "acc_all": 0.0,
            "acc_strict": None,
            "rmse": None,
            "rmse_all": None if undefined else 0.0,
            "rld": None,
            "n_rmse_undefined": 1.0 if undefined else 0.0,
        }
        answer = extract_svg(response, rule="svgenius")
        if answer.svg is None:
            return Score(
                valid=False,
                metrics=metrics,
                extraction_rule=answer.rule,
                failure="extract",
                detail=answer.error,
            )
        metrics["rld"] = float(relative_change_distance(original, answer.svg, truth))
        score = Score(
            valid=True, metrics=metrics, extracted=answer.svg, extraction_rule=answer.rule
        )
        output = renderer.render(answer.svg, RENDER_SPEC)
        if output.image is None:
            score.valid = False
            score.failure = render_failure_tag("render", output)
            score.detail = output.failure.message if output.failure else None
            return score
        mse_output = mse(output.image, gt.image)
        rmse = relative_mse_score(mse_output, mse_original)
        metrics.update(
            acc=100.0 if mse_output <= mse_original else 0.0,
            rmse=rmse,
            rmse_all=rmse,
            acc_strict=None if rmse is None else (100.0 if rmse > 0 else 0.0),
        )
        metrics["acc_all"] = metrics["acc"]
        return score

    def aggregate(self, records: Sequence[Mapping[str, Any]]) -> Aggregate:
        """Per-tier means; ``n_rmse_undefined`` is a count."""
        return mean_per_group(records, summed=("n_rmse_undefined",))
