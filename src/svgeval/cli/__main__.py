"""``python -m svgeval.cli``: the ``svgeval`` command."""

from svgeval.cli.main import main

if __name__ == "__main__":
    main()
