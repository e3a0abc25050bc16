"""Which scores can be gamed: degenerate baselines run through the normal runner.

For a task, :func:`baseline_answers` builds one answer per sample for each baseline:

* ``oracle``: the sample's reference answer (the best a model can do);
* ``identity``: the input SVG unchanged (tasks without an input SVG answer nothing);
* ``empty``: ``<svg xmlns=...></svg>``;
* ``blank``: a white canvas of the reference's size (its ``width``, ``height``, ``viewBox``);
* ``shuffled``: another sample's reference answer (a seeded derangement within the group);
* ``flipped``: the input SVG with one attribute changed at random (a colour replaced by another,
  a number doubled or halved); nothing for tasks without an input SVG, as ``identity``.

Each baseline's answers are written as a replay file and run with ``replay:`` through
:class:`~svgeval.runner.Runner`, so they are scored exactly as a model's would be. For every
``"<group>/<metric>"`` of ``results.json`` whose metric has a direction, a baseline's share of
the way from the worst to the oracle is ``(b - worst) / (oracle - worst)``, ``worst`` being the
worst value among all six baselines (the lowest for higher-is-better metrics, the highest
otherwise). A metric on which a degenerate baseline (any but the oracle) reaches more than
:data:`FLAG_SHARE` is flagged: a model can score that well without doing the task. A metric on
which the oracle is no better than the worst baseline is flagged too (share undefined).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from lxml import etree

from svgeval.errors import UserError
from svgeval.models.replay import ReplayModel
from svgeval.run_request import RunRequest
from svgeval.runner import Results, load_samples
from svgeval.runner.build import build_runner, task_of
from svgeval.svg.extract import extract_svg
from svgeval.tasks.base import Sample, Task

BASELINES = ("oracle", "identity", "empty", "blank", "shuffled", "flipped")
FLAG_SHARE = 0.5
"""A degenerate baseline reaching more than half of the way from the worst to the oracle flags
the metric."""
SKIPPED_METRICS = ("sample_count", "svg_present", "svg_valid", "blank_render")
"""Registered metrics that count or describe answers rather than score them: not audited."""
EMPTY_SVG = '<svg xmlns="http://www.w3.org/2000/svg"></svg>'
COLOURS = ("#000000", "#ffffff", "#ff0000", "#00ff00", "#0000ff", "#ffa500", "#808080")
COLOUR_ATTRIBUTES = {"fill", "stroke", "stop-color", "color", "flood-color"}
NUMBER = re.compile(r"^\s*(-?\d*\.?\d+)([a-z%]*)\s*$")


class AuditConflict(UserError, ValueError):
    """``--out`` holds an audit of other answers (another task, data or seed). A ValueError as
    well, the error it was before, which callers and tests catch."""


def fenced(svg: str) -> str:
    """An answer holding ``svg`` the way the ``identity`` model answers."""
    return f"```svg\n{svg}\n```"


def _reference_svg(sample: Sample) -> str | None:
    return extract_svg(sample.reference).svg


def blank_canvas(svg: str | None) -> str:
    """A white canvas with the size attributes (``width``, ``height``, ``viewBox``) of ``svg``."""
    attributes = {"xmlns": "http://www.w3.org/2000/svg"}
    if svg is not None:
        try:
            root = etree.fromstring(svg.encode("utf-8"), etree.XMLParser(recover=True))
        except etree.XMLSyntaxError:
            root = None
        if root is not None:
            attributes.update({k: v for k in ("width", "height", "viewBox")
                               if (v := root.get(k)) is not None})
    attrs = " ".join(f'{k}="{v}"' for k, v in attributes.items())
    return f'<svg {attrs}><rect x="-1e5" y="-1e5" width="2e5" height="2e5" fill="white"/></svg>'


def flip_attribute(svg: str, rng: random.Random) -> str:
    """``svg`` with one colour or numeric attribute, drawn with ``rng``, changed (unchanged
    when it has none or does not parse)."""
    try:
        root = etree.fromstring(svg.encode("utf-8"))
    except etree.XMLSyntaxError:
        return svg
    choices = [(element, name) for element in root.iter() if isinstance(element.tag, str)
               for name, value in element.attrib.items()
               if (name in COLOUR_ATTRIBUTES and value != "none")
               or (name != "version" and NUMBER.match(value))]
    if not choices:
        return svg
    element, name = rng.choice(choices)
    value = element.get(name) or ""
    if name in COLOUR_ATTRIBUTES:
        element.set(name, rng.choice([c for c in COLOURS if c != value.lower()]))
    else:
        match = NUMBER.match(value)
        assert match is not None
        number = float(match.group(1))
        changed = number * rng.choice((0.5, 2.0)) if number else 1.0
        element.set(name, f"{changed:g}{match.group(2)}")
    return str(etree.tostring(root, encoding="unicode"))


def baseline_answers(samples: Sequence[Sample], seed: int = 0) -> dict[str, dict[str, str]]:
    """Baseline name -> sample id -> answer."""
    rng = random.Random(seed)
    everything = list(samples)
    rng.shuffle(everything)
    shuffled = {s.id: everything[(i + 1) % len(everything)].reference
                for i, s in enumerate(everything)}  # single-sample groups: any other sample
    by_group: dict[str, list[Sample]] = {}
    for sample in everything:
        by_group.setdefault(sample.group, []).append(sample)
    for group in by_group.values():
        if len(group) > 1:
            shuffled.update({s.id: group[(i + 1) % len(group)].reference
                             for i, s in enumerate(group)})
    answers: dict[str, dict[str, str]] = {name: {} for name in BASELINES}
    for sample in samples:
        answers["oracle"][sample.id] = sample.reference
        answers["identity"][sample.id] = fenced(sample.input_svg) if sample.input_svg else ""
        answers["empty"][sample.id] = fenced(EMPTY_SVG)
        answers["blank"][sample.id] = fenced(blank_canvas(sample.input_svg
                                                          or _reference_svg(sample)))
        answers["shuffled"][sample.id] = shuffled[sample.id]
        answers["flipped"][sample.id] = (fenced(flip_attribute(sample.input_svg, rng))
                                         if sample.input_svg else "")
    return answers


def run_baselines(request: RunRequest,
                  on_done: Callable[[str, Results], None] = lambda name, results: None) -> dict[
    str, Results
]:
    """Run every baseline on ``request``'s task with its settings into
    ``request.out_dir/<baseline>`` (resumed when present); ``on_done`` hears of each finished
    baseline."""
    task = task_of(request)
    answers = baseline_answers(load_samples(task), request.seed)
    results = {}
    for name, by_id in answers.items():
        folder = request.out_dir / name
        folder.mkdir(parents=True, exist_ok=True)
        replay = request.out_dir / f"{name}.replay.jsonl"
        text = "".join(json.dumps({"id": i, "response": r}) + "\n" for i, r in by_id.items())
        if replay.exists() and replay.read_text(encoding="utf-8") != text:
            raise AuditConflict(f"{request.out_dir} holds an audit with other answers (another "
                                "task, data or seed); choose another --out")
        replay.write_text(text, encoding="utf-8")
        runner = build_runner(request.model_copy(update={"out_dir": folder}), task=task,
                              model=ReplayModel(replay, spec=f"audit:{name}"))
        results[name] = asyncio.run(runner.run(runner.prepare(resume=True)))
        on_done(name, results[name])
    return results


@dataclass(frozen=True)
class AuditRow:
    """One ``"<group>/<metric>"``: each baseline's value and share, and whether it is flagged."""

    key: str
    higher_is_better: bool
    values: dict[str, float | None]
    shares: dict[str, float | None]
    flagged_by: tuple[str, ...]

    @property
    def flagged(self) -> bool:
        return bool(self.flagged_by)


def audit_rows(task: type[Task] | Task, results: Mapping[str, Results],
               threshold: float = FLAG_SHARE) -> list[AuditRow]:
    """The audit of every directed metric of the baselines' ``results.json``."""
    rows = []
    for key in results["oracle"].metrics:
        metric = key.rsplit("/", 1)[-1]
        higher = task.higher_is_better(metric)
        if higher is None or task.metrics.get(metric) in SKIPPED_METRICS:
            continue
        values = {name: results[name].metrics.get(key) for name in BASELINES if name in results}
        known = [v for v in values.values() if v is not None]
        if not known:  # not computed here (weights, judge)
            continue
        oracle = values.get("oracle")
        worst = (min(known) if higher else max(known)) if known else None
        if oracle is None or worst is None or oracle == worst:
            shares: dict[str, float | None] = dict.fromkeys(values)
            flagged: tuple[str, ...] = ("oracle",) if oracle is not None else ()
        else:
            shares = {n: None if v is None else (v - worst) / (oracle - worst)
                      for n, v in values.items()}
            flagged = tuple(n for n, s in shares.items()
                            if n != "oracle" and s is not None and s > threshold)
        rows.append(AuditRow(key, higher, values, shares, flagged))
    return rows


def markdown_table(task: str, rows: Sequence[AuditRow]) -> str:
    """The audit as a Markdown table: each baseline's share of the way to the oracle (%), the
    oracle's value, and the baselines that flag the metric."""
    if not rows:
        return (f"### {task}\n\nno audited metric has a value here (judged metrics need "
                "--judge, model metrics their weights)")
    header = ["metric", "dir", "oracle", *[f"{b} %" for b in BASELINES[1:]], "flagged by"]
    lines = [f"### {task}", "", "| " + " | ".join(header) + " |",
             "|" + "---|" * len(header)]
    for row in rows:
        oracle = row.values.get("oracle")
        shares = [("-" if (s := row.shares.get(b)) is None else str(round(100 * s)))
                  for b in BASELINES[1:]]
        cells = [row.key, "up" if row.higher_is_better else "down",
                 "-" if oracle is None else f"{oracle:.4g}", *shares,
                 ", ".join(row.flagged_by) or ""]
        lines.append("| " + " | ".join(cells) + " |")
    flagged = sorted({row.key.rsplit("/", 1)[-1] for row in rows if row.flagged})
    lines += ["", f"flagged metrics: {', '.join(flagged) or 'none'}"]
    return "\n".join(lines)


@dataclass(frozen=True)
class OracleComparison:
    """One ``"<group>/<metric>"`` of an oracle run against a baseline's: ``sign`` is 1 where
    the oracle is better (by the metric's declared direction, or its distance from ``best_at``),
    0 where they are equal, -1 where the baseline is better."""

    key: str
    oracle: float
    baseline: float
    sign: int


def compare_with_oracle(task: type[Task], oracle: Results,
                        baseline: Results) -> list[OracleComparison]:
    """Every directed metric both runs have a value for (the counts and answer descriptions of
    :data:`SKIPPED_METRICS` left out), oracle against baseline."""
    from svgeval.metrics.registry import METRICS

    found = []
    for key, mine in oracle.metrics.items():
        theirs = baseline.metrics.get(key)
        metric = task.metrics.get(key.rsplit("/", 1)[-1].split(":")[0])
        if mine is None or theirs is None or metric is None or metric in SKIPPED_METRICS:
            continue
        info = METRICS.get(metric)
        if info.best_at is not None:
            goodness = [-abs(value - info.best_at) for value in (mine, theirs)]
        else:
            goodness = [value if info.higher_is_better else -value for value in (mine, theirs)]
        sign = (goodness[0] > goodness[1]) - (goodness[0] < goodness[1])
        found.append(OracleComparison(key, mine, theirs, sign))
    return found
