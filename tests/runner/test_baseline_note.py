"""The note before a baseline's run: the samples it has no answer for, noted while the dataset
is hashed (no sample is read again for it), counted over the samples still to ask."""

from __future__ import annotations

from pathlib import Path

from svgeval.cli.execute import baseline_line
from svgeval.models.baselines import IdentityModel, OracleModel
from svgeval.render.isolated import Renderer
from svgeval.runner import RunDir, Runner, RunSettings
from svgeval.tasks.base import CommonOptions, Sample, Task
from svgeval.tasks.outcome import Outcome

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>'


class Counted(Task):
    """Four samples; two have no input SVG and one has no reference answer."""

    name = "baseline-note-check"
    description = "samples with and without an input SVG"

    def load(self) -> list[Sample]:
        return [Sample(id=f"s{i}", group="g", messages=[], target={},
                       input_svg=SVG if i % 2 else None, reference="" if i == 3 else SVG)
                for i in range(4)]

    def score(self, sample: Sample, response: str, renderer: Renderer) -> Outcome:
        return Outcome.of(sample, {"answered": float(bool(response))})


def test_identity_names_the_samples_without_an_input_svg(tmp_path: Path) -> None:
    runner = Runner(Counted(CommonOptions()), IdentityModel(), RunDir(tmp_path), RunSettings())
    resumed = runner.prepare(resume=False)
    assert runner.unanswerable == {"s0": "no input SVG", "s2": "no input SVG"}
    assert baseline_line(runner, resumed) == (
        "note: identity on baseline-note-check: this baseline has no answer for 2 of 4 samples "
        "(no input SVG); they are scored as an empty answer and counted as failed: extract")


def test_the_note_counts_only_the_samples_still_to_ask(tmp_path: Path) -> None:
    runner = Runner(Counted(CommonOptions()), OracleModel(), RunDir(tmp_path), RunSettings())
    resumed = runner.prepare(resume=False)
    line = baseline_line(runner, resumed)
    assert line is not None and "no answer for 1 of 4 samples (no reference answer)" in line
    resumed.units = [unit for unit in resumed.units if unit.sample_id != "s3"]
    assert baseline_line(runner, resumed) is None


def test_with_a_limit_only_the_samples_asked_count(tmp_path: Path) -> None:
    runner = Runner(Counted(CommonOptions()), IdentityModel(), RunDir(tmp_path),
                    RunSettings(limit=1))
    resumed = runner.prepare(resume=False)
    assert baseline_line(runner, resumed) is not None  # s0, the first of the group, has none
    oracle = Runner(Counted(CommonOptions()), OracleModel(), RunDir(tmp_path / "o"),
                    RunSettings(limit=2))
    assert baseline_line(oracle, oracle.prepare(resume=False)) is None  # s3 is not asked
