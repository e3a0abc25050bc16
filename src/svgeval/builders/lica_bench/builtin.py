"""The lica suite's built-in sample (being written)."""
