"""The prompts of SVGenius style transfer: the model's, the judge's and the pairwise one.

* :data:`STYLE_TRANSFER`, the model's prompt, and :data:`JUDGE`, the judge's, are the paper's
  word for word (Chen et al., 2025, appendix E.3: "Prompt for Style Transfer" and "Prompt for
  Automatic Evaluation of Style Transfer"), laid out as the paper prints them, each sent as one
  user message (the judge's followed by the two images, as the released
  ``src/generation/style_trans/evaluation.py`` sends them).
* :data:`RUBRICS` are the five criteria of Table 13. The paper does not show how a rubric fills
  ``{rubric}``; the judge prompt is the absolute-grading prompt of Prometheus, and we lay the
  rubric out as Prometheus does (:func:`rubric_text`).
* :data:`PAIRWISE` is ours: the paper names the three criteria of its global ranking (semantic
  preservation, stylistic fidelity, visual quality) but prints no prompt. It follows the judge
  prompt's wording and asks for ``[RESULT] A`` or ``[RESULT] B`` (see docs/judges.md).
"""

from __future__ import annotations

from dataclasses import dataclass

STYLE_TRANSFER = """You are a professional SVG designer with extensive experience in vector \
graphics creation. Your task is to perform a style transfer - recreate the provided reference \
SVG. Maintain the basic structure and given semantic description of the SVG, but adjust it to \
the desired style. Provide your answer strictly in the following format: Answer:{{SVG Code}}, \
without adding any explanations, comments, or other content.

Reference SVG to transform:
{reference_svg}

Description of the reference SVG:
{description}

the style to transfer:
{style}"""

JUDGE = """You are a fair judge assistant tasked with providing clear, objective feedback based \
on specific criteria, ensuring each assessment reflects the absolute standards set for \
performance.

Task Description: An instruction (might include an Input inside it), a response to evaluate, \
and a score rubric representing a evaluation criteria are given.

1. Make a brief description of the style transfer that how it modifies the image 1 to image 2.
2. Write a detailed feedback that assess the quality of the response strictly based on the given \
score rubric, not evaluating in general.
3. After writing a feedback, write a score that is an integer between 1 and 5. You should refer \
to the score rubric.
4. The output format should look as follows: "Feedback: (write a feedback for criteria) \
[RESULT] (an integer number between 1 and 5)"
5. Please do not generate any other opening, closing, and explanations.

The instruction to evaluate:
transfer the provided Image 1 to {style}

Response to evaluate:
the given Image 2

Score Rubrics:
{rubric}

Feedback:"""

PAIRWISE = """You are a fair judge assistant tasked with comparing two responses to the same \
style transfer instruction, ensuring the decision reflects the given criteria only.

Task Description: An instruction, two responses to evaluate and the criteria of the comparison \
are given. Image 1 is the original image, Image 2 is Response A and Image 3 is Response B.

1. Make a brief description of how each response modifies Image 1.
2. Write a detailed feedback that compares Response A and Response B strictly on the given \
criteria, not evaluating in general.
3. After writing a feedback, decide which response is better on the criteria as a whole.
4. The output format should look as follows: "Feedback: (write a feedback for criteria) \
[RESULT] (A or B)"
5. Please do not generate any other opening, closing, and explanations.

The instruction to evaluate:
transfer the provided Image 1 to {style}

Responses to evaluate:
Response A: the given Image 2
Response B: the given Image 3

Criteria:
- Semantic preservation: Does the response keep the content, main elements and meaning of \
Image 1?
- Stylistic fidelity: How well does the response match the target style?
- Visual quality: How good does the response look as a finished image?

Feedback:"""

JUDGE_TEMPERATURE = 0.05
"""The judge's temperature, as the paper states (appendix E.3) and the released code sends."""


@dataclass(frozen=True)
class Rubric:
    """One criterion of Table 13: its metric key, its question and the five level texts."""

    key: str
    criterion: str
    levels: tuple[str, str, str, str, str]


RUBRICS = (
    Rubric(
        "cp",
        "Content Preservation: To what extent does the SVG conversion preserve the basic content "
        "and main elements of the original image?",
        (
            (
                "Essential elements are missing or severely distorted; core content is "
                "unrecognizable."
            ),
            "Key elements are present but with noticeable omissions or alterations.",
            "Most main elements are preserved, though some secondary features may be simplified.",
            "All critical content is accurately retained with minor detail loss.",
            "Perfect preservation of all primary and secondary elements without compromise.",
        ),
    ),
    Rubric(
        "df",
        "Detail Fidelity: To what extent does the SVG conversion preserve the details of the "
        "original image?",
        (
            "Fine details are completely lost; output appears overly simplified or blurred.",
            (
                "Basic details are visible but intricate features (e.g., textures, small text) are "
                "poorly rendered."
            ),
            "Moderate detail retention; some high-frequency elements may lack precision.",
            "High-fidelity details with only subtle imperfections in complex areas.",
            "Pixel-perfect detail reproduction matching the original's complexity.",
        ),
    ),
    Rubric(
        "sc",
        "Style Consistency: Compared to the reference style, how well does the conversion match "
        "the target style?",
        (
            "Style is inconsistent or contradictory to reference (e.g., line art vs. painterly).",
            "Partial style adherence with noticeable deviations in techniques/effects.",
            "Broadly matches reference style but lacks nuanced execution.",
            "Close stylistic alignment with minor variations in rendering methods.",
            "Seamless style replication that could pass as original artwork.",
        ),
    ),
    Rubric(
        "ch",
        "Color Harmony: How harmonious is the color combination in the conversion result?",
        (
            "Clashing or jarring colors; poor contrast/balance distracts from content.",
            "Some discordant color pairs but maintains basic readability.",
            "Generally pleasing palette though certain hues may feel slightly off.",
            "Well-balanced colors with intentional aesthetic cohesion.",
            "Masterful color theory application enhancing visual appeal.",
        ),
    ),
    Rubric(
        "cb",
        "Composition Balance: How balanced is the visual composition of the conversion result?",
        (
            "Unbalanced weighting creates visual tension or emptiness.",
            "Some elements feel misaligned or disproportionately emphasized.",
            "Adequate balance though certain areas could benefit from adjustment.",
            "Strong compositional flow with deliberate focal points.",
            (
                "Expert-level layout adhering to design principles (e.g., rule of thirds, negative "
                "space)."
            ),
        ),
    ),
)
"""Table 13, in the order of Table 11's columns (CP, DF, SC, CH, CB)."""


def rubric_text(rubric: Rubric) -> str:
    """A rubric as Prometheus lays one out: ``[criterion]`` then ``Score 1: ...`` to 5."""
    levels = "\n".join(f"Score {level}: {text}" for level, text in enumerate(rubric.levels, 1))
    return f"[{rubric.criterion}]\n{levels}"
