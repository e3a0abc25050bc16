"""Reports built from run directories, never by calling a model.

* :func:`summary_table`: the table printed at the end of a run.
* :func:`build_report`: ``svgeval report``, a static page per run (summary, plots, a gallery of
  every sample's renders); see ``docs/reports.md``.
* :func:`split_boards` and :func:`leaderboard_text`: ``svgeval leaderboard``, comparable runs side
  by side in the papers' layouts or one column per ``results.json`` key.
* :func:`compare_runs`: ``svgeval compare``, paired per-sample differences of two runs.
* :func:`distribution_plots` and :func:`group_plots`: PNG and SVG plots.
"""

from svgeval.report.compare import Comparison, compare_runs
from svgeval.report.leaderboard import Board, leaderboard_text, split_boards
from svgeval.report.plots import distribution_plots, group_plots
from svgeval.report.run_report import ReportBuild, build_report
from svgeval.report.runs import LoadedRun, ReportError, load_run
from svgeval.report.sources import SampleSources, load_sources
from svgeval.report.summary import readings_note, summary_table

__all__ = [
    "Board",
    "Comparison",
    "LoadedRun",
    "ReportBuild",
    "ReportError",
    "SampleSources",
    "build_report",
    "compare_runs",
    "distribution_plots",
    "group_plots",
    "leaderboard_text",
    "load_run",
    "load_sources",
    "readings_note",
    "split_boards",
    "summary_table",
]
