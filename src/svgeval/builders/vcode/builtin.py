"""The vcode suite's built-in sample (being written)."""
