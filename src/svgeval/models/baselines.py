"""Offline baselines that need no server: ``identity`` and ``oracle``.

``identity`` answers with the sample's input SVG unchanged, wrapped in a fenced ``svg`` block
(the "No Edit" row of SVGEditBench, Table 1); ``oracle`` answers with the sample's reference
response (an upper bound, and a check that the scorers give their best value).
"""

from __future__ import annotations

from svgeval.models.base import Generation, GenerationRequest, Model


class IdentityModel(Model):
    """Returns the input SVG of the prompt unchanged (empty text when there is none)."""

    spec = "identity"
    answers_are_free = True

    def missing_answer(self, input_svg: str | None, reference: str) -> str | None:
        return "no input SVG" if input_svg is None else None

    async def generate(self, request: GenerationRequest) -> Generation:
        if request.input_svg is None:
            return Generation("")
        return Generation(f"```svg\n{request.input_svg}\n```")


class OracleModel(Model):
    """Returns the reference answer of the sample."""

    spec = "oracle"
    answers_are_free = True

    def missing_answer(self, input_svg: str | None, reference: str) -> str | None:
        return None if reference else "no reference answer"

    async def generate(self, request: GenerationRequest) -> Generation:
        return Generation(request.reference or "")
