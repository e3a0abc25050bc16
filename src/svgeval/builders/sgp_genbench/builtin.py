"""The sgp-genbench suite's built-in sample (being written)."""
