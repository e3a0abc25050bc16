"""SGP-Bench's built-in sample: questions of svgeval's own about its demo icons, small CAD
programs and digits drawn in code, in the hub's layout.

``folder/sgp-bench/data/<split>-00000-of-00001.parquet`` for the ``svg``, ``cad`` and eleven
invariance splits (the dataset ``sgp-bench/sgp-bench``) and ``folder/sgp-mnist/data/
mnist-00000-of-00001.parquet`` (``sgp-bench/sgp-mnist``), the columns ``Question`` (the program
followed by the question), ``A``..``D``, ``Answer`` and ``Subject`` (MNIST: ``Question`` and
``Answer``, the digit). The invariance splits ask the same questions about the icons moved
(``inv_t0``..``inv_t4``) or turned (``inv_r0``..``inv_r4``) by a ``transform``, row by row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from svgeval.svg.demo_corpus import DEMO_ICONS, demo_svg
from svgeval.tasks.builtin import BUILTIN_SAMPLES, BuiltinSample
from svgeval.tasks.sgp_bench.consistency import ROTATION, TRANSLATION

_SVG_HEAD = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36">'


class Question(NamedTuple):
    """A multiple-choice question about a program: the four options, the right letter."""

    program: str
    question: str
    options: tuple[str, str, str, str]
    answer: str
    subject: str


SVG_QUESTIONS = (
    Question(demo_svg("house"), "What object does this program draw?",
             ("a fish", "a house", "a balloon", "a cup"), "B", "Semantics"),
    Question(demo_svg("mushroom"), "What does the picture show?",
             ("a mushroom", "an umbrella", "a traffic light", "a flag"), "A", "Semantics"),
    Question(demo_svg("heart"), "What colour is the large shape?",
             ("green", "blue", "yellow", "red"), "D", "Color"),
    Question(demo_svg("flag"), "What colour is the cloth of the flag?",
             ("red", "white", "blue", "grey"), "C", "Color"),
    Question(demo_svg("traffic light"), "How many round lamps are drawn?",
             ("1", "2", "3", "4"), "C", "Count"),
    Question(demo_svg("house"), "How many square windows does the picture have?",
             ("2", "1", "4", "0"), "A", "Count"),
    Question(demo_svg("moon"), "What shape is the dark background?",
             ("a square", "a circle", "a triangle", "a star"), "B", "Shape"),
    Question(demo_svg("fish"), "What shape is the fish's tail?",
             ("a circle", "a square", "a crescent", "a triangle"), "D", "Shape"),
)
"""The ``svg`` split: two questions per Subject."""

CAD_QUESTIONS = (
    Question("sketch plane=XY\n  rectangle corner=(0,0) size=(60,40)\n"
             "  circle center=(30,20) radius=8\nextrude distance=5 operation=new_body",
             "What does this CAD program make?",
             ("a solid cube", "a flat plate with one round hole", "a ring", "a cone"),
             "B", "3D"),
    Question("sketch plane=XY\n  circle center=(0,0) radius=20\nextrude distance=60 "
             "operation=new_body\nsketch plane=XY offset=60\n  circle center=(0,0) radius=20\n"
             "  circle center=(0,0) radius=16\nextrude distance=-50 operation=cut",
             "What does this CAD program make?",
             ("a cup, open at the top", "a solid rod", "a flat washer", "a square box"),
             "A", "3D"),
    Question("sketch plane=XY\n  rectangle corner=(0,0) size=(30,30)\n"
             "extrude distance=30 operation=new_body\nsketch plane=XY offset=30\n"
             "  rectangle corner=(10,10) size=(10,10)\nextrude distance=20 operation=join",
             "How many box-shaped bodies are joined in the part?",
             ("1", "3", "2", "4"), "C", "3D"),
    Question("sketch plane=XY\n  line start=(0,0) end=(40,0)\n  line start=(40,0) end=(20,30)\n"
             "  line start=(20,30) end=(0,0)",
             "What shape does this sketch draw?",
             ("a square", "a circle", "a hexagon", "a triangle"), "D", "2D"),
    Question("sketch plane=XY\n  circle center=(0,0) radius=10\n  circle center=(30,0) radius=10\n"
             "  line start=(0,10) end=(30,10)\n  line start=(0,-10) end=(30,-10)",
             "What outline does this sketch make?",
             ("a slot with round ends", "a star", "an L shape", "a triangle"), "A", "2D"),
    Question("sketch plane=XY\n  arc center=(0,0) radius=15 start_angle=0 end_angle=180\n"
             "  line start=(-15,0) end=(15,0)",
             "What shape does this sketch draw?",
             ("a full circle", "a half disc", "a rectangle", "a cross"), "B", "2D"),
)
"""The ``cad`` split: plain-text sketch-and-extrude programs, three per Subject."""

INVARIANCE_ICONS = (
    Question("sun", "What does the picture show?",
             ("a fish", "a cup", "the sun", "a tree"), "C", "Semantics"),
    Question("cup", "What is drawn?",
             ("a cup", "a flag", "a heart", "a moon"), "A", "Semantics"),
)
"""The invariance questions (``program`` names the icon), asked in each of the eleven splits."""

SHIFTS = ((3, 0), (0, -3), (-4, 2), (2, 4), (-2, -3))
"""``inv_t0``..``inv_t4``: the translation of each split."""
TURNS = (90, 180, 270, 45, 135)
"""``inv_r0``..``inv_r4``: the rotation (degrees, about the centre) of each split."""

DIGITS = {
    "1": '<path d="M10 8L15 4V24M10 24H20"/>',
    "7": '<path d="M7 5H21L12 24"/>',
    "0": '<ellipse cx="14" cy="14" rx="6" ry="10"/>',
    "4": '<path d="M17 24V4L6 17H22"/>',
}
"""SGP-MNIST's digits: strokes on a 28 x 28 canvas."""


def moved(name: str, transform: str) -> str:
    """The icon ``name`` with its drawing under ``transform`` (none: the icon as it is)."""
    if not transform:
        return demo_svg(name)
    return f'{_SVG_HEAD}<g transform="{transform}">{DEMO_ICONS[name]}</g></svg>'


def transforms() -> dict[str, str]:
    """Each invariance split's ``transform`` ("" for ``inv``, the original)."""
    found = {TRANSLATION[0]: ""}
    found |= {split: f"translate({dx} {dy})" for split, (dx, dy) in zip(TRANSLATION[1:], SHIFTS)}
    found |= {split: f"rotate({angle} 18 18)" for split, angle in zip(ROTATION[1:], TURNS)}
    return found


def question_row(question: Question, program: str) -> dict[str, str]:
    """A row of ``sgp-bench/sgp-bench``."""
    text = f"The following program draws an image:\n\n{program}\n\n{question.question}"
    letters = dict(zip("ABCD", question.options))
    return {"Question": text, **letters, "Answer": question.answer, "Subject": question.subject}


def digit_row(digit: str, strokes: str) -> dict[str, str]:
    """A row of ``sgp-bench/sgp-mnist``: the digit's program, the question, the digit."""
    program = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 28 28">'
               f'<g fill="none" stroke="#000" stroke-width="3">{strokes}</g></svg>')
    return {"Question": f"{program}\n\nWhich digit does this SVG program draw?", "Answer": digit}


def write_split(folder: Path, split: str, rows: Sequence[Mapping[str, object]]) -> None:
    """One split as the hub stores it: ``folder/data/<split>-00000-of-00001.parquet``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (folder / "data").mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist([dict(row) for row in rows]),
                   folder / "data" / f"{split}-00000-of-00001.parquet")


def write(folder: Path) -> None:
    """``folder/sgp-bench`` (every multiple-choice split) and ``folder/sgp-mnist``."""
    bench = folder / "sgp-bench"
    write_split(bench, "svg", [question_row(q, q.program) for q in SVG_QUESTIONS])
    write_split(bench, "cad", [question_row(q, q.program) for q in CAD_QUESTIONS])
    for split, transform in transforms().items():
        write_split(bench, split, [question_row(q, moved(q.program, transform))
                                   for q in INVARIANCE_ICONS])
    write_split(folder / "sgp-mnist", "mnist",
                [digit_row(digit, strokes) for digit, strokes in DIGITS.items()])


_PROVENANCE = "questions written for svgeval about its demo icons"
SAMPLES = {
    "sgp-bench-svg": BuiltinSample(
        folder="sgp-bench", write=write, data="sgp-bench",
        provenance=f"{_PROVENANCE}: 8 questions, 2 per Subject"),
    "sgp-bench-cad": BuiltinSample(
        folder="sgp-bench", write=write, data="sgp-bench",
        provenance="6 plain-text sketch-and-extrude programs written for svgeval, 3 per Subject"),
    "sgp-bench-inv": BuiltinSample(
        folder="sgp-bench", write=write, data="sgp-bench",
        provenance=f"{_PROVENANCE}, moved or turned by a transform in each of the 11 splits: 22"),
    "sgp-bench-mnist": BuiltinSample(
        folder="sgp-bench", write=write, data="sgp-mnist",
        provenance="4 digits drawn as strokes in code"),
}
for _task, _sample in SAMPLES.items():
    BUILTIN_SAMPLES.register(_sample, name=_task)
