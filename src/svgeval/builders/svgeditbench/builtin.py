"""SVGEditBench's built-in sample: the paper's six edits of svgeval's twelve demo icons.

The icons (:mod:`svgeval.svg.demo_corpus`) go through the paper's case rules
(:func:`~svgeval.builders.svgeditbench.builder.build_cases`, seed 0) into the release's layout,
the same 72 cases ``svgeval demo`` runs.
"""

from __future__ import annotations

from pathlib import Path

from svgeval.builders.svgeditbench.builder import build_cases, write_release
from svgeval.svg.demo_corpus import write_demo_corpus
from svgeval.tasks.builtin import BUILTIN_SAMPLES, BuiltinSample


def write(folder: Path) -> None:
    """The release layout under ``folder/release`` (the icons under ``folder/icons``)."""
    names = write_demo_corpus(folder / "icons")
    cases = build_cases(sorted((folder / "icons").glob("*.svg")), seed=0, names=names)
    write_release(cases, folder / "release")


SAMPLE = BuiltinSample(
    folder="svgeditbench", write=write, data="release",
    provenance="svgeval's 12 demo icons through the paper's six edit rules (seed 0): 72 cases",
)
BUILTIN_SAMPLES.register(SAMPLE, name="svgeditbench")
