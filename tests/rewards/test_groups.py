"""A group draws each distinct SVG once and scores a repeat as it scores the original; groups
travel to the workers a few at a time, and a call that dies is scored piece by piece."""

from __future__ import annotations

import numpy as np
import pytest
from cases import PERTURBED, REFERENCE, UNRELATED

from svgeval.render.cairo import RenderSpec, render_svg_uint8
from svgeval.render.isolated import Renderer
from svgeval.render.picture import Picture, RenderFailure
from svgeval.rewards.components import pixel_similarity, sobel_similarity
from svgeval.rewards.groups import (
    BUNDLE_RENDERS,
    GroupJob,
    GroupScoring,
    bundles,
    score_group,
)

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


def job(completions: int, kept: bool = False) -> GroupJob:
    packed = Picture(render_svg_uint8(REFERENCE, SPEC)).packed() if kept else None
    return GroupJob(REFERENCE, (PERTURBED,) * completions, SPEC, ("pixel",), False, packed)


def test_consecutive_groups_share_a_call_up_to_the_render_bound() -> None:
    assert BUNDLE_RENDERS == 18  # two groups of 8 rollouts, each with its reference
    eights = [job(8) for _ in range(5)]
    assert bundles(eights) == [[0, 1], [2, 3], [4]]
    assert bundles([job(16), job(1), job(0), job(16)]) == [[0], [1, 2], [3]]
    # a reference kept from an earlier call is not drawn: it does not count
    assert bundles([job(9, kept=True), job(9, kept=True), job(1)]) == [[0, 1], [2]]
    assert bundles([]) == []


@pytest.mark.e2e
def test_a_call_that_dies_scores_each_of_its_groups_piece_by_piece() -> None:
    """One call holds four groups: a reference with no completion, a group with a completion
    that hangs its worker, a group whose reference crashes it, and a plain group. Each comes
    back as it does when scored on its own in this process, but for the hostile pieces."""
    from support.crashers import segfault_on_marker

    hang = REFERENCE.replace("<rect", "<desc>HANG</desc><rect", 1)
    crash = REFERENCE.replace("<rect", "<!--CRASH--><rect", 1)
    terms = ("pixel", "sobel")
    jobs = [GroupJob(UNRELATED, (), SPEC, terms, False),
            GroupJob(REFERENCE, (PERTURBED, hang, UNRELATED), SPEC, terms, False),
            GroupJob(crash, (PERTURBED,), SPEC, terms, False),
            GroupJob(UNRELATED, (REFERENCE,), SPEC, terms, False)]
    assert bundles(jobs) == [[0, 1, 2, 3]]
    with Renderer(1, 1.0, render_function=segfault_on_marker) as renderer:
        scoring = GroupScoring(renderer)
        try:
            scored = [future.result() for future in scoring.submit_all(jobs)]
        finally:
            scoring.close()
    drawn, alone = scored[0].reference, score_group(jobs[0], render_svg_uint8).reference
    assert isinstance(drawn, Picture) and isinstance(alone, Picture) and drawn.is_packed
    assert np.array_equal(drawn.pixels, alone.pixels) and scored[0].completions == ()
    expected = score_group(GroupJob(REFERENCE, (PERTURBED, UNRELATED), SPEC, terms, False),
                           render_svg_uint8).completions
    assert [c.failure for c in scored[1].completions] == [None, "timeout", None]
    assert [scored[1].completions[0].values, scored[1].completions[2].values] == [
        c.values for c in expected]
    failed = scored[2].reference
    assert isinstance(failed, RenderFailure) and failed.tag == "crash"
    assert scored[2].completions == ()
    assert scored[3].completions == score_group(jobs[3], render_svg_uint8).completions
