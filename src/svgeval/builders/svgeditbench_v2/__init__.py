"""SVGEditBench V2's built-in sample: triplet folders of edits of svgeval's demo icons
(:mod:`~svgeval.builders.svgeditbench_v2.builtin`)."""
