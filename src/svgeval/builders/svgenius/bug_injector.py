"""Seeded error injection for new SVGenius bug-fixing data (paper appendix G.1).

The paper's three error families, with the error types the released data names:

* tag errors: ``misspell_tag_name`` (an element and its end tag renamed, e.g. ``path`` ->
  ``pth``), ``remove_closing_tag`` (an end tag, a self-closing ``/``, an attribute's closing
  quote or a tag bracket removed), ``add_strange_chars`` (one of ``$#@%&!~^*`` after a tag
  name or before its closing bracket);
* path-command errors: ``invalid_path_command`` (a command letter replaced by a letter that is
  no path command), ``path_data_format_error`` (a separator replaced by ``;`` or ``,,``, or a
  number rewritten in two-digit scientific notation);
* attribute errors: ``attribute_value_error`` (a colour without ``#``, with ``0x`` or with a
  non-hex digit; a number with stray characters), ``attribute_name_error`` (an attribute name
  misspelled, e.g. ``fill`` -> ``fil``).

Each case uses one error type drawn from the allowed ones and injects ``count`` instances of
it (fewer if the SVG has fewer targets). The text is edited in place, so the ground truth is the
source SVG byte for byte. A case is kept only if the buggy SVG renders visibly differently from
the original (or does not render at all); otherwise up to ``attempts`` other draws are tried.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping, Sequence
from typing import Any

from svgeval.builders.render_checks import generator_renderer, render, visibly_different
from svgeval.builders.skips import SkipLog
from svgeval.builders.svgenius.bug_types import ERROR_CATEGORIES, ERROR_TYPES, INJECTORS, Injection
from svgeval.builders.svgenius.sources import (
    Outcome,
    cases_from_sources,
    checked_choices,
    seeded_key,
)
from svgeval.builders.svgenius.svg_text import scan_tags
from svgeval.render.isolated import Renderer

__all__ = ["ERROR_TYPES", "build_bugfix_cases", "inject_errors"]


def inject_errors(
    svg: str, error_type: str, count: int, rng: random.Random
) -> tuple[str, list[dict[str, Any]]] | None:
    """``svg`` with up to ``count`` non-overlapping errors of ``error_type``, and their details.

    None when the SVG offers no target for that error type.
    """
    tags = scan_tags(svg)
    if not tags:
        return None
    accepted: list[Injection] = []
    for _ in range(4 * count):
        if len(accepted) == count:
            break
        injection = INJECTORS[error_type](tags, rng)
        if injection is not None and not any(_overlap(injection, other) for other in accepted):
            accepted.append(injection)
    if not accepted:
        return None
    edits = sorted((edit for item in accepted for edit in item.edits), reverse=True)
    for start, end, text in edits:
        svg = svg[:start] + text + svg[end:]
    details = [
        {
            **item.detail,
            "error_instance": number,
            "error_function": error_type,
            "error_category": ERROR_CATEGORIES[error_type],
        }
        for number, item in enumerate(accepted, start=1)
    ]
    return svg, details


def _overlap(a: Injection, b: Injection) -> bool:
    return any(s1 <= e2 and s2 <= e1 for s1, e1, _ in a.edits for s2, e2, _ in b.edits)


def build_bugfix_cases(
    svgs: Mapping[str, str],
    *,
    error_types: Sequence[str] = ERROR_TYPES,
    count: int = 1,
    seed: int = 0,
    attempts: int = 5,
    renderer: Renderer | None = None,
    skipped: SkipLog | None = None,
) -> list[dict[str, Any]]:
    """Bug-fixing items in the released layout, at most one per source SVG.

    ``svgs`` maps a name (stored as ``svg_path``) to SVG code; ``error_types`` are the allowed
    types (see :data:`ERROR_TYPES`), ``count`` the errors per case. The same seed and sources
    give the same items byte for byte. Sources that do not render are skipped, and so are
    sources for which ``attempts`` draws produce no visible change; both are recorded in
    ``skipped``. ``renderer`` defaults to a pool with the generators' short time limit
    (:data:`~svgeval.builders.render_checks.GENERATOR_TIMEOUT_S`): a buggy SVG can make
    CairoSVG loop forever (e.g. a letter that is no path command right after ``z``), and each
    such draw costs the whole limit.
    """
    allowed = checked_choices(error_types, ERROR_TYPES, "error types")
    if count < 1:
        raise ValueError("count must be at least 1")
    with generator_renderer(renderer) as pool:
        make_case = functools.partial(
            _bugfix_case, allowed=allowed, count=count, seed=seed, attempts=attempts, pool=pool
        )
        return cases_from_sources(svgs, make_case, pool, skipped)


def _bugfix_case(
    name: str,
    svg: str,
    *,
    allowed: Sequence[str],
    count: int,
    seed: int,
    attempts: int,
    pool: Renderer,
) -> Outcome:
    """The case of one source, or None and why there is none."""
    original = render(svg, pool)
    if original is None:
        return None, "does not render"
    rng = random.Random(seeded_key(seed, name))
    for _ in range(attempts):
        error_type = rng.choice(allowed)
        injected = inject_errors(svg, error_type, count, rng)
        if injected is None or injected[0] == svg:
            continue
        buggy = render(injected[0], pool)
        if buggy is None or visibly_different(original, buggy):
            case = {
                "svg_path": name,
                "bug_svg": injected[0],
                "ground_truth": svg,
                "error_type": error_type,
                "error_details": injected[1],
            }
            return case, ""
    return None, f"no bug in {attempts} draws changed the render"
