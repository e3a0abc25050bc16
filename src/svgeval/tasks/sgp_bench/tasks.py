"""SGP-Bench (Qiu et al., ICLR 2025): multiple-choice questions about symbolic graphics programs.

Tasks: ``sgp-bench-svg`` (SVG programs), ``sgp-bench-cad`` (CAD programs, plain text),
``sgp-bench-inv`` (the invariance splits ``inv``, ``inv_t0``..``inv_t4``, ``inv_r0``..``inv_r4``
in one run, see :mod:`svgeval.tasks.sgp_bench.consistency`) and ``sgp-bench-mnist``.

Per question (``sgp_eval.py``): one user message (:data:`~.prompts.MCQ_TEMPLATE`), the letter
read by the released regex, ``accuracy`` = 100 when it equals the row's ``Answer``, else 0 (an
answer with no letter is an ``extract`` failure scored 0). Groups are the rows' ``Subject``
(``metrics={Subject: score}``) and ``all`` pools every question: ``all/accuracy`` is the
release's ``score`` times 100.

MNIST (``mnist_eval.py``): the answer line after ``Answer:`` is checked against the digit by a
judge with the released equality prompt (``accuracy``, ``--judge``; the release uses gpt-4o),
and, with no judge, by integer comparison (``accuracy_exact``, ours).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from svgeval.messages import Message, user_message
from svgeval.metrics.presets import variant
from svgeval.render.isolated import Renderer
from svgeval.tasks import register_task
from svgeval.tasks.aggregate import Aggregate, with_pooled_group
from svgeval.tasks.base import Sample, Target, TargetT, Task
from svgeval.tasks.judge import JudgeRequest
from svgeval.tasks.outcome import Failure, FailureKind, Outcome
from svgeval.tasks.sgp_bench import consistency, data
from svgeval.tasks.sgp_bench.prompts import (
    EQUALITY_TEMPLATE,
    MCQ_TEMPLATE,
    MNIST_TEMPLATE,
    SYSTEM_MESSAGES,
    Reading,
    SystemMessage,
    equality_verdict,
    extract_letter,
    extract_line,
    same_number,
)

PRESET = variant(
    "sgp-bench",
    description="SGP-Bench sgp_eval.py / mnist_eval.py / evaluate_consistency.py: accuracy of "
    "the first 'Answer: X' match, per Subject; invariance consistency; MNIST equality by a judge",
    metrics=("accuracy", "invariance_consistency", "sample_count"),
).name


@dataclass(frozen=True)
class SystemOptions:
    """``--set`` option of every SGP-Bench task: the system message."""

    system: SystemMessage = field(default="helpful", metadata={
        "help": "system message: helpful (OpenAI/Claude samplers), open (open-model sampler), "
                "none (demo.py for gemma/mistral/starcoder)"})
    reask: int = field(default=5, metadata={
        "help": "asks per question until the reply holds 'Answer: ...' (5 as released; 1: "
                "one answer per question, ours)"})


@dataclass(frozen=True)
class MCQOptions(SystemOptions):
    """``--set`` options of the multiple-choice tasks."""

    extract: Reading = field(default="sgp-bench", metadata={
        "help": "sgp-bench: first 'Answer: X' match as released (lower case scored wrong); "
                "last: last match, upper-cased (ours)"})


class ChoiceTarget(Target):
    """The correct option of a multiple-choice question."""

    answer: str
    """The row's ``Answer`` letter, stripped."""
    subject: str
    """The row's ``Subject`` (its group; kept in the dataset hash)."""


class DigitTarget(Target):
    """The digit an SGP-MNIST program draws."""

    answer: str
    """The row's ``Answer`` as released (the judge's and the exact match's gold)."""


class SGPBenchTask(Task[TargetT]):
    """Base of the SGP-Bench tasks: the options, the system message, the pooled group."""

    suite: ClassVar[str] = "SGP-Bench"
    suite_source: ClassVar[str] = (
        "HF sgp-bench/sgp-bench, sgp-bench/sgp-mnist + sgp-bench/sgp-bench@e790639 sgp_eval.py")
    preset: ClassVar[str] = PRESET
    Options: ClassVar[type[Any]] = SystemOptions

    def messages(self, text: str) -> list[Message]:
        """The user message, after the chosen system message (none for ``system=none``)."""
        system = SYSTEM_MESSAGES[self.options.system]
        head: list[Message] = [] if system is None else [{"role": "system", "content": system}]
        return head + user_message(text)

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        return with_pooled_group(outcomes)


class SGPBenchMCQ(SGPBenchTask[ChoiceTarget]):
    """Multiple-choice questions of one or more splits of ``sgp-bench/sgp-bench``."""

    splits: ClassVar[tuple[str, ...]] = ()
    Options: ClassVar[type[Any]] = MCQOptions
    metrics: ClassVar[Mapping[str, str]] = {"accuracy": "accuracy"}

    def group_of(self, split: str, row: Mapping[str, str]) -> str:
        """The group a question is reported under: its ``Subject``."""
        return row["Subject"] or "unknown"

    def load(self) -> list[Sample[ChoiceTarget]]:
        samples = []
        for split in self.splits:
            rows = data.load_split(self.common.data, data.BENCH_HUB_ID, split, data.MCQ_COLUMNS)
            for index, row in enumerate(rows):
                answer = row["Answer"].strip()
                samples.append(Sample(
                    id=f"{split}/{index:05d}",
                    group=self.group_of(split, row),
                    messages=self.messages(MCQ_TEMPLATE.format(**row)),
                    reference=f"Answer: {answer}",
                    target=ChoiceTarget(answer=answer, subject=row["Subject"]),
                    expected=answer,
                ))
        return samples

    def answer_complete(self, response: str) -> bool:
        """The release asks again until its regex matches (``sgp_eval.py:33-45``)."""
        return extract_letter(response, "sgp-bench") is not None

    def score(self, sample: Sample[ChoiceTarget], response: str, renderer: Renderer) -> Outcome:
        letter = extract_letter(response, self.options.extract)
        if letter is None:
            return Outcome.of(sample, {"accuracy": 0.0}, extraction_rule=self.options.extract,
                              failure=Failure(kind=FailureKind.EXTRACT,
                                              detail="no 'Answer: <A-D>' in the response"))
        correct = letter == sample.target.answer
        return Outcome.of(sample, {"accuracy": 100.0 if correct else 0.0}, extracted=letter,
                          extraction_rule=self.options.extract)


@register_task
class SGPBenchSVG(SGPBenchMCQ):
    """SVG programs."""

    name = "sgp-bench-svg"
    description = "SGP-Bench SVG: multiple-choice accuracy (%) per Subject"
    splits = ("svg",)


@register_task
class SGPBenchCAD(SGPBenchMCQ):
    """CAD programs (DeepCAD, Fusion360, SketchGraphs), plain text."""

    name = "sgp-bench-cad"
    description = "SGP-Bench CAD: multiple-choice accuracy (%) per Subject"
    splits = ("cad",)


@register_task
class SGPBenchInvariance(SGPBenchMCQ):
    """The invariance splits in one run: accuracy per split and the consistency of the answers
    across the translated and across the rotated variants of each question."""

    name = "sgp-bench-inv"
    description = ("SGP-Bench invariance: accuracy (%) per split, answer consistency across "
                   "translations and rotations")
    splits = consistency.SPLITS
    aggregate_reads_extracted = True
    metrics: ClassVar[Mapping[str, str]] = {
        "accuracy": "accuracy",
        "consistency": "invariance_consistency",
        "consistency_answered": "invariance_consistency",
        "left_out": "sample_count",
    }
    # the release counts an unread answer as the answer "None": six unanswered variants agree,
    # so a baseline that never answers is as consistent (1.0) as the oracle
    degenerate: ClassVar[Mapping[str, frozenset[str]]] = {
        "empty": frozenset({"consistency"}), "hostile": frozenset({"consistency"})}

    def group_of(self, split: str, row: Mapping[str, str]) -> str:
        return split

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        pooled = with_pooled_group(outcomes)
        pooled.metrics.update(consistency.consistency_metrics(outcomes))
        return pooled


@register_task
class SGPBenchMNIST(SGPBenchTask[DigitTarget]):
    """SGP-MNIST: which digit does the SVG draw; the answer line checked by a judge."""

    name = "sgp-bench-mnist"
    description = "SGP-MNIST: digit accuracy (%), judged equality (released) and exact match"
    metrics: ClassVar[Mapping[str, str]] = {"accuracy": "accuracy", "accuracy_exact": "accuracy"}
    judge_metrics: ClassVar[tuple[str, ...]] = ("accuracy",)

    def load(self) -> list[Sample[DigitTarget]]:
        rows = data.load_split(self.common.data, data.MNIST_HUB_ID, "mnist", data.MNIST_COLUMNS)
        return [Sample(
            id=f"mnist/{index:05d}",
            group="mnist",
            messages=self.messages(MNIST_TEMPLATE.format(**row)),
            reference=f"Answer: {row['Answer'].strip()}",
            target=DigitTarget(answer=row["Answer"]),
            expected=row["Answer"].strip(),
        ) for index, row in enumerate(rows)]

    def answer_complete(self, response: str) -> bool:
        """The release asks again until ``Answer: ...`` matches (``mnist_eval.py:50-56``)."""
        return extract_line(response) is not None

    def score(self, sample: Sample[DigitTarget], response: str, renderer: Renderer) -> Outcome:
        line = extract_line(response)
        gold = sample.target.answer
        # the release asks the judge even without an answer, comparing with the text "None"
        request = JudgeRequest(
            metric="accuracy",
            messages=user_message(EQUALITY_TEMPLATE % {"expression1": gold,
                                                       "expression2": line}),
            parse=equality_verdict,
        )
        outcome = Outcome.of(sample, {"accuracy_exact": 100.0 if same_number(line, gold) else 0.0},
                             extracted=line, extraction_rule="sgp-bench")
        outcome.ask_judge(request)
        if line is None:
            outcome.failure = Failure(kind=FailureKind.EXTRACT,
                                      detail="no 'Answer: ...' line in the response")
        return outcome
