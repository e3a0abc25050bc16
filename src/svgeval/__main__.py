"""``python -m svgeval``: the ``svgeval`` command."""

from svgeval.launch import main

if __name__ == "__main__":
    main()
