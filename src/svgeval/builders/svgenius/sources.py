"""Run a generator over its sources, as many at a time as there are render workers.

Each source makes at most one case and is drawn with its own seeded generator, so sources are
independent: working on several at once gives the same cases in the same order. It matters
because generation waits on renders, and a buggy SVG can hold its render for the whole time
limit (CairoSVG loops on a stray letter after a ``z`` path command); one source per worker
keeps every worker busy while one waits. :func:`seeded_key` seeds each source's generator and
:func:`checked_choices` checks the kinds of case a generator is asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from svgeval.builders import BuildInputError
from svgeval.builders.skips import SkipLog
from svgeval.render.isolated import Renderer

Outcome = tuple[dict[str, Any] | None, str]
"""A source's case, or None and why there is none."""


def cases_from_sources(
    svgs: Mapping[str, str],
    make_case: Callable[[str, str], Outcome],
    pool: Renderer,
    skipped: SkipLog | None,
) -> list[dict[str, Any]]:
    """``make_case(name, svg)`` for every source in order; skips go to ``skipped``."""
    with ThreadPoolExecutor(max_workers=pool.workers) as threads:
        outcomes = list(threads.map(make_case, svgs.keys(), svgs.values()))
    cases = []
    for name, (case, problem) in zip(svgs, outcomes):
        if case is not None:
            cases.append(case)
        elif skipped is not None:
            skipped.add(name, problem)
    return cases


def seeded_key(seed: int, *parts: object) -> str:
    """A string seed for ``random.Random`` that is stable across runs and Python versions."""
    return ":".join(str(part) for part in (seed, *parts))


def checked_choices(names: Iterable[str], allowed: Iterable[str], what: str) -> list[str]:
    """``names`` as a list, checked against ``allowed``; raises ValueError naming ``what``."""
    chosen = list(names)
    known = set(allowed)
    unknown = [name for name in chosen if name not in known]
    if unknown or not chosen:
        raise BuildInputError(f"unknown or no {what}: {unknown}; choose from {sorted(known)}")
    return chosen
