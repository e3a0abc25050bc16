"""The registry is complete without optional packages, and presets resolve."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import svgeval.metrics
from svgeval.metrics.presets import PRESETS, get_preset
from svgeval.metrics.registry import METRIC_MODULES, METRICS

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
    assert set(PRESETS) == {"svgenius", "starvector", "vectorgym", "unisvg", "svgauge",
                            "svgeditbench-v2", "internsvg"}


def test_importing_every_metric_loads_no_heavy_package() -> None:
    code = ("import sys; from svgeval.metrics.registry import METRICS; METRICS.all(); "
            "print(any(m in sys.modules for m in ('torch', 'transformers', 'sentence_transformers')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_registry_lists_every_module_that_describes_a_metric() -> None:
    package = Path(svgeval.metrics.__file__).parent
    describing = {f"svgeval.metrics.{path.stem}" for path in package.glob("*.py")
                  if "describe_metric(" in path.read_text() and path.stem != "registry"}
    assert set(METRIC_MODULES) == describing
