"""Re-asking the model while its reply is not in the task's format (runner/reask.py)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

from svgeval.models.base import Generation, GenerationRequest, Model, ModelError
from svgeval.render.isolated import Renderer
from svgeval.runner.reask import ask_until_complete
from svgeval.tasks.base import CommonOptions, Sample, Task
from svgeval.tasks.outcome import Outcome


class Scripted(Model):
    """Replies from a list, one per request; an Exception in the list is raised."""

    spec = "scripted"

    def __init__(self, replies: list[str | Exception]) -> None:
        self.replies = replies
        self.asked = 0

    async def generate(self, request: GenerationRequest) -> Generation:
        reply = self.replies[self.asked]
        self.asked += 1
        if isinstance(reply, Exception):
            raise reply
        return Generation(reply, usage={"prompt_tokens": 10, "completion_tokens": 2},
                          attempts=2 if reply == "retried" else 1)


@dataclass(frozen=True)
class Options:
    reask: int = field(default=3)


class Formatted(Task):
    name = "formatted-check"
    description = "complete when the reply says done"
    Options = Options

    def load(self) -> list[Sample]:
        return []

    def answer_complete(self, response: str) -> bool:
        return response == "done"

    def score(self, sample: Sample, response: str, renderer: Renderer) -> Outcome:
        return Outcome.of(sample)


def ask(replies: list[str | Exception], reask: str = "3") -> tuple[Generation, Scripted]:
    model = Scripted(replies)
    task = Formatted(CommonOptions(extra={"reask": reask}))
    return asyncio.run(ask_until_complete(model, GenerationRequest("s", []), task)), model


def test_asks_until_the_reply_is_complete_and_counts_every_ask() -> None:
    answer, model = ask(["no", "retried", "done", "never asked"])
    assert (answer.text, model.asked) == ("done", 3)
    assert answer.attempts == 4  # 1 + 2 HTTP attempts + 1
    assert answer.usage == {"prompt_tokens": 30, "completion_tokens": 6}


def test_stops_at_the_limit_with_the_last_reply() -> None:
    answer, model = ask(["no", "still no", "nope", "done"])
    assert (answer.text, model.asked) == ("nope", 3)
    answer, model = ask(["no", "done"], reask="1")
    assert (answer.text, model.asked, answer.attempts) == ("no", 1, 1)


def test_a_failed_ask_is_a_model_error_with_every_attempt_counted() -> None:
    with pytest.raises(ModelError) as raised:
        ask(["no", ModelError("HTTP 500", attempts=4)])
    assert raised.value.attempts == 5
