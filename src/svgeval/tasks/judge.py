"""What a task asks of a judge model, and how the judge's verdicts are read.

Tasks stay pure: :meth:`~svgeval.tasks.base.Task.score` never calls a model. A task whose metric
needs a judge asks, on its :class:`~svgeval.tasks.outcome.Outcome`
(:meth:`~svgeval.tasks.outcome.Outcome.ask_judge`), one :class:`JudgeRequest` per question to
the judge; the runner asks the judge (``--judge``), caches the reply in the run
directory and stores ``parse(reply)`` under ``metric`` (see :mod:`svgeval.runner.judging`).

Several requests may name the same metric (a pairwise comparison asked in both orders): the
sample's value is then the mean of their scores, and None when any of them has no score.

The verdict parsers read the format of the Prometheus judge prompts that SVGenius uses
(appendix E.3, "Feedback: ... [RESULT] 4"): the answer is what follows the *last* ``[RESULT]``
marker, and nothing else in the reply is ever read as the score. A reply without a verdict of
the expected shape parses to None, which the runner records as a judge failure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from svgeval.messages import Message

RESULT_MARKER = re.compile(r"\[\s*RESULT\s*\]", re.IGNORECASE)
"""The marker that precedes the verdict."""

_LEAD = r"[\s*_:：=]*[(\[]?\s*"
"""What may come between the marker and the verdict: spaces, markdown emphasis, a colon, a
bracket (no minus sign: ``-1`` is not read as 1)."""
_INTEGER = re.compile(_LEAD + r"(\d+)(?:\s*/\s*\d+)?\s*[)\]]?(?![\d.,]\d|\d)")
_CHOICE = re.compile(_LEAD + r"(?:response\s+)?([A-Za-z])(?![A-Za-z0-9])", re.IGNORECASE)


@dataclass(frozen=True)
class JudgeRequest:
    """One question to the judge about one sample.

    ``metric`` is the per-sample metric key the parsed score is stored under; ``messages`` are
    the chat messages the judge sees (images as data-URL parts); ``parse`` turns the judge's
    reply into the score, or None when the reply holds none (a judge failure, counted, never a
    guess); ``temperature`` is sent with the request (None sends none); ``response_format``, if
    given, asks for a structured reply.
    """

    metric: str
    messages: list[Message]
    parse: Callable[[str], float | None]
    temperature: float | None = 0.0
    response_format: Mapping[str, Any] | None = None
    """A structured-output request sent with the question (the OpenAI ``response_format``
    object: ``{"type": "json_schema", "json_schema": {"name": ..., "schema": {...}}}``); None
    asks for free text. The parser still checks the reply: a server may ignore the request."""
    then: Callable[[str], JudgeRequest] | None = None
    """A follow-up question built from this one's reply (VCode's MM-Vet: a model answers the
    question, a grader scores the answer): the verdict is the follow-up's, and ``parse`` only
    fills the cached record's ``score``. Each request is cached under its own key."""


def _verdict(reply: str) -> str | None:
    """The text after the last ``[RESULT]`` marker (``</s>`` removed), or None without one."""
    markers = list(RESULT_MARKER.finditer(reply))
    if not markers:
        return None
    return reply[markers[-1].end() :].replace("</s>", "")


def parse_result_score(reply: str, low: int = 1, high: int = 5) -> float | None:
    """The integer right after the last ``[RESULT]``, if it lies in [low, high]; else None.

    Accepted: ``[RESULT] 4``, ``[RESULT]: 4``, ``**[RESULT]** 4``, ``[RESULT] (4)``,
    ``[RESULT] 4/5``, followed by anything. Refused: no marker, ``[RESULT] 4.5``, ``[RESULT]
    four``, a number outside the range, and a number anywhere else in the reply.
    """
    verdict = _verdict(reply)
    if verdict is None:
        return None
    found = _INTEGER.match(verdict)
    if found is None:
        return None
    value = int(found.group(1))
    return float(value) if low <= value <= high else None


def parse_result_choice(reply: str, choices: Sequence[str] = ("A", "B")) -> str | None:
    """The option letter right after the last ``[RESULT]`` (``[RESULT] B``, ``[RESULT]:
    Response A``), upper-cased, if it is one of ``choices``; else None."""
    verdict = _verdict(reply)
    if verdict is None:
        return None
    found = _CHOICE.match(verdict)
    if found is None:
        return None
    letter = found.group(1).upper()
    return letter if letter in choices else None
