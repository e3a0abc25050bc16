"""Runner: executes a task with a model into a resumable run directory."""

from svgeval.runner.run_dir import RunDir
from svgeval.runner.runner import RunConflict, Runner, RunSettings, RunSummary

__all__ = ["RunConflict", "RunDir", "RunSettings", "RunSummary", "Runner"]
