"""The ``svgeval sarena`` commands (SArena has no case builder)."""
