"""Dataset builders: new benchmark cases from any collection of SVGs, one package per suite.

A layer above :mod:`svgeval.models` and :mod:`svgeval.runner` and below the command line: a
builder may ask a model (SVGenius QA generation) and a suite's command-line tools may read run
directories (VectorGym's overall score), while no task imports a builder, so a run never loads
them. Each suite's package holds its builders and its ``svgeval <suite> ...`` commands
(``cli.py``, found through the ``svgeval.commands`` entry points). Shared here:
:mod:`~svgeval.builders.skips` (what a builder left out and why) and
:mod:`~svgeval.builders.render_checks` (does a generated case change the picture), and
:class:`BuildInputError`.
"""

from __future__ import annotations

from svgeval.errors import UserError


class BuildInputError(UserError, ValueError):
    """What a builder's command was given cannot build cases: a folder without usable SVGs, a
    run of another task, a choice none of the allowed ones. A ValueError as well, the error
    these raised before, which callers and tests catch."""
