"""SVGEditBench prompts, word for word as in the released query files.

Nishina & Matsui, "SVGEditBench" (CVPRW 2024), supplementary Sec. 6-7: the task sentence names the
emoji (its Unicode name), the SVG follows in a ```svg block, and a fixed paragraph asks for the
answer in the same format.
"""

from __future__ import annotations

SUBTASKS: dict[str, str] = {
    "change_color": "1_ChangeColor",
    "set_contour": "2_SetContour",
    "compression": "3_Compression",
    "upside_down": "4_UpSideDown",
    "transparency": "5_Transparency",
    "crop_to_half": "6_CropToHalf",
}
"""Subtask name -> folder of the official release."""

_INSTRUCTIONS: dict[str, str] = {
    "change_color": (
        "Please generate an SVG code that changes the part of the emoji with a {color} color "
        "to {target}."
    ),
    "set_contour": (
        "Please generate an SVG code that draws a black line around the part of the emoji with "
        "a {color} color."
    ),
    "compression": "Please generate a more compact SVG code that represents the same emoji.",
    "upside_down": "Please flip this emoji upside down.",
    "transparency": "Please make this emoji transparent by half.",
    "crop_to_half": "Please trim the right half and keep the left half.",
}

_RESPONSE_FORMAT = (
    "Please respond in the following format. Only return the SVG code. \n\n```svg\n<svg>...</svg>\n```"
)


def build_prompt(
    subtask: str, name: str, svg: str, color: str | None = None, target: str | None = None
) -> str:
    """The full query text for one SVGEditBench case."""
    instruction = _INSTRUCTIONS[subtask].format(color=color, target=target)
    return (
        f"The following code is the SVG code for the emoji '{name}'. {instruction}\n\n"
        f"```svg\n{svg}\n```\n\n{_RESPONSE_FORMAT}"
    )
