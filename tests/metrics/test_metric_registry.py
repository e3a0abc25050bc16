"""The registry is complete without optional packages, and presets resolve."""

from __future__ import annotations

import subprocess
import sys

import pytest

from svgeval.metrics import METRICS, PRESETS, get_preset

EXPECTED = {"pss", "mse", "ssim", "iou", "clip_score", "rclip", "dino", "lpips", "aesthetic", "fid", "clip_fid",
            "hps", "rouge_l", "bge_m3", "sbert", "levenshtein"}


def test_every_metric_is_registered_with_known_presets() -> None:
    assert EXPECTED <= set(METRICS.all())
    for info in METRICS.all().values():
        assert info.presets, info.name
        assert info.value_range and info.source
        for name in info.presets:
            if name != "svgeditbench":  # mse's preset belongs to the editing layer
                assert get_preset(name).name == name


def test_unknown_preset_lists_the_known_ones() -> None:
    with pytest.raises(KeyError, match="svgenius"):
        get_preset("nope")
    assert set(PRESETS) == {"svgenius", "starvector", "vectorgym", "svgauge", "svgeditbench-v2"}


def test_importing_metrics_loads_no_heavy_package() -> None:
    code = ("import sys, svgeval.metrics; "
            "print(any(m in sys.modules for m in ('torch', 'transformers', 'sentence_transformers')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
