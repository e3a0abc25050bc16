"""Reports: the summary table printed at the end of a run."""

from svgeval.report.summary import summary_table

__all__ = ["summary_table"]
