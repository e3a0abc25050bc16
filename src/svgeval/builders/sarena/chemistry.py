"""The skeletal formulas of SArena's built-in Chemistry track, drawn in code: bonds as lines
(double bonds as two, a Kekulé benzene), atom letters as strokes around their centre (no
font), on a 100-unit canvas."""

from __future__ import annotations

import math
from dataclasses import dataclass

Point = tuple[float, float]
GLYPHS = {  # atom letters as strokes around their centre (no font)
    "O": '<circle cx="{x}" cy="{y}" r="3.6" fill="none" stroke="#D01010" stroke-width="1.6"/>',
    "N": '<path d="M{l} {b}V{t}L{r} {b}V{t}" fill="none" stroke="#1030D0" stroke-width="1.6"/>',
    "H": '<path d="M{l} {t}V{b}M{r} {t}V{b}M{l} {y}H{r}" fill="none" stroke="#D01010" '
         'stroke-width="1.6"/>',
}


@dataclass(frozen=True)
class Molecule:
    """A skeletal formula: atom positions (a letter or "" for carbon), bonds (atom indices and
    order) and the name and SMILES of its prompt."""

    name: str
    smiles: str
    atoms: tuple[tuple[Point, str], ...]
    bonds: tuple[tuple[int, int, int], ...]


def _hexagon() -> tuple[Point, ...]:
    """The corners of a regular hexagon of radius 24 around (50, 50), the first at the top."""
    return tuple((round(50 + 24 * math.sin(math.pi * i / 3), 2),
                  round(50 - 24 * math.cos(math.pi * i / 3), 2)) for i in range(6))


KEKULE = tuple((i, (i + 1) % 6, 2 - i % 2) for i in range(6))
"""An aromatic six-ring's bonds: double and single in turn."""

MOLECULES = (
    Molecule("benzene", "c1ccccc1", tuple((p, "") for p in _hexagon()), KEKULE),
    Molecule("pyridine", "c1ccncc1",
             tuple((p, "N" if i == 3 else "") for i, p in enumerate(_hexagon())), KEKULE),
    Molecule("ethanol", "CCO", (((18, 60), ""), ((42, 46), ""), ((66, 60), "O"), ((78, 60), "H")),
             ((0, 1, 1), (1, 2, 1))),
    Molecule("acetone", "CC(=O)C", (((22, 64), ""), ((50, 48), ""), ((78, 64), ""),
                                    ((50, 20), "O")), ((0, 1, 1), (1, 2, 1), (1, 3, 2))),
)


def _shorten(a: Point, b: Point, cut_a: float, cut_b: float) -> tuple[Point, Point]:
    """The segment a-b with ``cut_a`` and ``cut_b`` units taken off its ends (atom labels)."""
    length = ((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2) ** 0.5
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    return ((a[0] + ux * cut_a, a[1] + uy * cut_a), (b[0] - ux * cut_b, b[1] - uy * cut_b))


def _bond(molecule: Molecule, first: int, second: int, order: int) -> str:
    """One bond: a line, and for a double bond a second one 3.5 units toward (50, 50) (the
    ring's inside) or to the side."""
    (a, label_a), (b, label_b) = molecule.atoms[first], molecule.atoms[second]
    start, end = _shorten(a, b, 5 if label_a else 0, 5 if label_b else 0)
    lines = [(start, end)]
    if order == 2:
        nx, ny = end[1] - start[1], start[0] - end[0]
        norm = (nx * nx + ny * ny) ** 0.5
        middle = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
        side = 1 if (50 - middle[0]) * nx + (50 - middle[1]) * ny > 0 else -1
        dx, dy = side * 3.5 * nx / norm, side * 3.5 * ny / norm
        inner = _shorten((start[0] + dx, start[1] + dy), (end[0] + dx, end[1] + dy), 2, 2)
        lines.append(inner)
    return "".join(f'<path d="M{p[0]:.2f} {p[1]:.2f}L{q[0]:.2f} {q[1]:.2f}" stroke="#000000" '
                   'stroke-width="1.6"/>' for p, q in lines)


def structure(molecule: Molecule) -> str:
    """The molecule's SVG: white page, bonds, then the atom letters."""
    body = ['<rect width="100" height="100" fill="#FFFFFF"/>']
    body += [_bond(molecule, *bond) for bond in molecule.bonds]
    for (x, y), letter in molecule.atoms:
        if letter:
            body.append(GLYPHS[letter].format(x=x, y=y, l=x - 3, r=x + 3, t=y - 4, b=y + 4))
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
            + "".join(body) + "</svg>")
