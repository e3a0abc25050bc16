"""SGP-GenBench's and SGP-CompBench's built-in sample: svgeval's demo icons with descriptions
of its own, scenes painted in code with captions and TIFA questions, and compositional prompts.

One folder in the releases' layouts:

* ``SGP-Object.json`` (``SphereLab/SGP-Object``): records ``description``, ``svg_content`` (a
  demo icon);
* ``coco_test_data.json`` (``image_id``, ``caption``), the photos ``val2017/<image_id:012d>.jpg``
  (flat shapes painted with PIL) and ``coco_qa.json`` (caption -> ``{"description",
  "questions": [{"about", "question", "choices", "answer"}]}``), as SGP-RL's scene evaluation
  reads them;
* ``sgp-compbench-prompts.json``: records ``id``, ``prompt``, ``gen_type``, ``major_type``,
  ``minor_type``, ``metadata`` (numeracy: ``total_count``, ``object_counts``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from svgeval.svg.demo_corpus import demo_svg
from svgeval.tasks.builtin import BUILTIN_SAMPLES, BuiltinSample
from svgeval.tasks.sgp_genbench import data

OBJECTS = {
    "sun": "a bright orange sun with short yellow rays",
    "heart": "a red heart with a small pink highlight",
    "star": "an orange five-pointed star with a pale yellow centre",
    "fish": "a blue fish facing left with a dark eye",
    "mushroom": "a red mushroom cap with white spots on a short pale stem",
    "balloon": "a red balloon on a wavy grey string",
}
"""SGP-Object: demo icon -> its description."""

Box = tuple[int, int, int, int]


class Scene(NamedTuple):
    """A COCO-like scene: the caption, the shapes of its photo, the TIFA questions."""

    image_id: int
    caption: str
    background: str
    shapes: tuple[tuple[str, str, Box], ...]
    """(``ellipse`` or ``rectangle``, fill colour, box) painted in order."""
    questions: tuple[tuple[str, str, tuple[str, ...], str], ...]
    """(about, question, choices, answer)."""


SCENES = (
    Scene(101, "A yellow sun in a blue sky above a green field.", "#5aa0e6",
          (("rectangle", "#3c9a3c", (0, 44, 96, 64)), ("ellipse", "#f5d020", (60, 6, 82, 28))),
          (("sun", "is there a sun?", ("yes", "no"), "yes"),
           ("field", "what color is the field?", ("green", "red", "white", "purple"), "green"))),
    Scene(202, "A red house with a brown door standing on grass.", "#bfe3f5",
          (("rectangle", "#4f9a3a", (0, 52, 96, 64)), ("rectangle", "#d0312d", (26, 22, 70, 56)),
           ("rectangle", "#6b3b1f", (42, 36, 54, 56))),
          (("house", "what color is the house?", ("red", "blue", "yellow", "black"), "red"),
           ("door", "is there a door?", ("yes", "no"), "yes"))),
    Scene(303, "Two round green trees beside a small lake.", "#d8eef8",
          (("rectangle", "#7cba5a", (0, 40, 96, 64)), ("ellipse", "#2f6fb5", (50, 44, 90, 60)),
           ("ellipse", "#2e7d32", (6, 10, 26, 34)), ("ellipse", "#2e7d32", (28, 12, 46, 34))),
          (("tree", "how many trees are there?", ("1", "2", "3", "4"), "2"),
           ("lake", "is there a lake?", ("yes", "no"), "yes"))),
    Scene(404, "A white boat on dark blue water under a grey sky.", "#9aa3ab",
          (("rectangle", "#1b3a6b", (0, 36, 96, 64)), ("rectangle", "#f4f4f4", (30, 30, 66, 40))),
          (("boat", "what color is the boat?", ("white", "green", "orange", "pink"), "white"),
           ("water", "is there water?", ("yes", "no"), "yes"))),
)
"""The COCO scene split: 96 x 64 photos of flat shapes."""

COMPBENCH = (
    ("binding", "color", "a red cup next to a blue fish",
     {"colors": ["red", "blue"], "nouns": ["cup", "fish"]}),
    ("binding", "color", "a yellow star and a green heart",
     {"colors": ["yellow", "green"], "nouns": ["star", "heart"]}),
    ("relation", "spatial", "a sun above a house",
     {"nouns": ["sun", "house"], "relation": "above"}),
    ("relation", "spatial", "a balloon to the left of a tree",
     {"nouns": ["balloon", "tree"], "relation": "left of"}),
    ("numeracy", "basic", "three stars and one moon",
     {"total_count": 4, "object_counts": [{"noun": "star", "count": 3},
                                          {"noun": "moon", "count": 1}]}),
    ("numeracy", "basic", "two fish and two cups",
     {"total_count": 4, "object_counts": [{"noun": "fish", "count": 2},
                                          {"noun": "cup", "count": 2}]}),
)
"""SGP-CompBench: (major type, minor type, prompt, metadata), two per group."""


def write_json(path: Path, value: Any) -> None:
    """``value`` as indented JSON in ``path`` (its folder made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=1, ensure_ascii=False), encoding="utf-8")


def paint(scene: Scene, path: Path) -> None:
    """The scene's photo, a JPEG, at ``path``."""
    from PIL import Image, ImageDraw

    photo = Image.new("RGB", (96, 64), scene.background)
    draw = ImageDraw.Draw(photo)
    for kind, fill, box in scene.shapes:
        (draw.ellipse if kind == "ellipse" else draw.rectangle)(box, fill=fill)
    path.parent.mkdir(parents=True, exist_ok=True)
    photo.save(path, format="JPEG", quality=95)


def write_scenes(folder: Path) -> None:
    """The captions, the photos under ``val2017/`` and the TIFA questions."""
    write_json(folder / data.SCENE_FILE,
               [{"image_id": s.image_id, "caption": s.caption} for s in SCENES])
    for scene in SCENES:
        paint(scene, folder / "val2017" / f"{scene.image_id:012d}.jpg")
    write_json(folder / data.SCENE_QUESTIONS, {s.caption: {"description": s.caption, "questions": [
        {"about": about, "question": question, "choices": list(choices), "answer": answer}
        for about, question, choices, answer in s.questions]} for s in SCENES})


def write(folder: Path) -> None:
    """The three releases' files side by side in ``folder``."""
    write_json(folder / data.OBJECT_FILES[0], [
        {"description": description, "svg_content": demo_svg(name)}
        for name, description in OBJECTS.items()])
    write_scenes(folder)
    write_json(folder / data.COMPBENCH_FILE, [
        {"id": f"{minor}_{major}_template_{index}", "prompt": prompt, "gen_type": "template",
         "major_type": major, "minor_type": minor, "metadata": metadata}
        for index, (major, minor, prompt, metadata) in enumerate(COMPBENCH, start=1)])


SAMPLES = {
    "sgp-genbench-object": BuiltinSample(
        folder="sgp-genbench", write=write,
        provenance=f"{len(OBJECTS)} of svgeval's demo icons with descriptions written for it"),
    "sgp-genbench-scene": BuiltinSample(
        folder="sgp-genbench", write=write,
        provenance=f"{len(SCENES)} scenes of flat shapes painted in code, captions and TIFA "
                   "questions written for svgeval"),
    "sgp-genbench-compbench": BuiltinSample(
        folder="sgp-genbench", write=write,
        provenance=f"{len(COMPBENCH)} compositional prompts written for svgeval, 2 per group"),
}
for _task, _sample in SAMPLES.items():
    BUILTIN_SAMPLES.register(_sample, name=_task)
