"""The vectorgym suite's built-in sample (being written)."""
