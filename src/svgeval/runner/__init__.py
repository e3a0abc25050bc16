"""Runner: executes a task with a model into a resumable run directory."""

from svgeval.runner.identity import RunConflict
from svgeval.runner.other_run import load_samples
from svgeval.runner.records import Results, SampleRecord
from svgeval.runner.run_config import RunConfig, RunSettings
from svgeval.runner.run_dir import CorruptRecord, RunDir
from svgeval.runner.runner import Runner

__all__ = [
    "CorruptRecord",
    "Results",
    "RunConfig",
    "RunConflict",
    "RunDir",
    "RunSettings",
    "Runner",
    "SampleRecord",
    "load_samples",
]
