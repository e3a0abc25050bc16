"""The built-in sample of the svgeditbench-v2 suite (:mod:`svgeval.builders.svgeditbench_v2.builtin`)."""
