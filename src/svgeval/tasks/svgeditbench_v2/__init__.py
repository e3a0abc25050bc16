"""SVGEditBench V2 (mti-lab): instruction edits of emoji SVGs, scored as the released pipeline."""

from svgeval.tasks.svgeditbench_v2.task import SvgEditBenchV2

__all__ = ["SvgEditBenchV2"]
