"""The mmsvgbench suite's built-in sample (being written)."""
