"""SVGEditBench (Nishina & Matsui, CVPRW 2024): loader, case builder and task."""

from svgeval.tasks.svgeditbench.builder import build_cases, write_release
from svgeval.tasks.svgeditbench.task import SvgEditBench

__all__ = ["SvgEditBench", "build_cases", "write_release"]
