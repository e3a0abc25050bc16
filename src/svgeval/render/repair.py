"""The repair chain of the StarVector and VectorGym released pipelines.

Both released evaluations score what comes out of one chain, not the model's text as such
(star-vector ``starvector/validation/svg_validator_base.py:380-407`` with ``data/util.py:88-117``;
VectorGym ``vectorgym/validators/openrouter.py:338-373`` with ``utils/svg.py:130-175``):

1. the text as given, when svgpathtools' ``svgstr2paths`` reads it;
2. else ``clean_svg``: BeautifulSoup's ``'xml'`` parser and ``prettify()``, then CairoSVG's
   ``svg2svg``, less the lines starting ``<?xml``; the cleaned SVG when ``svgstr2paths`` reads it;
3. else the empty placeholder (a white canvas).

:func:`repair_chain` is that chain. It runs untrusted text through BeautifulSoup, CairoSVG and
svgpathtools, so call it only through :meth:`svgeval.render.isolated.Renderer.call` (time and memory
limits, a crash loses one worker): :func:`repair` does. CairoSVG reads no file and no URL here
(external references are refused), where the released code would fetch them, and a path CairoSVG
would read forever is its error at once (:func:`~svgeval.render.cairo.guard_endless_paths`), where
the released code would hang: either way the placeholder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from svgeval.render.cairo import guard_endless_paths
from svgeval.render.isolated import Renderer
from svgeval.render.picture import RenderFailure
from svgeval.svg.extract import Extraction

RepairStatus = Literal["as_given", "repaired", "placeholder"]


@dataclass(frozen=True)
class Repaired:
    """What the chain gives: the SVG to score (None: the placeholder) and which step gave it."""

    svg: str | None
    status: RepairStatus
    error: str | None = None


def _refuse(url: str, resource_type: str) -> bytes:
    raise ValueError(f"refused to fetch {url[:80]!r}")


def reads_as_paths(svg: str) -> bool:
    """True when svgpathtools' ``svgstr2paths`` reads ``svg`` (the released validity check)."""
    from svgpathtools import svgstr2paths

    try:
        svgstr2paths(svg)
    except Exception:  # noqa: BLE001 - the released check: any error means invalid
        return False
    return True


def clean_svg(text: str) -> str:
    """The released ``clean_svg``: BeautifulSoup ``'xml'`` + ``prettify()``, CairoSVG
    ``svg2svg``, the ``<?xml`` lines dropped. Raises what CairoSVG raises."""
    from bs4 import BeautifulSoup
    from cairosvg.surface import SVGSurface

    guard_endless_paths()
    pretty = BeautifulSoup(text, "xml").prettify()
    # cairosvg.svg2svg, with a fetcher that refuses every URL
    converted: bytes = SVGSurface.convert(bytestring=pretty.encode("utf-8"), url_fetcher=_refuse)
    cleaned = converted.decode()
    return "\n".join(line for line in cleaned.split("\n")
                     if not line.strip().startswith("<?xml"))


def repair_chain(text: str) -> Repaired:
    """The released chain on ``text`` (see the module docstring); run it isolated."""
    if not text.strip():
        return Repaired(None, "placeholder", "an empty answer")
    if reads_as_paths(text):
        return Repaired(text, "as_given")
    try:
        cleaned = clean_svg(text)
    except Exception as error:  # noqa: BLE001 - the released chain falls back on any error
        return Repaired(None, "placeholder", f"the repair failed: {type(error).__name__}")
    if reads_as_paths(cleaned):
        return Repaired(cleaned, "repaired")
    return Repaired(None, "placeholder", "svgpathtools cannot read the repaired SVG")


def repair(text: str, rule: str, renderer: Renderer) -> Extraction:
    """``text`` through :func:`repair_chain` in ``renderer``'s isolation, as an extraction:
    ``rule`` when the text is used as given, ``<rule>+repaired`` when the chain repaired it, and
    a failed extraction (scored as the placeholder) when nothing readable came out of it or the
    chain ran out of time or memory."""
    repaired = renderer.call(repair_chain, text)
    if isinstance(repaired, RenderFailure):
        return Extraction(None, rule, f"the repair chain failed: {repaired.message}")
    if repaired.svg is None:
        return Extraction(None, rule, f"no SVG after the released repair chain ({repaired.error})")
    return Extraction(repaired.svg, rule if repaired.status == "as_given" else f"{rule}+repaired")
