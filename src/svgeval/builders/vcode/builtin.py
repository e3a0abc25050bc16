"""VCode's built-in sample: the repository's ``data/`` layout with pictures of svgeval's icons.

Each picture is a scene of svgeval's demo icons (:mod:`svgeval.svg.demo_corpus`) placed in code
and rendered on white, its sides multiples of 3 (the oracle's SVG is a third of the picture's
size, drawn back at 3 x). The questions and answers are svgeval's own, about what the scene
shows: four MM-Vet questions (open answers, ``<AND>``/``<OR>`` golds), six CV-Bench questions
(two per source: COCO and ADE20K in 2D, Omni3D in 3D) and four MMMU questions (a
multiple-choice and an open one in each of two subjects). The three tasks read the same folder.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svgeval.messages import png_bytes
from svgeval.render.cairo import RenderSpec, render_svg_uint8
from svgeval.svg.demo_corpus import DEMO_ICONS
from svgeval.tasks.builtin import BUILTIN_SAMPLES, BuiltinSample
from svgeval.tasks.vcode.data import MMMU_FOLDER

Placed = tuple[str, float, float, float]
"""A demo icon in a scene: its name, the x and y of its top-left corner and its side."""


@dataclass(frozen=True)
class Scene:
    """A picture: demo icons placed on a background, ``width`` x ``height`` px."""

    width: int
    height: int
    icons: Sequence[Placed]
    background: str = "#FFFFFF"

    def svg(self) -> str:
        """The scene as SVG, one nested ``<svg>`` per icon."""
        body = "".join(f'<svg x="{x}" y="{y}" width="{side}" height="{side}" '
                       f'viewBox="0 0 36 36">{DEMO_ICONS[name]}</svg>'
                       for name, x, y, side in self.icons)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
                f'height="{self.height}"><rect width="{self.width}" height="{self.height}" '
                f'fill="{self.background}"/>{body}</svg>')

    def png(self) -> bytes:
        """The scene rendered on white, as PNG bytes."""
        spec = RenderSpec(self.width, self.height, background="white")
        return png_bytes(render_svg_uint8(self.svg(), spec))


MMVET: Mapping[str, tuple[Scene, str, str, str]] = {
    "v1_0": (Scene(96, 96, [("sun", 6, 6, 84)]), "What is shown in this picture?",
             "sun", "rec"),
    "v1_1": (Scene(96, 96, [("traffic light", 6, 6, 84)]),
             "Which colour is the light at the top?", "red", "rec"),
    "v1_2": (Scene(192, 96, [("house", 6, 6, 84), ("tree", 102, 6, 84)], "#E8F4FC"),
             "How many windows does the house have?", "2<OR>two", "rec,math"),
    "v1_3": (Scene(192, 96, [("heart", 6, 6, 84), ("star", 102, 6, 84)]),
             "Which two shapes are drawn side by side?", "heart<AND>star", "rec,spat"),
}
"""MM-Vet key -> (picture, question, gold answer, capability)."""
CVBENCH: Sequence[tuple[str, str, str, Scene, str, Sequence[str], str]] = (
    ("2D", "count", "COCO", Scene(192, 96, [("star", 6, 6, 54), ("star", 69, 36, 54),
                                            ("star", 132, 6, 54)]),
     "How many stars are in the image?", ("2", "3", "4", "5"), "(B)"),
    ("2D", "count", "ADE20K", Scene(192, 96, [("tree", 3, 12, 60), ("house", 66, 12, 60),
                                              ("tree", 129, 12, 60)], "#E8F4FC"),
     "How many trees are in the image?", ("1", "2", "3", "4"), "(B)"),
    ("2D", "relation", "COCO", Scene(192, 96, [("sun", 6, 6, 84), ("moon", 102, 6, 84)]),
     ("Considering the relative positions of the sun and the moon in the image, where is the "
      "sun located with respect to the moon?"), ("left", "right"), "(A)"),
    ("2D", "relation", "ADE20K", Scene(96, 192, [("balloon", 18, 3, 60), ("house", 6, 102, 84)],
                                       "#E8F4FC"),
     ("Considering the relative positions of the balloon and the house in the image, where is "
      "the balloon located with respect to the house?"), ("below", "above"), "(B)"),
    ("3D", "depth", "Omni3D", Scene(192, 144, [("fish", 108, 12, 48), ("cup", 30, 30, 108)]),
     "Which object is closer to the camera taking this photo, the fish or the cup?",
     ("fish", "cup"), "(B)"),
    ("3D", "distance", "Omni3D", Scene(288, 96, [("mushroom", 6, 24, 66), ("tree", 78, 24, 66),
                                                 ("house", 216, 24, 66)], "#E8F4FC"),
     "Which object is closer to the mushroom, the tree or the house?", ("tree", "house"), "(A)"),
)
"""CV-Bench questions: (dimension, task, source, picture, question, choices, gold)."""
MMMU: Mapping[str, Sequence[tuple[Scene, str, Sequence[str], str]]] = {
    "Art": (
        (Scene(288, 96, [("cup", 6, 6, 84), ("mushroom", 102, 6, 84), ("fish", 198, 6, 84)]),
         "Which object in <image 1> has a red cap with white spots?",
         ("the cup", "the mushroom", "the fish", "the moon"), "B"),
        (Scene(96, 96, [("fish", 6, 6, 84)]), "What is the colour of the fish in <image 1>?",
         (), "blue"),
    ),
    "Math": (
        (Scene(96, 96, [("traffic light", 6, 6, 84)]),
         "How many round lights does the traffic light in <image 1> have?",
         ("2", "3", "4", "5"), "B"),
        (Scene(192, 96, [("star", 3, 3, 42), ("star", 51, 51, 42), ("star", 99, 3, 42),
                         ("star", 147, 51, 42)]), "How many stars are shown in <image 1>?",
         (), "4"),
    ),
}
"""MMMU subject -> (picture, question, options (none: open), gold) of its questions."""


def write_json(path: Path, value: Any, lines: bool = False) -> None:
    """``value`` as JSON at ``path`` (one record a line with ``lines``), folders made."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(v) + "\n" for v in value) if lines else json.dumps(value, indent=1)
    path.write_text(text, encoding="utf-8")


def write_picture(path: Path, png: bytes) -> None:
    """The picture ``png`` at ``path``, folders made."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png)


def write_mmvet(data: Path) -> None:
    """``mm-vet/mm-vet.json`` and its pictures under ``mm-vet/images/``."""
    records = {}
    for key, (scene, question, answer, capability) in MMVET.items():
        write_picture(data / "mm-vet/images" / f"{key}.png", scene.png())
        records[key] = {"imagename": f"{key}.png", "question": question, "answer": answer,
                        "capability": capability}
    write_json(data / "mm-vet/mm-vet.json", records)


def cvbench_record(dimension: str, task: str, source: str, number: int, question: str,
                   choices: Sequence[str], answer: str, suffix: str = ".png") -> dict[str, Any]:
    """One line of CV-Bench's ``annotations.jsonl``; its picture is ``img/<image_path>``."""
    image = f"{dimension}/{task}/images/{source.lower()}_{number}{suffix}"
    return {"split": "test", "task": task, "dimension": dimension, "question": question,
            "answer": answer, "image_path": image, "filename": f"img/{image}",
            "choices": list(choices), "source": source}


def write_cvbench(data: Path) -> None:
    """``cv-bench/img/{2D,3D}/<task>/annotations.jsonl`` and the pictures beside them."""
    files: dict[str, list[dict[str, Any]]] = {}
    for number, (dimension, task, source, scene, question, choices, answer) in enumerate(
            CVBENCH, start=1):
        record = cvbench_record(dimension, task, source, number, question, choices, answer)
        write_picture(data / "cv-bench/img" / record["image_path"], scene.png())
        files.setdefault(f"{dimension}/{task}", []).append(record)
    for folder, records in files.items():
        write_json(data / "cv-bench/img" / folder / "annotations.jsonl", records, lines=True)


def mmmu_record(ident: str, question: str, options: Sequence[str], answer: str
                ) -> dict[str, Any]:
    """One question of an MMMU ``output.json``: multiple-choice when it has ``options``."""
    letters = [chr(65 + i) for i in range(len(options))]
    return {"id": ident, "question": question,
            "question_type": "multiple-choice" if options else "open", "options": list(options),
            "answer": answer, "all_choices": letters, "index2ans": dict(zip(letters, options)),
            "image_paths": [f"{ident}_img1.png"]}


def write_mmmu(data: Path) -> None:
    """``<Subject>/output.json`` and ``<id>_img1.png`` under the released MMMU subset folder."""
    for subject, questions in MMMU.items():
        folder = data / MMMU_FOLDER / subject
        records = []
        for number, (scene, question, options, answer) in enumerate(questions, start=1):
            ident = f"dev_{subject}_{number}"
            write_picture(folder / f"{ident}_img1.png", scene.png())
            records.append(mmmu_record(ident, question, options, answer))
        write_json(folder / "output.json", records)


def write(folder: Path) -> None:
    """The repository's ``data/`` folder under ``folder``: MM-Vet, CV-Bench and MMMU."""
    for part in (write_mmvet, write_cvbench, write_mmmu):
        part(folder / "data")


SAMPLE = BuiltinSample(
    folder="vcode", write=write,
    provenance="scenes of svgeval's demo icons with svgeval's own questions: 4 MM-Vet, "
    "6 CV-Bench and 4 MMMU questions",
)
for _task in ("vcode-mmvet", "vcode-cvbench", "vcode-mmmu"):
    BUILTIN_SAMPLES.register(SAMPLE, name=_task)
