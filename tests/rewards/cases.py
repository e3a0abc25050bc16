"""Hand-built reward cases: a reference, a slightly perturbed copy, an unrelated SVG, invalid."""

from __future__ import annotations

import random

NS = 'xmlns="http://www.w3.org/2000/svg"'


def house(dx: int = 0, roof: str = "#b22222") -> str:
    return (f'<svg {NS} viewBox="0 0 100 100"><rect x="{20 + dx}" y="45" width="60" height="45" '
            f'fill="#f4a460"/><polygon points="{15 + dx},47 50,15 {85 + dx},47" fill="{roof}"/>'
            f'<rect x="{42 + dx}" y="65" width="16" height="25" fill="#654321"/></svg>')


REFERENCE = house()
PERTURBED = house(dx=3, roof="#a52a2a")
UNRELATED = (f'<svg {NS} viewBox="0 0 100 100"><circle cx="30" cy="70" r="25" fill="#1e90ff"/>'
             '<path d="M60 10 L95 30 L70 50 Z" fill="#32cd32"/></svg>')
INVALID = {
    "no_svg": "I cannot draw that, sorry.",
    "unparsable": f'<svg {NS}><rect width="10" height="10"></g></svg>',
    "blank": f'<svg {NS} viewBox="0 0 100 100"></svg>',
    "hostile": f'<svg {NS}><image href="file:///etc/passwd" width="9" height="9"/></svg>',
}

CAPTION = "A small red house with a brown door and a sloped roof"
CAPTION_PERTURBED = "A small red house with a wooden door and a flat roof"
CAPTION_UNRELATED = "Blue circle next to a green triangle"


def long_path_svg(size: int = 1_900_000) -> str:
    """One path of ``size`` characters of random line segments: CairoSVG takes about a minute
    to fill it at 128 px (54 s on the 2-core development VM)."""
    rng = random.Random(0)
    points = []
    length = 0
    while length < size:
        points.append(f"L{rng.uniform(0, 100):.2f} {rng.uniform(0, 100):.2f}")
        length += len(points[-1]) + 1
    return f'<svg {NS} viewBox="0 0 100 100"><path d="M0 0 {" ".join(points)}" fill="red"/></svg>'
