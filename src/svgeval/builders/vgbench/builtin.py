"""VGBench's built-in sample: questions and captions of svgeval's own about its demo icons, in
the layouts of the hub datasets.

* ``folder/vgqa/data/svg/final_dataset_<type>.json`` (``vgbench/VGQA``, as ``build_dataset.py``
  writes it): records ``{"idx", "data": {"code", "caption"}, "query": {"q", "o": ["A: ...",
  ...], "a", "idx"}}``; five per type, the first three being the few-shot examples the task
  never asks, so two questions per type are scored.
* ``folder/vgen/svg.json`` (``vgbench/VGen``): records ``{"idx", "code", "caption",
  "vformat"}``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from svgeval.svg.demo_corpus import demo_svg
from svgeval.tasks.builtin import BUILTIN_SAMPLES, BuiltinSample

QUESTIONS: dict[str, tuple[tuple[str, str, tuple[str, str, str, str], str], ...]] = {
    "color": (
        ("heart", "What is the main colour of the image?", ("red", "blue", "green", "grey"), "A"),
        ("fish", "What is the main colour of the image?", ("yellow", "blue", "red", "brown"), "B"),
        ("tree", "What colour are the leaves?", ("purple", "white", "green", "black"), "C"),
        ("flag", "What colour is the flag's cloth?", ("red", "yellow", "black", "blue"), "D"),
        ("sun", "What colour is the disc in the middle?", ("orange", "blue", "green", "pink"),
         "A"),
    ),
    "category": (
        ("house", "What does this image depict?", ("a building", "an animal", "a plant",
                                                   "a vehicle"), "A"),
        ("cup", "What does this image depict?", ("a tool", "a drinking vessel", "a fruit",
                                                 "a bird"), "B"),
        ("mushroom", "What does this image depict?", ("a lamp", "a hat", "a fungus", "a fish"),
         "C"),
        ("traffic light", "What is this object used for?", ("cooking", "writing", "sleeping",
                                                            "directing traffic"), "D"),
        ("balloon", "What does this image depict?", ("a toy balloon", "an apple", "a key",
                                                     "a shoe"), "A"),
    ),
    "shape": (
        ("moon", "Which shape is the dark background?", ("a square", "a circle", "a triangle",
                                                         "a star"), "B"),
        ("star", "Which shape is the large orange figure?", ("a star", "a circle", "a square",
                                                             "a cross"), "A"),
        ("tree", "Which shape are the leaves?", ("a circle", "a rectangle", "a triangle",
                                                 "a heart"), "C"),
        ("fish", "Which shape is the body?", ("a square", "a triangle", "a star", "an ellipse"),
         "D"),
        ("house", "Which shape is the roof?", ("a circle", "a triangle", "a star", "a ring"), "B"),
    ),
}
"""VGQA: question type -> (icon, question, options, answer letter); the first three of each are
the few-shot examples."""

CAPTIONS = {
    "sun": "An orange sun with yellow rays pointing in every direction.",
    "house": "A small brown house with a red roof, a dark door and two light blue windows.",
    "heart": "A red heart with a pink highlight on its upper left.",
    "fish": "A blue fish swimming left, with a darker blue tail and a black eye.",
    "traffic light": "A dark traffic light with red, yellow and green lamps from top to bottom.",
    "balloon": "A red balloon with a white shine, tied to a wavy grey string.",
}
"""VGen: demo icon -> its caption."""


def vgqa_record(index: int, icon: str, question: str, options: tuple[str, ...],
                answer: str) -> dict[str, Any]:
    """A VGQA record as ``build_dataset.py`` writes it."""
    return {"idx": index, "data": {"code": demo_svg(icon), "caption": f"the {icon} icon"},
            "query": {"q": question, "o": [f"{letter}: {option}"
                                           for letter, option in zip("ABCD", options)],
                      "a": answer, "idx": index}}


def write_json(path: Path, value: Any) -> None:
    """``value`` as JSON in ``path`` (its folder made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=1), encoding="utf-8")


def write(folder: Path) -> None:
    """``folder/vgqa`` and ``folder/vgen``, each in its hub dataset's layout."""
    for qtype, questions in QUESTIONS.items():
        write_json(folder / "vgqa" / "data" / "svg" / f"final_dataset_{qtype}.json",
                   [vgqa_record(index, *question) for index, question in enumerate(questions)])
    write_json(folder / "vgen" / "svg.json", [
        {"idx": index, "code": demo_svg(icon), "caption": caption, "vformat": "svg"}
        for index, (icon, caption) in enumerate(CAPTIONS.items())])


SAMPLES = {
    "vgbench-vgqa": BuiltinSample(
        folder="vgbench", write=write, data="vgqa",
        provenance="questions written for svgeval about its demo icons: 3 types of 5 (3 "
                   "few-shot examples, 2 asked)"),
    "vgbench-vgen": BuiltinSample(
        folder="vgbench", write=write, data="vgen",
        provenance=f"{len(CAPTIONS)} of svgeval's demo icons with captions written for it"),
}
for _task, _sample in SAMPLES.items():
    BUILTIN_SAMPLES.register(_sample, name=_task)
