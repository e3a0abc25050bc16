"""The vgbench suite's built-in sample (being written)."""
