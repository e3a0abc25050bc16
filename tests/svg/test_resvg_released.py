"""Does resvg reproduce the papers' printed numbers? Checked on the released data.

SVGEditBench Table 1 prints MSE to 4 decimals (the No-Edit column, reproduced with CairoSVG by
``tests/tasks/test_svgeditbench.py``). With ``renderer="resvg"`` the same run gives the values in
``RESVG_MATCHES``: True where resvg's number rounds to the printed one. Measured (resvg-py
0.5.0): 0.0703, 0.0288, 0.0, 0.0880, 0.0406, 0.1177 against 0.0702, 0.0286, 0.0, 0.0878,
0.0402, 0.1174: only compression (0 either way) is reproduced; resvg's anti-aliasing differs
from cairo's by a few 1e-4 in MSE. The README quotes this.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from shared_paths import shared_release

from svgeval.models.baselines import IdentityModel
from svgeval.runner import RunDir, Runner, RunSettings
from svgeval.tasks.base import TaskOptions
from svgeval.tasks.svgeditbench import SvgEditBench

pytest.importorskip("resvg_py")

# Table 1 of Nishina & Matsui (CVPRW 2024), "No Edit" column, and whether resvg reproduces it.
NO_EDIT = {
    "change_color/mse": 0.0702,
    "set_contour/mse": 0.0286,
    "compression/mse": 0.0,
    "upside_down/mse": 0.0878,
    "transparency/mse": 0.0402,
    "crop_to_half/mse": 0.1174,
}
RESVG_MATCHES = {
    "change_color/mse": False,
    "set_contour/mse": False,
    "compression/mse": True,
    "upside_down/mse": False,
    "transparency/mse": False,
    "crop_to_half/mse": False,
}


@pytest.mark.shared_data
def test_resvg_against_svgeditbench_table_1(tmp_path: Path) -> None:
    settings = RunSettings(renderer="resvg")
    runner = Runner(SvgEditBench(TaskOptions(data=shared_release("svgeditbench"))),
                    IdentityModel(), RunDir(tmp_path / "run"), settings)
    results = asyncio.run(runner.run(runner.prepare(resume=False)))
    metrics = results.model_dump(mode="json")["metrics"]
    got = {key: round(metrics[key], 4) == value for key, value in NO_EDIT.items()}
    assert got == RESVG_MATCHES
    assert runner.run_dir.read_config().settings.renderer == "resvg"
