"""The starvector suite's built-in sample (being written)."""
