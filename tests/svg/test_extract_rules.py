"""Each extraction rule on hand-written responses, and the released ground truths round-trip.

Expected values follow the rules as documented in ``docs/extraction.md``: ``svgenius`` is the
released ``extract_svg_from_response`` (last match, ``Answer:`` first, literal ``</svg>``,
case-sensitive), ``svgeditbench`` the paper's single ```` ```svg ```` block, ``auto`` ours.
"""

from __future__ import annotations

import pytest
from released import SVGENIUS_ANSWERS, svgenius_task_svgs
from support.shared_paths import shared_release

from svgeval.svg.extract import extract_svg
from svgeval.tasks.svgeditbench.data import load_release

A = '<svg viewBox="0 0 1 1"><rect width="1" height="1"/></svg>'
B = '<svg viewBox="0 0 2 2"><circle r="1"/></svg>'


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (f"Answer: {A}", A),
        (f"Answer:{A}\n\nAnswer:\n{B}", B),  # the last Answer: wins
        (f"Answer: {A} and a variant {B}", A),  # an Answer: match beats a later bare element
        (f"answer: {A} {B}", B),  # lowercase answer: is no Answer:, so the last element
        (f"Answer： {A} {B}", B),  # nor is a full-width colon
        (f"Answer: here it is {A} or {B}", B),  # <svg must follow Answer: and blanks only
        (f"```svg\n{A}\n```\nor else {B}", B),  # fences mean nothing, the last element counts
        (f"Draft {A}, final {B}", B),
        ("<svg><svg></svg></svg>", "<svg><svg></svg>"),  # up to the first </svg>
        (f"Answer: <svg broken> draft Answer: {B}", f"<svg broken> draft Answer: {B}"),
        ('<svg width="1" <rect/></svg>', '<svg width="1" <rect/></svg>'),  # start tag lost >
        (f"Answer: {A}  \n", A),  # nothing around the element is kept
    ],
)
def test_svgenius_rule(response: str, expected: str) -> None:
    assert extract_svg(response, rule="svgenius").svg == expected


@pytest.mark.parametrize(
    "response",
    [
        "no code at all",
        'Answer: <svg viewBox="0 0 1 1"><rect/>',  # no closing tag
        'Answer: <svg width="3"/>',  # self-closing is never an answer
        "<SVG><rect/></SVG>",  # case-sensitive
        "<svg><rect/></SVG>",
        "<svg><rect/></svg >",  # the closing tag is the literal </svg>
    ],
)
def test_svgenius_rule_finds_nothing(response: str) -> None:
    result = extract_svg(response, rule="svgenius")
    assert (result.svg, result.rule) == (None, "svgenius")
    assert result.error == "no <svg ...>...</svg> in the response"


def test_svgenius_rule_names_the_pattern_that_matched() -> None:
    assert extract_svg(f"Answer: {A}", rule="svgenius").rule == "svgenius:answer"
    assert extract_svg(f"Sure: {A}", rule="svgenius").rule == "svgenius:last"


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (f"Draft {A}, final {B}", A),  # the first element
        (f"```svg\n{A}\n```\nor else {B}", A),  # a fenced block first
        (f"Answer: here it is {A} or {B}", A),  # the first element after Answer:
        (f"answer： {A}", A),  # any case, full-width colon
        ("<SVG><rect/></SVG>", "<SVG><rect/></SVG>"),  # any case
        ("<svg><rect/></svg >", "<svg><rect/></svg >"),
        ('x <svg width="3"/> y', '<svg width="3"/>'),
        # a start tag that lost its > is not a self-closing <svg .../>: it runs to </svg>
        ('<svg width="1" <rect width="1"/></svg>', '<svg width="1" <rect width="1"/></svg>'),
    ],
)
def test_auto_rule(response: str, expected: str) -> None:
    assert extract_svg(response).svg == expected


def test_auto_self_closing_stops_at_a_tag() -> None:
    result = extract_svg('Answer: <svg width="1" <rect width="1"/> and no more')
    assert result.svg is None and result.error == "an <svg> start tag with no closing </svg>"


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (f"Here:\n```svg\n{A}\n```\nDone.", A),
        (f"```svg\n{A}\n```\nAnswer: {B}", A),  # Answer: means nothing here
        (f"```svg  \n  {A}  \n```", A),
    ],
)
def test_svgeditbench_rule(response: str, expected: str) -> None:
    assert extract_svg(response, rule="svgeditbench").svg == expected


@pytest.mark.parametrize("response", [A, f"```xml\n{A}\n```", f"```SVG\n{A}\n```", f"```svg\n{A}"])
def test_svgeditbench_rule_needs_one_svg_block(response: str) -> None:
    assert extract_svg(response, rule="svgeditbench").svg is None


@pytest.mark.shared_data
def test_svgenius_rule_returns_released_ground_truths_unchanged() -> None:
    truths = list(svgenius_task_svgs(shared_release("svgenius"), SVGENIUS_ANSWERS))
    assert len(truths) == 1513
    for truth in truths:
        assert truth.startswith("<svg") and truth.endswith("</svg>")
        assert extract_svg(f"Answer:{truth}", rule="svgenius").svg == truth
        assert extract_svg(f"Answer: {truth}\nDone.", rule="svgenius").svg == truth


@pytest.mark.shared_data
def test_svgeditbench_rule_returns_released_answers_unchanged() -> None:
    samples = load_release(shared_release("svgeditbench"))
    assert len(samples) == 600
    for sample in samples:
        answer = sample.target.answer_svg
        assert extract_svg(f"```svg\n{answer}\n```", rule="svgeditbench").svg == answer
