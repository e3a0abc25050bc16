"""The registry is complete without optional packages, and presets resolve."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import svgeval.metrics
from svgeval.metrics.presets import DEFAULT, PRESETS, get_preset, presets_using
from svgeval.metrics.registry import METRIC_MODULES, METRICS
from svgeval.tasks import all_tasks

EXPECTED = {"pss", "mse", "ssim", "iou", "clip_score", "rclip", "dino", "lpips", "aesthetic", "fid", "clip_fid",
            "hps", "rouge_l", "bge_m3", "sbert", "levenshtein"}


def test_every_metric_is_registered_and_reported_by_a_preset() -> None:
    assert EXPECTED <= set(METRICS.all())
    for info in METRICS.all().values():
        assert presets_using(info.name), info.name
        assert info.value_range and info.source
    for preset in PRESETS.all().values():
        assert get_preset(preset.name) is preset
        assert set(preset.metrics) <= set(METRICS.all()), preset.name


def test_every_task_names_a_registered_preset_that_lists_what_it_reports() -> None:
    for name, task in all_tasks().items():
        preset = get_preset(task.preset)
        assert set(task.metrics.values()) <= set(preset.metrics), name


def test_unknown_preset_lists_the_known_ones() -> None:
    with pytest.raises(KeyError, match="svgenius"):
        get_preset("nope")
    assert {"svgenius", "starvector", "vectorgym", "unisvg", "svgauge", "svgeditbench-v2",
            "internsvg", "svgeditbench", "omnisvg", "sgp-bench", "svgbench", "vgbench"} <= set(PRESETS.all())
    assert set(PRESETS.all()) == set(PRESETS.names())  # every declared preset loads, under its name


def test_the_svgenius_preset_is_the_default_settings_under_its_name() -> None:
    """Metrics called without a preset compute what the SVGenius protocol computes."""
    from dataclasses import asdict

    settings = {key: value for key, value in asdict(get_preset("svgenius")).items()
                if key not in ("name", "description", "metrics")}
    assert settings == {key: value for key, value in asdict(DEFAULT).items()
                        if key not in ("name", "description", "metrics")}


@pytest.mark.e2e  # a fresh interpreter
def test_a_preset_is_found_from_a_fresh_process_importing_its_suite_alone() -> None:
    code = ("import sys; from svgeval.metrics.presets import get_preset;"
            "print(get_preset('internsvg').render_size, 'svgeval.tasks.sarena' in sys.modules,"
            " 'svgeval.tasks.svgenius' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["448", "True", "False"]


@pytest.mark.e2e  # a fresh interpreter
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
