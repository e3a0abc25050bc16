"""LICA-Bench svg-3 (bug fixing), svg-4 (code optimisation) and svg-5 (style editing).

The answer is the text :func:`~.answers.answer_code` reads (``_strip_svg_wrapper``), scored
against the record's target as released (``tasks/svg.py``):

* svg-3 (``:401-408``): ``edit_distance`` (difflib, :func:`~.scores.edit_distance`) to the
  ground truth, ``repair_similarity`` = 1 - that, ``repair_accuracy`` = 100 when the distance is
  below 0.05 (the release's 1.0). That threshold counts a wrong repair as exact in a longer SVG
  (``red`` -> ``blue`` in a 106-byte SVG is 0.023): ``repair_exact`` (ours) asks for the same
  canonical XML. Reported per ``difficulty`` and pooled under ``all``.
* svg-4 (``:464-478``): ``compression_ratio`` = answer bytes / original bytes (lower is
  smaller; the empty answer scores 0, the best), ``reference_compression_ratio`` the same of
  ``opti_svg``, ``mse`` of the answer's render against ``opti_svg``'s. ``--set
  failed_ratio=original`` (ours): an answer that cannot be drawn counts 1.0, as if the original
  had been returned.
* svg-5 (``:530-536``): ``edit_distance`` to ``modified`` and ``mse`` against its render.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from svgeval.messages import user_message
from svgeval.render.isolated import Renderer
from svgeval.tasks import register_task
from svgeval.tasks.aggregate import Aggregate, with_pooled_group
from svgeval.tasks.base import Sample, Target
from svgeval.tasks.lica_bench import data
from svgeval.tasks.lica_bench.protocol import CodeOptions, FenceOptions, LicaCodeTask
from svgeval.tasks.lica_bench.scores import (
    byte_ratio,
    edit_distance,
    repair_accuracy,
    same_markup,
)
from svgeval.tasks.outcome import Failure, FailureKind, Outcome

BUG_FIX_PROMPT = ("You are an SVG code repair assistant. Given a buggy SVG, output ONLY the "
                  "corrected SVG code. Do not include any explanation, markdown fences, or extra "
                  "text.")
"""``SVGBugFixing.PROMPT`` (``:359-363``); the message adds ``\\n\\nFix this SVG:\\n\\n{bug}``."""
OPTIMIZE_PROMPT = ("You are an SVG code optimizer. Given an SVG, output ONLY the optimized SVG "
                   "code that is smaller but renders identically. Do not include any explanation, "
                   "markdown fences, or extra text.")
"""``SVGCodeOptimization.PROMPT`` (``:416-421``)."""
STYLE_PROMPT = ("You are an SVG style editor. Given an SVG and an edit command, output ONLY the "
                "modified SVG code. Do not include any explanation, markdown fences, or extra "
                "text.")
"""``SVGStyleEditing.PROMPT`` (``:486-490``)."""


class RepairTarget(Target):
    """The released repaired SVG and the kind of bug."""

    ground_truth: str
    error_type: str = ""


class OptimizeTarget(Target):
    """The SVG to shrink and the released optimisation (``opti_svg``, else the original)."""

    origin_svg: str
    optimized_svg: str


class StyleTarget(Target):
    """The released edited SVG."""

    modified: str


@register_task
class LicaBugFix(LicaCodeTask[RepairTarget]):
    """svg-3: repair a buggy SVG."""

    name = "lica-svg-3"
    task_id = "svg-3"
    description = ("LICA-Bench svg-3 bug fixing: difflib edit distance, repair accuracy "
                   "(distance < 0.05) and canonical-XML exact repairs")
    Options: ClassVar[type[Any]] = FenceOptions
    metrics: ClassVar[Mapping[str, str]] = {
        "edit_distance": "difflib_distance", "repair_similarity": "difflib_similarity",
        "repair_accuracy": "repair_accuracy", "repair_exact": "canonical_match"}
    takes_input_svg = True
    scores_text_only = True

    def load(self) -> list[Sample[RepairTarget]]:
        items = data.load_task_file(self.common.data, self.task_id, data.BugFixItem).items
        return [Sample(
            id=f"bugfix_{i:04d}", group=item.difficulty or "all",
            messages=user_message(f"{BUG_FIX_PROMPT}\n\nFix this SVG:\n\n{item.bug_svg}"),
            reference=item.ground_truth, input_svg=item.bug_svg,
            target=RepairTarget(ground_truth=item.ground_truth, error_type=item.error_type),
        ) for i, item in enumerate(items)]

    def score(self, sample: Sample[RepairTarget], response: str, renderer: Renderer) -> Outcome:
        code, answer = self.read_answer(response)
        truth = sample.target.ground_truth
        distance = edit_distance(code, truth)
        failure = None if answer.svg is not None else Failure(kind=FailureKind.EXTRACT,
                                                              detail=answer.error)
        return Outcome.of(sample, {
            "edit_distance": distance, "repair_similarity": 1.0 - distance,
            "repair_accuracy": repair_accuracy(distance),
            "repair_exact": 100.0 if same_markup(code, truth) else 0.0,
        }, extracted=code or None, extraction_rule=answer.rule, failure=failure)

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        """Per difficulty, and every sample under ``all`` (the release's one number)."""
        return with_pooled_group(outcomes)


@dataclass(frozen=True)
class OptimizeOptions(CodeOptions):
    """``--set`` options of svg-4."""

    failed_ratio: Literal["released", "original"] = field(default="released", metadata={
        "help": "released: the ratio of whatever text was answered (empty: 0, the best); "
                "original: an answer that cannot be drawn counts 1.0 (ours)"})


@register_task
class LicaOptimize(LicaCodeTask[OptimizeTarget]):
    """svg-4: make an SVG smaller without changing its picture."""

    name = "lica-svg-4"
    task_id = "svg-4"
    description = ("LICA-Bench svg-4 code optimisation: byte compression ratio (lower is "
                   "smaller) and render MSE against the reference optimisation")
    Options: ClassVar[type[Any]] = OptimizeOptions
    metrics: ClassVar[Mapping[str, str]] = {
        "compression_ratio": "byte_ratio", "reference_compression_ratio": "byte_ratio",
        "mse": "mse"}
    takes_input_svg = True
    # reference_compression_ratio is the reference's ratio, the same whatever the answer; an
    # empty answer has compression_ratio 0, the best any answer can have (defect 4 of
    # docs/suites/lica_bench.md: better than the oracle's, never equal)
    degenerate: ClassVar[Mapping[str, frozenset[str]]] = {
        "identity": frozenset({"reference_compression_ratio"}),
        "empty": frozenset({"compression_ratio", "reference_compression_ratio"}),
        "hostile": frozenset({"reference_compression_ratio"}),
    }

    def load(self) -> list[Sample[OptimizeTarget]]:
        items = data.load_task_file(self.common.data, self.task_id, data.OptimizeItem).items
        samples = []
        for i, item in enumerate(items):
            optimized = item.opti_svg if item.opti_svg is not None else item.origin_svg
            text = (f"{OPTIMIZE_PROMPT}\n\nTarget compression ratio: {item.opti_ratio}"
                    f"\n\nOptimize this SVG:\n\n{item.origin_svg}")
            samples.append(Sample(
                id=f"optim_{i:04d}", group="all", messages=user_message(text),
                reference=optimized, input_svg=item.origin_svg,
                target=OptimizeTarget(origin_svg=item.origin_svg, optimized_svg=optimized)))
        return samples

    def score(self, sample: Sample[OptimizeTarget], response: str, renderer: Renderer) -> (
            Outcome):
        code, answer = self.read_answer(response)
        target = sample.target
        outcome, picture, reference = self.drawn(sample, code, answer, target.optimized_svg,
                                                 renderer)
        ratio = byte_ratio(target.origin_svg, code)
        if picture is None and self.options.failed_ratio == "original":
            ratio = 1.0
        outcome.metrics.update(
            compression_ratio=ratio,
            reference_compression_ratio=byte_ratio(target.origin_svg, target.optimized_svg),
            **self.pixel_metrics(picture, reference, ("mse",)))
        return outcome


@register_task
class LicaStyleEdit(LicaCodeTask[StyleTarget]):
    """svg-5: apply a style edit command to an SVG."""

    name = "lica-svg-5"
    task_id = "svg-5"
    description = "LICA-Bench svg-5 style editing: difflib edit distance and render MSE"
    metrics: ClassVar[Mapping[str, str]] = {"edit_distance": "difflib_distance", "mse": "mse"}
    takes_input_svg = True

    def load(self) -> list[Sample[StyleTarget]]:
        items = data.load_task_file(self.common.data, self.task_id, data.StyleEditItem).items
        return [Sample(
            id=f"style_{i:04d}", group="all",
            messages=user_message(f"{STYLE_PROMPT}\n\nEdit command: {item.command}"
                                  f"\n\nOriginal SVG:\n\n{item.original}"),
            reference=item.modified, input_svg=item.original,
            target=StyleTarget(modified=item.modified),
        ) for i, item in enumerate(items)]

    def score(self, sample: Sample[StyleTarget], response: str, renderer: Renderer) -> Outcome:
        code, answer = self.read_answer(response)
        truth = sample.target.modified
        outcome, picture, reference = self.drawn(sample, code, answer, truth, renderer)
        outcome.metrics.update(edit_distance=edit_distance(code, truth),
                               **self.pixel_metrics(picture, reference, ("mse",)))
        return outcome
