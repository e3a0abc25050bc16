"""The unisvg suite's built-in sample (being written)."""
