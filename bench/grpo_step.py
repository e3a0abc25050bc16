"""The GRPO step the reward cases score: prompts of 8 rollouts over SVGEditBench answers.

Each prompt's reference is an SVGEditBench answer; its 8 rollouts mix the reference, a fenced
copy, other icons, a truncated answer, a refusal and an edited copy (168 prompts: 1,344
completions, one step).
"""

from __future__ import annotations

from pathlib import Path

PROMPTS, ROLLOUTS = 168, 8


def step(data: Path, prompts: int = PROMPTS) -> tuple[list[str], list[str]]:
    """``prompts`` x 8 (completion, reference) pairs (1,344 by default); past the last answers
    but three, the answers are taken again from the first."""
    answers = [p.read_text() for p in sorted(data.glob("*/answer/*.svg"))]
    completions, references = [], []
    for k in (i % (len(answers) - 3) for i in range(prompts)):
        ref = answers[k]
        rollouts = [ref, f"```svg\n{ref}\n```", answers[k + 1], answers[k + 2], ref[: len(ref) // 2],
                    "I cannot do that.", ref.replace("fill", "stroke", 1), answers[k + 3]]
        completions += rollouts
        references += [ref] * ROLLOUTS
    return completions, references


def step_groups(completions: list[str], references: list[str]) -> list[tuple[str, list[str]]]:
    """Each prompt's reference and the SVGs of its completions that hold one, as the scorer
    extracts them."""
    from svgeval.svg.extract import extract_svg

    groups = []
    for start in range(0, len(completions), ROLLOUTS):
        found = (extract_svg(c).svg for c in completions[start:start + ROLLOUTS])
        groups.append((extract_svg(references[start]).svg or references[start],
                       [svg for svg in found if svg]))
    return groups


def step_renders(completions: list[str], references: list[str]) -> list[str]:
    """What one reward call of the step draws: each prompt's reference and each distinct SVG
    of its completions that is not the reference (a group draws a repeat once)."""
    drawn = []
    for reference, svgs in step_groups(completions, references):
        drawn += [reference, *(svg for svg in dict.fromkeys(svgs) if svg != reference)]
    return drawn
