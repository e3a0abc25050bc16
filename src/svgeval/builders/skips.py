"""What a data generator left out and why, so that the console can say so.

A generator that silently drops sources leaves its user guessing why a folder of 100 icons
gave 40 cases. Every generator records each source or case it leaves out with a short, fixed
reason; :meth:`SkipLog.lines` counts them per reason for the console, e.g. ``skipped 12
change_color cases: no fill colour (e.g. alarm, bell, book, ...)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Skip:
    """One left-out ``source`` (a file name or stem), or one ``case`` made from it."""

    source: str
    reason: str
    case: str | None = None
    """The kind of case left out (e.g. an SVGEditBench subtask); None for the whole source."""


@dataclass
class SkipLog:
    """The skips of one generator run, in the order they happened."""

    entries: list[Skip] = field(default_factory=list)

    def add(self, source: str, reason: str, case: str | None = None) -> None:
        self.entries.append(Skip(source, reason, case))

    def lines(self, examples: int = 3) -> list[str]:
        """One line per (case kind, reason), counted, with up to ``examples`` sources named."""
        groups: dict[tuple[str | None, str], list[str]] = {}
        for skip in self.entries:
            groups.setdefault((skip.case, skip.reason), []).append(skip.source)
        lines = []
        for (case, reason), sources in groups.items():
            noun = f"{case} case" if case else "source"
            shown = ", ".join(sources[:examples])
            if len(sources) > examples:
                shown = f"e.g. {shown}, ..."
            plural = "" if len(sources) == 1 else "s"
            lines.append(f"skipped {len(sources)} {noun}{plural}: {reason} ({shown})")
        return lines
