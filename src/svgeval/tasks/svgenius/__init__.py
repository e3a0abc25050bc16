"""SVGenius (Chen et al., 2025): understanding QA, bug fixing, code optimization, style editing,
text-to-SVG and image-to-SVG.

Importing this package registers the four text-in tasks, the two generation tasks and style
transfer (scored by a judge model). The data generators live in :mod:`svgeval.builders.svgenius`
(a run never imports them). See docs/suites/svgenius.md.
"""

from svgeval.tasks.svgenius.bugfix import SvgeniusBugFix
from svgeval.tasks.svgenius.img2svg import SvgeniusImg2Svg
from svgeval.tasks.svgenius.optimize import SvgeniusOptimize
from svgeval.tasks.svgenius.style_edit import SvgeniusStyleEdit
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
]
