"""The sgp-bench suite's built-in sample (being written)."""
