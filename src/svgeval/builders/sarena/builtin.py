"""The sarena suite's built-in sample (being written)."""
