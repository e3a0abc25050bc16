"""Offline baselines that need no server: ``identity``, ``oracle``, ``empty`` and ``hostile``.

``identity`` answers with the sample's input SVG unchanged, wrapped in a fenced ``svg`` block
(the "No Edit" row of SVGEditBench, Table 1); ``oracle`` answers with the sample's reference
response (an upper bound, and a check that the scorers give their best value); ``empty`` answers
nothing; ``hostile`` answers an SVG no renderer may draw (an entity bomb, references to a local
file and to the network, a ``<use>`` bomb, a script), one of :data:`HOSTILE_SVGS` per sample:
each must become a recorded failure, never a read file, a connection, a hang or a crash.
"""

from __future__ import annotations

import zlib

from svgeval.models.base import Generation, GenerationRequest, Model

_SVG = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
_LAUGHS = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10))
HOSTILE_SVGS: tuple[str, ...] = (
    # billion laughs: nine levels of ten, 10^9 copies of "lol" once expanded
    (f'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY l0 "lol">{_LAUGHS}]>'
     f'<svg {_SVG} viewBox="0 0 10 10"><text>&l9;</text></svg>'),
    # a local file and a server, as a picture, a stylesheet and a <use>
    (f'<svg {_SVG} viewBox="0 0 10 10"><image href="file:///etc/passwd" width="10" height="10"/>'
     '<style>@import url("http://127.0.0.1:9/x.css");</style>'
     '<use xlink:href="http://127.0.0.1:9/remote.svg#shape"/></svg>'),
    # a <use> bomb: each level draws the one before ten times, 10^9 shapes at the top
    (f'<svg {_SVG} viewBox="0 0 10 10"><defs><rect id="u0" width="1" height="1"/>'
     + "".join(f'<g id="u{i}">' + f'<use href="#u{i - 1}"/>' * 10 + "</g>" for i in range(1, 10))
     + '</defs><use href="#u9"/></svg>'),
    # a script and an event handler
    (f'<svg {_SVG} viewBox="0 0 10 10" onload="fetch(\'http://127.0.0.1:9/\')">'
     '<script>while (true) {}</script><rect width="10" height="10"/></svg>'),
)
"""The answers of the ``hostile`` baseline."""


class IdentityModel(Model):
    """Returns the input SVG of the prompt unchanged (empty text when there is none)."""

    spec = "identity"
    answers_are_free = True
    answers_from = "input_svg"

    async def generate(self, request: GenerationRequest) -> Generation:
        if request.input_svg is None:
            return Generation("")
        return Generation(f"```svg\n{request.input_svg}\n```")


class OracleModel(Model):
    """Returns the reference answer of the sample."""

    spec = "oracle"
    answers_are_free = True
    answers_from = "reference"

    async def generate(self, request: GenerationRequest) -> Generation:
        return Generation(request.reference or "")


class EmptyModel(Model):
    """Answers nothing: an empty reply, which every task records as a failure to extract."""

    spec = "empty"
    answers_are_free = True

    async def generate(self, request: GenerationRequest) -> Generation:
        return Generation("")


class HostileModel(Model):
    """Answers one of :data:`HOSTILE_SVGS`, chosen by the sample's id (the same on every run)."""

    spec = "hostile"
    answers_are_free = True

    async def generate(self, request: GenerationRequest) -> Generation:
        svg = HOSTILE_SVGS[zlib.crc32(request.sample_id.encode("utf-8")) % len(HOSTILE_SVGS)]
        return Generation(f"```svg\n{svg}\n```")
