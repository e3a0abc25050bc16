"""VectorGym's built-in sample: four of svgeval's demo icons as rows of the dataset card.

Each row is one icon (:mod:`svgeval.svg.demo_corpus`) with a caption of ours, its sketch drawn by
:func:`~svgeval.builders.vectorgym.sketch.sketch_svg` (seed 0) and an edit of ours (an
instruction and the icon changed by it in code), in the columns of the card
(:data:`~svgeval.tasks.vectorgym.data.COLUMNS`), in the hub's layout
(``data/test-00000-of-00001.parquet``). The four VectorGym tasks read the same file, each
keeping the rows it needs (all four here).

:func:`schema` and :func:`write_parquet` are what every writer of VectorGym-layout rows shares
(the tests' fake data among them).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svgeval.builders.vectorgym.sketch import sketch_svg, write_parquet
from svgeval.render.isolated import Renderer
from svgeval.svg.demo_corpus import demo_svg
from svgeval.tasks.builtin import BUILTIN_SAMPLES, BuiltinSample

PARQUET = "data/test-00000-of-00001.parquet"
"""Where the sample lies under its folder, as in the hub's layout."""


@dataclass(frozen=True)
class Icon:
    """One row's content: a demo icon, our caption of it, and our edit of it."""

    name: str
    caption: str
    instruction: str
    changes: tuple[tuple[str, str], ...]
    """(old, new) replacements in the icon's SVG that make the edited target."""

    @property
    def svg(self) -> str:
        return demo_svg(self.name)

    @property
    def target(self) -> str:
        """The icon after the edit."""
        edited = self.svg
        for old, new in self.changes:
            if old not in edited:
                raise ValueError(f"{self.name}: {old!r} is not in the icon")
            edited = edited.replace(old, new)
        return edited


ICONS = (
    Icon("sun", "A cartoon sun: an orange disc with six short yellow rays around it.",
         "Make the rays blue, then turn the disc red and shrink it.",
         (("#FFCC4D", "#3B88C3"), ('fill="#FFAC33" cx="18" cy="18" r="8"',
                                   'fill="#DD2E44" cx="18" cy="18" r="5"'))),
    Icon("house", "A small house with a red pointed roof, a brown wall, a dark door and two "
         "light blue windows.",
         "Paint the roof green and remove both windows.",
         (("#DD2E44", "#77B255"),
          ('<rect fill="#88C9F9" x="9" y="20" width="4" height="4"/>', ""),
          ('<rect fill="#88C9F9" x="23" y="20" width="4" height="4"/>', ""))),
    Icon("heart", "A red heart with a small pink highlight on its upper left.",
         "Make the heart purple and move the highlight to the right lobe.",
         (("#DD2E44", "#AA8DD8"), ('cx="10" cy="12"', 'cx="26" cy="12"'))),
    Icon("fish", "A blue fish seen from the side, with a darker tail and a black eye.",
         "Give the fish a yellow body and an orange tail, and make it shorter.",
         (('fill="#55ACEE" cx="16" cy="18" rx="12"', 'fill="#FFCC4D" cx="17" cy="18" rx="10"'),
          ("#3B88C3", "#F4900C"))),
)
"""The sample: each icon is a sketch, a caption, and an edit whose target differs from it."""


def row(icon: Icon, sketch: bytes) -> dict[str, Any]:
    """The card's row of ``icon`` with its sketch PNG."""
    svg_id = icon.name.replace(" ", "-")
    return {
        "svg_id": svg_id, "sketch_category": "icon", "text_caption": icon.caption,
        "sketch_image": {"bytes": sketch, "path": f"{svg_id}.png"},
        "editing_prompt": icon.instruction, "editing_target_svg": icon.target, "split": "test",
        "editing_annotation_index": 0, "original_svg": icon.svg, "is_chart": False,
    }


def write(folder: Path) -> None:
    """The hub's layout under ``folder``: one test parquet file of :data:`ICONS`."""
    rows = []
    with Renderer(workers=1, timeout_s=10.0) as renderer:
        for icon in ICONS:
            sketch = sketch_svg(icon.svg, renderer, seed=0, key=icon.name)
            if sketch is None:
                raise RuntimeError(f"the demo icon {icon.name!r} did not render")
            rows.append(row(icon, sketch))
    write_parquet(folder / PARQUET, rows)


SAMPLE = BuiltinSample(
    folder="vectorgym", write=write, data=PARQUET,
    provenance=f"{len(ICONS)} of svgeval's demo icons with captions and edits of ours and "
    "sketches drawn by svgeval's sketch maker (seed 0)",
)
for _task in ("vectorgym-sketch", "vectorgym-edit", "vectorgym-text", "vectorgym-caption"):
    BUILTIN_SAMPLES.register(SAMPLE, name=_task)
