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
from typing import ClassVar, cast

from pydantic import BaseModel

from svgeval.metrics.editing import relative_change_distance, relative_mse_score
from svgeval.metrics.pixel import mse
from svgeval.render.isolated import Renderer
from svgeval.render.picture import RenderFailure
from svgeval.svg.extract import extract_svg
from svgeval.tasks import register_task
from svgeval.tasks.aggregate import Aggregate, mean_per_group
from svgeval.tasks.base import Sample, Target
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.outcome import Failure, FailureKind, Outcome
from svgeval.tasks.svgenius import prompts
from svgeval.tasks.svgenius.code_task import SvgeniusCodeTask
from svgeval.tasks.svgenius.data import TaskFile, tier_table
from svgeval.tasks.svgenius.protocol import RENDER_SPEC


class StyleEdit(BaseModel):
    """One released style edit (the value under the icon's file name)."""

    command: str
    original: str
    modified: str


class StyleEditTarget(StyleEdit, Target):
    """What a style edit is scored against: the released edit and the edit's name."""

    name: str
    """The kind of edit (the released file's key)."""


@register_task
class SvgeniusStyleEdit(SvgeniusCodeTask):
    """Edit colours, strokes and transforms of an SVG as instructed."""

    name = "svgenius-style-edit"
    description = "SVGenius style editing: rMSE, RLD and accuracy of instructed SVG edits"
    paper_table = tier_table(("rmse", "RMSE"), ("rld", "RLD"), ("acc", "Acc"))
    metrics: ClassVar[Mapping[str, str]] = {
        "acc": "mse_improved",
        "acc_all": "mse_improved",
        "acc_strict": "mse_improved",
        "rmse": "rmse",
        "rmse_all": "rmse",
        "rld": "rld",
        "n_rmse_undefined": "sample_count",
    }
    takes_input_svg = True
    # the released acc asks MSE(gen, gt) <= MSE(ori, gt), which the unchanged original meets;
    # n_rmse_undefined counts the data's edits that leave the render unchanged, whatever the
    # answer
    degenerate: ClassVar[Mapping[str, frozenset[str]]] = {
        "identity": frozenset({"acc", "acc_all", "n_rmse_undefined"}),
        "empty": frozenset({"n_rmse_undefined"}),
        "hostile": frozenset({"n_rmse_undefined"}),
    }
    task_file = "style_edit"
    item_type = dict[str, StyleEdit]

    def make_sample(
        self, sample_id: str, task_file: TaskFile[dict[str, StyleEdit]], item: dict[str, StyleEdit]
    ) -> Sample:
        if len(item) != 1:
            raise MalformedData(
                f"style edit {sample_id} should map one file name to its edit, found {len(item)}"
            )
        ((name, edit),) = item.items()
        prompt = prompts.STYLE_EDITING.format(origin_svg=edit.original, command=edit.command)
        return Sample(
            id=sample_id,
            group=task_file.group,
            messages=prompts.user_message(prompt),
            reference=f"Answer:{edit.modified}",
            input_svg=edit.original,
            target=StyleEditTarget(name=name, **edit.model_dump()),
        )

    def score(self, sample: Sample[StyleEditTarget], response: str, renderer: Renderer) -> Outcome:
        original, truth = sample.target.original, sample.target.modified
        ori = self.references.get(original, renderer)
        gt = self.references.get(truth, renderer)
        if isinstance(ori, RenderFailure) or isinstance(gt, RenderFailure):
            failed = ori if isinstance(ori, RenderFailure) else cast(RenderFailure, gt)
            return Outcome.of(sample, metrics=dict.fromkeys(self.metrics),
                              failure=Failure.of_render(failed, FailureKind.REFERENCE))
        truth_floats = gt.floats
        mse_original = mse(ori.floats, truth_floats)
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
        answer = extract_svg(response, rule=self.options.extract)
        if answer.svg is None:
            return Outcome.unextracted(sample, answer, metrics)
        metrics["rld"] = float(relative_change_distance(original, answer.svg, truth))
        score = Outcome.of(sample, metrics=metrics, extracted=answer.svg, extraction_rule=answer.rule)
        output = renderer.render(answer.svg, RENDER_SPEC)
        if isinstance(output, RenderFailure):
            score.failure = Failure.of_render(output)
            return score
        mse_output = mse(output.floats, truth_floats)
        rmse = relative_mse_score(mse_output, mse_original)
        metrics.update(
            acc=100.0 if mse_output <= mse_original else 0.0,
            rmse=rmse,
            rmse_all=rmse,
            acc_strict=None if rmse is None else (100.0 if rmse > 0 else 0.0),
        )
        metrics["acc_all"] = metrics["acc"]
        return score

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        """Per-tier means; ``n_rmse_undefined`` is a count."""
        return mean_per_group(outcomes, summed=("n_rmse_undefined",))
