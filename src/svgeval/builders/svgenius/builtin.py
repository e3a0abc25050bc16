"""The svgenius suite's built-in sample (being written)."""
