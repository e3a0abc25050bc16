"""The svgbench suite's built-in sample (being written)."""
