"""SVGEditBench cases from any folder of SVGs with the paper's rules
(:mod:`~svgeval.builders.svgeditbench.builder`; ``svgeval svgeditbench build``)."""
