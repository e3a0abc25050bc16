"""The released StarVector/VectorGym repair chain: as given, repaired, or the placeholder; run in
the render isolation, never reading a file."""

from __future__ import annotations

import pytest

from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.repair import repair, repair_chain

SVG = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36">'
       '<circle fill="#FFCC4D" cx="18" cy="18" r="17"/><path d="M2 2 L30 30" stroke="#000"/></svg>')


@pytest.mark.parametrize(("answer", "status"), [
    (SVG, "as_given"),
    (SVG.replace("/>", ">", 1), "repaired"),  # an element left open
    (SVG[: SVG.rfind("<path")], "repaired"),  # truncated after a complete tag
    (SVG[: SVG.rfind("<path") + 18], "repaired"),  # cut inside a start tag
    (SVG.replace('fill="#FFCC4D"', 'fill="&accent;"'), "repaired"),  # an undefined entity
    ("I'm sorry, I cannot draw that.", "placeholder"),
    ("", "placeholder"),
    ("   \n", "placeholder"),
])
def test_each_step_of_the_chain(answer: str, status: str) -> None:
    repaired = repair_chain(answer)
    assert repaired.status == status
    assert (repaired.svg is None) == (status == "placeholder")
    if status == "as_given":
        assert repaired.svg == answer


def test_a_repaired_answer_draws_what_the_answer_meant(renderer: Renderer) -> None:
    spec = RenderSpec.square(64)
    whole = renderer.render(SVG, spec).floats
    repaired = repair(SVG.replace("/>", ">", 1), "rule", renderer)
    assert repaired.rule == "rule+repaired" and repaired.svg is not None
    drawn = renderer.render(repaired.svg, spec).floats
    assert abs(drawn - whole).mean() < 1e-3
    given = repair(SVG, "rule", renderer)
    assert given.rule == "rule" and given.svg == SVG
    failed = repair("no svg", "rule", renderer)
    assert failed.svg is None and failed.error is not None and "repair chain" in failed.error


def test_hostile_answers_read_no_file_and_end_as_placeholders(renderer: Renderer) -> None:
    external = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
                '><image xlink:href="file:///etc/hostname" width="9" height="9"/><rect')
    outcome = repair(external, "rule", renderer)  # CairoSVG would embed the fetched image
    assert outcome.svg is None or "<image" not in outcome.svg
    bomb = ('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa">'
            + "".join(f'<!ENTITY {c} "&{p};&{p};&{p};&{p};&{p};&{p};&{p};&{p};&{p};&{p};">'
                      for p, c in zip("abcdefgh", "bcdefghi"))
            + ']><svg xmlns="http://www.w3.org/2000/svg"><text>&i;</text><rect')
    bombed = repair(bomb, "rule", renderer)
    assert bombed.svg is None or len(bombed.svg) < 10_000_000


def test_a_path_cairosvg_reads_forever_ends_as_the_placeholder_at_once() -> None:
    repaired = repair_chain(SVG.replace('d="M2 2 L30 30"', 'd="M2 2 L30 30z X5 5"'))
    assert repaired.status == "placeholder"
    assert repaired.error == "the repair failed: EndlessPathData"


def test_dpi_sizes_absolute_units(renderer: Renderer) -> None:
    """A canvas 72pt wide without a viewBox is 96 px at 96 dpi, 128 px at 128 dpi; a 36-unit
    square in it, drawn on a 96 px output, covers 36 px, then 36 x 96 / 128 = 27 px."""
    pt = ('<svg xmlns="http://www.w3.org/2000/svg" width="72pt" height="72pt">'
          '<rect width="36" height="36" fill="#000"/></svg>')
    for dpi, side in ((96, 36), (128, 27)):
        image = renderer.render(pt, RenderSpec.square(96, dpi=dpi)).floats
        assert int((image[..., 0] < 0.5).sum(axis=1).max()) == side
