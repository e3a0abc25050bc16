"""A group draws each distinct SVG once and scores a repeat as it scores the original."""

from __future__ import annotations

import numpy as np
from cases import PERTURBED, REFERENCE, UNRELATED

from svgeval.rewards.components import pixel_similarity, sobel_similarity
from svgeval.rewards.groups import GroupJob, score_group
from svgeval.svg.render import RenderSpec, render_svg_uint8

SPEC = RenderSpec.square(64)
BLANK = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"/>'


def test_repeated_completions_are_drawn_once_and_scored_alike() -> None:
    drawn: list[str] = []

    def counting(svg: str | bytes, spec: RenderSpec) -> np.ndarray:
        drawn.append(svg if isinstance(svg, str) else svg.decode())
        return render_svg_uint8(svg, spec)

    completions = (PERTURBED, REFERENCE, UNRELATED, PERTURBED, BLANK, REFERENCE, BLANK)
    scores = score_group(GroupJob(REFERENCE, completions, SPEC, ("pixel", "sobel"), True),
                         counting)

    assert sorted(drawn) == sorted([REFERENCE, PERTURBED, UNRELATED, BLANK])
    reference = render_svg_uint8(REFERENCE, SPEC)
    for svg, compared in zip(completions, scores.completions):
        if svg == BLANK:
            assert (compared.failure, compared.values) == ("blank", {})
            continue
        image = render_svg_uint8(svg, SPEC)  # drawn again here: the expectation
        assert compared.failure is None
        assert compared.values == {"pixel": pixel_similarity(image, reference),
                                   "sobel": sobel_similarity(image, reference)}
        assert compared.pixels is not None and np.array_equal(compared.pixels, image)
    assert scores.completions[1].values == {"pixel": 1.0, "sobel": 1.0}
    assert scores.completions[2].values["pixel"] < scores.completions[0].values["pixel"] < 1.0
