"""``toy-counter``: a model backend that draws as many circles as the prompt asks for."""

from __future__ import annotations

import re

from svgeval.models.base import Generation, GenerationRequest, Model, ModelError
from svgeval.models.registry import EndpointOptions, model_kind


class Counter(Model):
    """Reads "Draw N circles" in the last message and answers with N circles."""

    spec = "toy-counter"
    answers_are_free = True

    async def generate(self, request: GenerationRequest) -> Generation:
        asked = re.search(r"Draw (\d+) circles", str(request.messages[-1]["content"]))
        if asked is None:
            raise ModelError("the prompt asks for no number of circles")
        circles = "<circle r='1'/>" * int(asked.group(1))
        return Generation(f"<answer><svg>{circles}</svg></answer>")


@model_kind("toy-counter", "draws as many circles as the prompt asks for (the toy suite)")
def _counter(spec: str, argument: str, options: EndpointOptions) -> Model:
    return Counter()
