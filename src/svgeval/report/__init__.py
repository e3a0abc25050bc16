"""Reports: the summary table printed at the end of a run."""

from svgeval.report.summary import readings_note, summary_table

__all__ = ["readings_note", "summary_table"]
