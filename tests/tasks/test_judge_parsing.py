"""Reading a judge's verdict: the integer or letter after the last ``[RESULT]``, nothing else."""

from __future__ import annotations

import pytest

from svgeval.tasks.judge import parse_result_choice, parse_result_score


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ("Feedback: the shapes are kept. [RESULT] 4", 4.0),
        ("Feedback: fine\n[RESULT] 5", 5.0),
        ("Feedback: fine [RESULT]: 3", 3.0),
        ("Feedback: fine **[RESULT]** 2", 2.0),
        ("Feedback: fine [RESULT] (1)", 1.0),
        ("Feedback: fine [RESULT] 4/5", 4.0),
        ("Feedback: fine [RESULT] 3.", 3.0),
        ("Feedback: fine [RESULT] 4</s>", 4.0),
        ("Feedback: fine [result] 4", 4.0),
        ("Feedback: fine [RESULT] 2\n\nThe colours are harmonious.", 2.0),
        # the format line echoed before the real verdict: the last marker counts
        ("Format: [RESULT] (an integer number between 1 and 5)\nFeedback: ok [RESULT] 3", 3.0),
    ],
)
def test_the_integer_after_the_last_result_marker(reply: str, score: float) -> None:
    assert parse_result_score(reply) == score


@pytest.mark.parametrize(
    "reply",
    [
        "Feedback: 3 of the 4 circles are kept; I would give it 4 out of 5.",  # no marker
        "Score: 4",
        "Feedback: fine [RESULT] 4.5",
        "Feedback: fine [RESULT] 6",
        "Feedback: fine [RESULT] 0",
        "Feedback: fine [RESULT] -1",
        "Feedback: fine [RESULT] 45",
        "Feedback: fine [RESULT] four",
        "Feedback: fine [RESULT]",
        "Feedback: 5 stars [RESULT] see above",
        "Feedback: fine [RESULT] 4 [RESULT] none",  # the last marker has no integer
        "",
    ],
)
def test_no_verdict_is_none_never_a_stray_number(reply: str) -> None:
    assert parse_result_score(reply) is None


def test_the_range_is_the_callers() -> None:
    assert parse_result_score("[RESULT] 0", low=0, high=10) == 0.0
    assert parse_result_score("[RESULT] 10", low=0, high=10) == 10.0


@pytest.mark.parametrize(
    ("reply", "choice"),
    [
        ("Feedback: A keeps more. [RESULT] A", "A"),
        ("Feedback: B is cleaner.\n[RESULT] B", "B"),
        ("Feedback: ok [RESULT]: Response B", "B"),
        ("Feedback: ok **[RESULT]** (A)", "A"),
        ("Feedback: ok [RESULT] b.", "B"),
        ("Format: [RESULT] (A or B)\nFeedback: ok [RESULT] A", "A"),
    ],
)
def test_the_letter_after_the_last_result_marker(reply: str, choice: str) -> None:
    assert parse_result_choice(reply) == choice


@pytest.mark.parametrize(
    "reply",
    [
        "Feedback: A is better.",
        "Feedback: ok [RESULT] Both",
        "Feedback: ok [RESULT] C",
        "Feedback: ok [RESULT] tie",
        "Feedback: ok [RESULT]",
    ],
)
def test_no_choice_is_none(reply: str) -> None:
    assert parse_result_choice(reply) is None
