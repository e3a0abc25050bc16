"""SVGenius (Chen et al., 2025): understanding QA, bug fixing, code optimization, style editing,
text-to-SVG and image-to-SVG.

Importing this package registers the four text-in tasks and style transfer (scored by a judge
model); the data generators are
:func:`build_bugfix_cases`, :func:`build_optimize_cases`, :func:`build_style_edit_cases` and
:func:`svgeval.tasks.svgenius.qa_generation.generate_qa_items` (not imported here: it needs
the model interface). See docs/svgenius.md.
"""

from svgeval.tasks.svgenius.bug_injector import build_bugfix_cases
from svgeval.tasks.svgenius.bugfix import SvgeniusBugFix
from svgeval.tasks.svgenius.img2svg import SvgeniusImg2Svg
from svgeval.tasks.svgenius.optimize import SvgeniusOptimize
from svgeval.tasks.svgenius.optimize_generator import build_optimize_cases
from svgeval.tasks.svgenius.style_edit import SvgeniusStyleEdit
from svgeval.tasks.svgenius.style_edit_generator import build_style_edit_cases
from svgeval.tasks.svgenius.style_transfer import SvgeniusStyleTransfer
from svgeval.tasks.svgenius.text2svg import SvgeniusText2Svg
from svgeval.tasks.svgenius.understanding import SvgeniusUnderstanding

__all__ = [
    "SvgeniusBugFix",
    "SvgeniusImg2Svg",
    "SvgeniusOptimize",
    "SvgeniusStyleEdit",
    "SvgeniusStyleTransfer",
    "SvgeniusText2Svg",
    "SvgeniusUnderstanding",
    "build_bugfix_cases",
    "build_optimize_cases",
    "build_style_edit_cases",
]
