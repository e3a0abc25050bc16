"""SVG layer: extract SVG code from model responses, check it, and render it safely."""

from svgeval.svg.extract import Extraction, extract_svg
from svgeval.svg.render import RenderFailure, RenderSpec, render_svg
from svgeval.svg.sanitize import SvgRejected, check_svg

__all__ = [
    "Extraction",
    "RenderFailure",
    "RenderSpec",
    "SvgRejected",
    "check_svg",
    "extract_svg",
    "render_svg",
]
