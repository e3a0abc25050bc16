"""New SVGenius style-editing cases from any folder of SVGs (paper appendix G.3).

Each case draws one to three edit kinds (:mod:`.style_edit_rules`), applies them, and is kept
only when the answer is a valid case on 224 px renders (:func:`edit_problem`): it renders, it
looks different from the original, a blank canvas is no closer to it than the original, and
each clause changes the render. Sources are worked on in parallel render workers; what is left
out is counted with its reason in a :class:`~svgeval.builders.skips.SkipLog`.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from svgeval.builders.render_checks import generator_renderer, render, visibly_different
from svgeval.builders.skips import SkipLog
from svgeval.builders.svgenius.sources import (
    Outcome,
    cases_from_sources,
    checked_choices,
    seeded_key,
)
from svgeval.builders.svgenius.style_edit_rules import (
    EDIT_KINDS,
    SAME_ATTRIBUTE,
    TARGETS,
    WHOLE_SVG_KINDS,
    Clause,
    Frame,
    command_for,
    draw_edit,
    edited_svg,
    frame_for,
)
from svgeval.metrics.pixel import mse
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage
from svgeval.svg.refusals import SvgRejected
from svgeval.svg.sanitize import check_svg


def _draw_kinds(allowed: Sequence[str], size: int, rng: random.Random) -> list[str]:
    chosen: list[str] = []
    for kind in rng.sample(list(allowed), len(allowed)):
        group = SAME_ATTRIBUTE.get(kind, kind)
        if len(chosen) < size and group not in {SAME_ATTRIBUTE.get(k, k) for k in chosen}:
            chosen.append(kind)
    return chosen


NOT_APPLICABLE = "the drawn edit does not apply to the icon"
NO_RENDER = "the answer does not render"
UNCHANGED = "the edit does not change the render"
BLANK_CLOSER = "a blank canvas is closer to the target than the original"
IDLE_CLAUSE = "a clause does not change the render"


def edit_problem(
    svg: str, target: str, clauses: Sequence[Clause], original: FloatImage, pool: Renderer
) -> str:
    """Why the edit is no valid case ("" when it is one), checked on 224 px renders.

    The answer must render, look different from the original, and keep enough of the picture
    that a blank canvas is no closer to it than the original (MSE(blank, gt) >= MSE(ori, gt),
    so a constant empty answer scores rMSE 0 and a target that lost most of its ink is
    refused); in a combined edit, leaving out any one clause must change the render.
    """
    truth = render(edited_svg(svg, target, clauses), pool)
    if truth is None:
        return NO_RENDER
    if not visibly_different(original, truth):
        return UNCHANGED
    if mse(np.ones_like(truth), truth) < mse(original, truth):
        return BLANK_CLOSER
    if len(clauses) == 1:
        return ""
    for left_out in range(len(clauses)):
        rest = [clause for number, clause in enumerate(clauses) if number != left_out]
        partial = render(edited_svg(svg, target, rest), pool)
        if partial is None or not visibly_different(partial, truth):
            return IDLE_CLAUSE
    return ""


@dataclass(frozen=True)
class _Draws:
    """The generator's choices: which kinds, targets and edit counts may be drawn."""

    kinds: Sequence[str]
    targets: Sequence[str]
    edits_per_case: Sequence[int]
    attempts: int

    def drawn(
        self, svg: str, frame: Frame, rng: random.Random
    ) -> Iterator[tuple[str, list[Clause] | None]]:
        """Up to ``attempts`` (target, clauses) draws; clauses None when one does not apply."""
        for _ in range(self.attempts):
            target = rng.choice(list(self.targets))
            usable = [k for k in self.kinds if target == "element" or k in WHOLE_SVG_KINDS]
            chosen = _draw_kinds(usable, rng.choice(list(self.edits_per_case)), rng)
            yield target, (draw_edit(svg, chosen, target, rng, frame) if chosen else None)


def _case(name: str, svg: str, *, draws: _Draws, seed: int, pool: Renderer) -> Outcome:
    """The case of one source, or None and why there is none."""
    try:
        check_svg(svg)
    except SvgRejected as error:
        return None, f"refused by the safety checks ({error.reason})"
    original = render(svg, pool)
    if original is None:
        return None, "does not render"
    frame = frame_for(svg)
    if frame is None:
        return None, "no viewBox or width/height"
    problems: dict[str, int] = {}
    for target, clauses in draws.drawn(svg, frame, random.Random(seeded_key(seed, name))):
        problem = edit_problem(svg, target, clauses, original, pool) if clauses else NOT_APPLICABLE
        if clauses and not problem:
            edit = {
                "command": command_for(clauses),
                "original": svg,
                "modified": edited_svg(svg, target, clauses),
            }
            return {name: edit}, ""
        problems[problem] = problems.get(problem, 0) + 1
    commonest = max(problems, key=lambda problem: problems[problem])
    return None, f"no valid edit in {draws.attempts} draws (most often: {commonest})"


def build_style_edit_cases(
    svgs: Mapping[str, str],
    *,
    kinds: Sequence[str] = EDIT_KINDS,
    targets: Sequence[str] = TARGETS,
    edits_per_case: Sequence[int] = (1, 2, 3),
    seed: int = 0,
    attempts: int = 12,
    renderer: Renderer | None = None,
    skipped: SkipLog | None = None,
) -> list[dict[str, Any]]:
    """Style-editing items in the released layout ``{name: {command, original, modified}}``.

    One item per source SVG at most: a target and ``n`` (drawn from ``edits_per_case``)
    compatible edit kinds are drawn until the edit passes :func:`edit_problem`'s checks, for
    up to ``attempts`` draws; sources left out are recorded in ``skipped`` with the reason.
    The same seed and sources give the same items byte for byte. ``renderer`` defaults to a
    pool with the generators' short time limit.
    """
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    draws = _Draws(
        checked_choices(kinds, EDIT_KINDS, "edit kinds"),
        checked_choices(targets, TARGETS, "targets"),
        edits_per_case,
        attempts,
    )
    with generator_renderer(renderer) as pool:
        make_case = functools.partial(_case, draws=draws, seed=seed, pool=pool)
        return cases_from_sources(svgs, make_case, pool, skipped)
