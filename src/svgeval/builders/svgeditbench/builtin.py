"""SVGEditBench's built-in sample: the paper's six edits of two of svgeval's demo icons.

The icons ``house`` and ``flag`` (:mod:`svgeval.svg.demo_corpus`) go through the paper's case
rules (:func:`~svgeval.builders.svgeditbench.builder.build_cases`, seed 0) into the release's
layout: 12 cases, two per edit (``svgeval demo`` runs the same rules on all twelve icons).
"""

from __future__ import annotations

from pathlib import Path

from svgeval.builders.svgeditbench.builder import build_cases, write_release
from svgeval.svg.demo_corpus import demo_svg
from svgeval.tasks.builtin import BUILTIN_SAMPLES, BuiltinSample

ICONS = ("house", "flag")


def write(folder: Path) -> None:
    """The release layout under ``folder/release`` (the icons under ``folder/icons``)."""
    (folder / "icons").mkdir()
    for name in ICONS:
        (folder / "icons" / f"{name}.svg").write_text(demo_svg(name), encoding="utf-8")
    cases = build_cases(sorted((folder / "icons").glob("*.svg")), seed=0,
                        names={name: name for name in ICONS})
    write_release(cases, folder / "release")


SAMPLE = BuiltinSample(
    folder="svgeditbench", write=write, data="release",
    provenance="svgeval's demo icons house and flag through the paper's six edit rules (seed 0): "
               "12 cases",
)
BUILTIN_SAMPLES.register(SAMPLE, name="svgeditbench")
