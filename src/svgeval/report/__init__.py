"""Reports built from run directories, never by calling a model.

Each piece is imported from its module; this package imports nothing, so the table a run
prints at its end does not load the report builder:

* :func:`~svgeval.report.summary.summary_table`: the table printed at the end of a run.
* :func:`~svgeval.report.run_report.build_report`: ``svgeval report``, a static page per run
  (summary, plots, a gallery of every sample's renders); see ``docs/reports.md``.
* :func:`~svgeval.report.leaderboard.split_boards` and ``leaderboard_text``: ``svgeval
  leaderboard``, comparable runs side by side in the papers' layouts or one column per
  ``results.json`` key.
* :func:`~svgeval.report.compare.compare_runs`: ``svgeval compare``, paired per-sample
  differences of two runs.
* :mod:`svgeval.report.plots` (``distribution_plots``, ``group_plots``): PNG and SVG plots.
"""
