"""SVGEditBench V2's built-in sample: eight edits of svgeval's demo icons as triplet folders.

Each edit takes a demo icon (:mod:`svgeval.svg.demo_corpus`), an instruction of ours and the
icon changed by it in code (colours, shapes added, removed or moved: the target always draws
differently from the icon and moves some shape), written as the released
``src/restore_dataset.py`` writes a triplet: ``triplets/<id:04>/before.svg``, ``after.svg``,
``instruction.txt`` and ``metadata.json``. The metadata's ``after`` is an emoji file name of
one of the three released sets (Twemoji, Noto Emoji, Fluent UI), so that the released
``get_name`` gives CLIP a caption of the target; ``distance`` is ours, ``1 -`` difflib's ratio
of the two SVG codes (the release's is another measure).

:func:`write_triplet` is what every writer of triplet folders shares (the tests' among them).
"""

from __future__ import annotations

import difflib
import functools
import json
from dataclasses import dataclass
from pathlib import Path

from svgeval.svg.demo_corpus import demo_svg
from svgeval.tasks.builtin import BUILTIN_SAMPLES, BuiltinSample


def write_triplet(folder: Path, before: str, after: str, instruction: str,
                  names: tuple[str, str], distance: float) -> Path:
    """One triplet folder: ``before.svg``, ``after.svg``, ``instruction.txt`` and
    ``metadata.json`` (``names``: the before and after emoji file names)."""
    folder.mkdir(parents=True)
    (folder / "before.svg").write_text(before, encoding="utf-8")
    (folder / "after.svg").write_text(after, encoding="utf-8")
    (folder / "instruction.txt").write_text(instruction, encoding="utf-8")
    metadata = {"after": names[1], "before": names[0], "distance": distance}
    (folder / "metadata.json").write_text(json.dumps(metadata), encoding="utf-8")
    return folder


@dataclass(frozen=True)
class Edit:
    """One triplet: a demo icon, the instruction, the changes that make the target, and the
    emoji file names of the icon and of the target."""

    icon: str
    instruction: str
    changes: tuple[tuple[str, str], ...]
    """(old, new) replacements in the icon's SVG."""
    names: tuple[str, str]

    @property
    def before(self) -> str:
        return demo_svg(self.icon)

    @property
    def after(self) -> str:
        """The icon with every change made (each ``old`` must be in it)."""
        missing = [old for old, _ in self.changes if old not in self.before]
        if missing:
            raise ValueError(f"{self.icon}: {missing[0]!r} is not in the icon")
        return functools.reduce(lambda svg, change: svg.replace(*change), self.changes,
                                self.before)


_END = "</svg>"
EDITS = (
    Edit("heart", "Make the heart purple and remove its highlight.",
         (("#DD2E44", "#AA8DD8"), ('<ellipse fill="#F4ABBA" cx="10" cy="12" rx="2.5" ry="1.5"/>',
                                   "")),
         ("twemoji_2764.svg", "twemoji_1f49c.svg")),
    Edit("sun", "Draw a smiling face on the sun: two dark eyes and a curved mouth.",
         ((_END, '<circle fill="#664500" cx="15.5" cy="16" r="1.2"/>'
                 '<circle fill="#664500" cx="20.5" cy="16" r="1.2"/>'
                 '<path fill="none" stroke="#664500" stroke-width="1.2" d="M14.5 20q3.5 3 7 0"/>'
                 + _END),),
         ("twemoji_2600.svg", "noto-emoji_emoji_u1f31e.svg")),
    Edit("moon", "Fill the crescent out into a full moon.",
         (('<path fill="#FFD983" d="M22 6a12 12 0 1 0 8 18A10 10 0 0 1 22 6z"/>',
           '<circle fill="#FFD983" cx="18" cy="18" r="12"/>'),),
         ("noto-emoji_emoji_u1f319.svg", "noto-emoji_emoji_u1f315.svg")),
    Edit("fish", "Make the fish yellow with a blue tail, and add a dark stripe across its body.",
         (("#55ACEE", "#FFCC4D"), ("#3B88C3", "#55ACEE"),
          (_END, '<rect fill="#292F33" x="17" y="10.5" width="3" height="15"/>' + _END)),
         ("twemoji_1f41f.svg", "twemoji_1f420.svg")),
    Edit("house", "Add a round green bush in front of the house, to the left of the door.",
         ((_END, '<ellipse fill="#77B255" cx="9" cy="31" rx="5" ry="3.5"/>' + _END),),
         ("fluentui_flat_house_flat.svg", "fluentui_flat_house_with_garden_flat.svg")),
    Edit("balloon", "Make the balloon blue and cut its string.",
         (("#BE1931", "#3B88C3"),
          ('<path fill="none" stroke="#66757F" d="M18 27c-2 3 2 5 0 8"/>', "")),
         ("fluentui_flat_balloon_flat.svg", "fluentui_flat_blue_balloon_flat.svg")),
    Edit("traffic light", "Switch off the red and yellow lamps (dark grey) and enlarge the green "
         "one.",
         (('fill="#DD2E44" cx="18" cy="9"', 'fill="#66757F" cx="18" cy="9"'),
          ('fill="#FFCC4D" cx="18" cy="18"', 'fill="#66757F" cx="18" cy="18"'),
          ('cx="18" cy="27" r="4"', 'cx="18" cy="27" r="5.5"')),
         ("twemoji_1f6a5.svg", "twemoji_1f6a6.svg")),
    Edit("star", "Turn the star's centre white and move it up a little.",
         (('<circle fill="#FFD983" cx="18" cy="17" r="4"/>',
           '<circle fill="#FFFFFF" cx="18" cy="14" r="4"/>'),),
         ("fluentui_highcontrast_star_high_contrast.svg",
          "fluentui_highcontrast_glowing_star_high_contrast.svg")),
)
"""The sample, in triplet order (ids ``0000``...)."""


def distance(before: str, after: str) -> float:
    """Ours: ``1 -`` difflib's similarity ratio of the two SVG codes, to 3 decimals."""
    return round(1.0 - difflib.SequenceMatcher(None, before, after).ratio(), 3)


def write(folder: Path) -> None:
    """``folder/triplets/<id>/``, one folder per edit of :data:`EDITS`."""
    for index, edit in enumerate(EDITS):
        write_triplet(folder / "triplets" / f"{index:04d}", edit.before, edit.after,
                      edit.instruction, edit.names, distance(edit.before, edit.after))


SAMPLE = BuiltinSample(
    folder="svgeditbench-v2", write=write, data="triplets",
    provenance=f"{len(EDITS)} edits of ours of svgeval's demo icons, in the released triplet "
               "folders",
)
BUILTIN_SAMPLES.register(SAMPLE, name="svgeditbench-v2")
