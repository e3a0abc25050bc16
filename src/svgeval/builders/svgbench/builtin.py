"""SVGBench's built-in sample: six prompts of ours about round red things, with requirements.

The repository's layout (:mod:`svgeval.tasks.svgbench.data`): ``questions/questions.json``, a
list of ``{"prompt", "requirements"}``, and ``questions/test_questions.json`` holding its first
three (``--set subset=test``). SVGBench has no reference drawings: the ``oracle`` answers the
prompt's example, a red circle, so every prompt here asks for something round and red whose
first requirements that circle meets and whose others it does not; a judge should find some
but not all of them met, and none for an answer that does not draw (scored 0 unasked).
"""

from __future__ import annotations

import json
from pathlib import Path

from svgeval.tasks.builtin import BUILTIN_SAMPLES, BuiltinSample

QUESTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Draw a red apple with a leaf.",
     ("The apple is a red round shape.", "The apple is roughly centred.",
      "A green leaf sits on top of the apple.", "A short brown stem is visible.")),
    ("Draw a red balloon on a string.",
     ("The balloon is red.", "The balloon is round or oval.",
      "A thin string hangs below the balloon.", "A small white highlight shines on the balloon.")),
    ("Draw a traffic light showing red.",
     ("A red circle is lit.", "The lamps sit in a dark rounded housing.",
      "There are three lamps stacked vertically.", "The lower two lamps are dark or dim.")),
    ("Draw a ladybird seen from above.",
     ("The body is a red round shape.", "The shell has black spots.",
      "A black head is visible at one end.", "A line divides the two wing cases.")),
    ("Draw a pair of cherries.",
     ("At least one red round fruit is drawn.", "There are exactly two cherries.",
      "Green stems join the cherries at the top.", "The stems are curved.")),
    ("Draw the sun setting over the sea.",
     ("The sun is a red or orange disc.", "A horizon line cuts across the sun.",
      "The sea below the horizon is blue.", "The sky is a warm colour, not white.")),
)
"""(prompt, requirements): ours, each met in part by a red circle on white."""
TEST_COUNT = 3
"""How many of the questions ``test_questions.json`` repeats."""


def write(folder: Path) -> None:
    """``questions/questions.json`` and ``questions/test_questions.json`` under ``folder``."""
    records = [{"prompt": prompt, "requirements": list(requirements)}
               for prompt, requirements in QUESTIONS]
    questions = folder / "questions"
    questions.mkdir(parents=True, exist_ok=True)
    for name, chosen in (("questions.json", records),
                         ("test_questions.json", records[:TEST_COUNT])):
        (questions / name).write_text(json.dumps(chosen, indent=2), encoding="utf-8")


SAMPLE = BuiltinSample(
    folder="svgbench", write=write,
    provenance="6 prompts of ours about round red things, 4 requirements each (test subset: 3)",
)
BUILTIN_SAMPLES.register(SAMPLE, name="svgbench")
