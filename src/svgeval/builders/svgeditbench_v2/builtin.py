"""The svgeditbench-v2 suite's built-in sample (being written)."""
