"""LICA-Bench's built-in sample: svgeval's demo icons in the eight SVG tasks' files.

One bundle in the release's layout (``benchmarks/svg/svg-<n>.json``, the records' SVG files under
``svgs/`` and their 256 px renders under ``images/``, :mod:`svgeval.tasks.lica_bench.data`)
serves ``lica-svg-1`` .. ``lica-svg-8``, six samples each, all made here from the twelve icons of
:mod:`svgeval.svg.demo_corpus` with questions, bugs, edits and captions of ours:

* svg-1 / svg-2: one perceptual and one semantic multiple-choice question on six icons;
* svg-3: six icons broken in code (easy: one defect; hard: three at once), each defect changing
  enough of the text that the unrepaired SVG is 0.05 or more from the icon in difflib distance;
* svg-4: six icons written out verbosely (declaration, comment, metadata, indentation, shape
  coordinates with a spurious ``.04``), the icon itself the optimisation (one decimal kept);
* svg-5: six icons and an edit command of ours, the icon edited in code the target;
* svg-6 / 7 / 8: six icons each with a caption of ours, the icon the answer.

:func:`write_bundle` is what every writer of a LICA-Bench bundle shares (the tests' fake data
among them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from svgeval.messages import png_bytes
from svgeval.render.cairo import RenderSpec, render_svg_uint8
from svgeval.svg.demo_corpus import DEMO_ICONS, demo_svg
from svgeval.tasks.builtin import BUILTIN_SAMPLES, BuiltinSample

Record = Mapping[str, Any]
TASK_IDS = tuple(f"svg-{n}" for n in range(1, 9))
NAMESPACE = ' xmlns="http://www.w3.org/2000/svg"'


def write_bundle(root: Path, records: Mapping[str, Sequence[Record]],
                 files: Mapping[str, str | bytes]) -> Path:
    """A bundle under ``root``: ``benchmarks/svg/<task-id>.json`` holding each task's records
    (``indent=1``) and ``files`` (text or bytes) at their paths relative to that folder, where the
    records' ``svg_path``, ``image_path`` and ``image`` point; returns ``root``."""
    folder = root / "benchmarks" / "svg"
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_bytes(content)
    for task_id, items in records.items():
        (folder / f"{task_id}.json").write_text(json.dumps(list(items), indent=1),
                                                encoding="utf-8")
    return root


def stem(name: str) -> str:
    """The file stem of an icon (``traffic light`` -> ``traffic-light``)."""
    return name.replace(" ", "-")


def question(text: str, options: Sequence[str], answer: str) -> Record:
    """One released question: ``{"question", "option": {"A": ..}, "answer"}``."""
    return {"question": text, "option": dict(zip("ABCD", options, strict=True)), "answer": answer}


QA: dict[str, tuple[Record, Record]] = {  # icon -> (perceptual, semantic) question
    "heart": (question("What colour is the large shape?", ["pink", "red", "blue", "green"], "B"),
              question("What does the icon depict?", ["a heart", "a leaf", "a drop", "a star"],
                       "A")),
    "traffic light": (
        question("How many circles are drawn?", ["1", "2", "3", "4"], "C"),
        question("What does the icon depict?",
                 ["a snowman", "a traffic light", "a remote control", "a thermometer"], "B")),
    "house": (
        question("How many light blue squares are there?", ["2", "1", "3", "none"], "A"),
        question("What does the icon depict?", ["a tent", "a church", "a barn door", "a house"],
                 "D")),
    "fish": (
        question("On which side of the body is the tail?", ["left", "right", "top", "bottom"],
                 "B"),
        question("What does the icon depict?", ["a bird", "a boat", "a fish", "a cloud"], "C")),
    "moon": (
        question("What colour is the large disc behind the crescent?",
                 ["white", "yellow", "dark grey", "red"], "C"),
        question("What does the icon most likely stand for?",
                 ["daytime", "night-time", "a lemon", "a coin"], "B")),
    "star": (
        question("What lies at the centre of the star?",
                 ["a small pale yellow circle", "a hole", "a square", "nothing"], "A"),
        question("In a rating widget, what would this icon stand for?",
                 ["a rating point", "a warning", "a deletion", "a download"], "A")),
}


def qa_records() -> list[Record]:
    """svg-1 and svg-2's shared records: the icon's file, its render and its two questions."""
    return [{"svg_path": f"svgs/{stem(name)}.svg", "image_path": f"images/{stem(name)}.png",
             "questions": {"perceptual_0": perceptual, "semantic_0": semantic}}
            for name, (perceptual, semantic) in QA.items()]


def _replaced(svg: str, pairs: Sequence[tuple[str, str]]) -> str:
    """``svg`` with every ``old`` of ``pairs`` replaced by its ``new``, in order."""
    for old, new in pairs:
        svg = svg.replace(old, new)
    return svg


def malformed_elements(svg: str) -> str:
    """The hard bug: tags left open (``/>`` -> ``>``), element names misspelled and the
    closing ``</svg>`` missing."""
    misspelled = _replaced(svg.replace("/>", ">"), [("<circle", "<circel"), ("<rect", "<rec"),
                                                    ("<path", "<pth"), ("<ellipse", "<elipse")])
    return misspelled.removesuffix("</svg>")


BUGS: tuple[tuple[str, str, str, Callable[[str], str]], ...] = (  # icon, difficulty, type, bug
    ("tree", "easy", "missing_namespace", lambda svg: svg.replace(NAMESPACE, "")),
    ("heart", "easy", "unquoted_attributes", lambda svg: svg.replace('"', "")),
    ("star", "easy", "missing_namespace", lambda svg: svg.replace(NAMESPACE, "")),
    ("flag", "hard", "malformed_elements", malformed_elements),
    ("fish", "hard", "malformed_elements", malformed_elements),
    ("traffic light", "hard", "malformed_elements", malformed_elements),
)


def bugfix_records() -> list[Record]:
    """svg-3: each icon broken by its bug, the icon itself the ground truth."""
    return [{"bug_svg": bug(demo_svg(name)), "ground_truth": demo_svg(name),
             "error_type": error_type, "difficulty": difficulty}
            for name, difficulty, error_type, bug in BUGS]


_SHAPE_NUMBER = re.compile(r'(\s(?:cx|cy|r|rx|ry|x|y|width|height)=")(\d+(?:\.\d+)?)"')


def unoptimised(name: str) -> str:
    """The icon as a careless editor saves it: an XML declaration, a comment, metadata, an
    element a line, a padded ``viewBox`` and shape coordinates carrying a spurious ``.04``."""
    body = _SHAPE_NUMBER.sub(lambda m: f'{m[1]}{float(m[2]) + 0.04:.2f}"', DEMO_ICONS[name])
    lines = body.replace("><", ">\n  <")
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
            f"<!-- {name}: saved by a drawing program -->\n"
            f'<svg{NAMESPACE} version="1.1" viewBox="0.00 0.00 36.00 36.00">\n'
            f"  <metadata>{name} icon, unoptimised export</metadata>\n  {lines}\n</svg>\n")


OPTIMIZED = ("sun", "house", "tree", "flag", "fish", "traffic light")
"""svg-4's icons: those with basic shapes, whose coordinates :func:`unoptimised` pads."""


def optimize_records() -> list[Record]:
    """svg-4: the verbose icon, the icon itself as ``opti_svg`` and their byte ratio."""
    records: list[Record] = []
    for name in OPTIMIZED:
        origin, optimized = unoptimised(name), demo_svg(name)
        ratio = round(len(optimized.encode()) / len(origin.encode()), 2)
        records.append({"origin_svg": origin, "opti_svg": optimized, "opti_ratio": ratio})
    return records


STYLE_EDITS: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (  # icon, command, edit
    ("heart", "Make the heart blue (#3B88C3).", (("#DD2E44", "#3B88C3"),)),
    ("house", "Paint the roof green (#77B255).", (("#DD2E44", "#77B255"),)),
    ("sun", "Outline the sun's disc in dark grey (#292F33), one unit wide.",
     (('<circle fill="#FFAC33"', '<circle fill="#FFAC33" stroke="#292F33" stroke-width="1"'),)),
    ("fish", "Turn the fish orange: the body #FFAC33 and the tail #F4900C.",
     (("#55ACEE", "#FFAC33"), ("#3B88C3", "#F4900C"))),
    ("tree", "Make the whole tree half transparent.",
     (('viewBox="0 0 36 36">', 'viewBox="0 0 36 36" opacity="0.5">'),)),
    ("balloon", "Make the balloon purple (#744EAA).", (("#BE1931", "#744EAA"),)),
)


def style_records() -> list[Record]:
    """svg-5: the icon, our command and the icon edited by it."""
    return [{"original": demo_svg(name), "modified": _replaced(demo_svg(name), edit),
             "command": command} for name, command, edit in STYLE_EDITS]


CAPTIONS = {
    "sun": "A yellow-orange sun: a round disc with eight short rays around it.",
    "house": "A small house with a red triangular roof, a brown door and two light blue "
             "windows.",
    "tree": "A green fir tree of two layered triangles on a brown trunk.",
    "heart": "A red heart with a small pink highlight on its upper left.",
    "star": "A five-pointed orange star with a pale yellow circle in its centre.",
    "flag": "A blue pennant with a white dot, on a grey pole.",
    "moon": "A yellow crescent moon in front of a dark round night sky.",
    "mushroom": "A mushroom with a red cap, white spots and a pale stem.",
    "cup": "A grey cup with a handle on the right and a brown band under the rim.",
    "fish": "A blue fish facing left, with a dark eye and a triangular tail.",
    "traffic light": "A traffic light: a dark housing with a red, a yellow and a green lamp.",
    "balloon": "A red balloon with a white highlight and a thin grey string.",
}
GENERATED = {"svg-6": ("sun", "house", "tree", "heart", "star", "flag"),
             "svg-7": ("moon", "mushroom", "cup", "fish", "traffic light", "balloon"),
             "svg-8": ("heart", "fish", "house", "moon", "balloon", "star")}
"""The icons each generation task asks for."""


def generation_records(names: Sequence[str]) -> list[Record]:
    """svg-6 / 7 / 8: our caption, the icon as the answer and its render as the picture."""
    return [{"question": [CAPTIONS[name]], "answer": demo_svg(name),
             "image": f"images/{stem(name)}.png"} for name in names]


def icon_files() -> dict[str, str | bytes]:
    """Every icon as ``svgs/<stem>.svg`` and its 256 px render on white as
    ``images/<stem>.png``."""
    files: dict[str, str | bytes] = {}
    for name in DEMO_ICONS:
        files[f"svgs/{stem(name)}.svg"] = demo_svg(name)
        render = render_svg_uint8(demo_svg(name), RenderSpec.square(256, background="white"))
        files[f"images/{stem(name)}.png"] = png_bytes(render)
    return files


def write(folder: Path) -> None:
    """The bundle under ``folder`` (its ``benchmarks/svg/`` holds the eight task files)."""
    qa = qa_records()
    records: dict[str, Sequence[Record]] = {
        "svg-1": qa, "svg-2": qa, "svg-3": bugfix_records(), "svg-4": optimize_records(),
        "svg-5": style_records(),
        **{task_id: generation_records(names) for task_id, names in GENERATED.items()}}
    write_bundle(folder, records, icon_files())


SAMPLE = BuiltinSample(
    folder="lica", write=write,
    provenance="svgeval's 12 demo icons with questions, bugs, verbose copies, edits and captions "
               "of ours: 6 samples per task",
)
for _task_id in TASK_IDS:
    BUILTIN_SAMPLES.register(SAMPLE, name=f"lica-{_task_id}")
