"""``--model-path METRIC=none``: a metric turned off is recorded as not computed, with the
reason, and its weights are never looked for (LPIPS ships its real weights, so without this it
always runs)."""

from __future__ import annotations

import numpy as np
import pytest

from svgeval.metrics import _models
from svgeval.metrics.lpips import lpips
from svgeval.metrics.model_settings import ModelSettings
from svgeval.metrics.registry import MetricUnavailable

pytest.importorskip("torch")


def test_none_turns_a_metric_off_by_argument_settings_and_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    pictures = [np.ones((16, 16, 3))]
    looked: list[str] = []
    real = _models.candidates
    monkeypatch.setattr(_models, "candidates",
                        lambda *args: looked.append(args[0]) or real(*args))
    with pytest.raises(MetricUnavailable, match=r"lpips: turned off \(--model-path lpips=none"):
        lpips(pictures, pictures, model_path="none")
    monkeypatch.delenv("SVGEVAL_LPIPS_MODEL", raising=False)
    with pytest.raises(MetricUnavailable, match=r"lpips: turned off \(--model-path lpips=none"):
        lpips(pictures, pictures, model_settings=ModelSettings(model_paths={"lpips": "none"}))
    monkeypatch.setenv("SVGEVAL_LPIPS_MODEL", "none")
    with pytest.raises(MetricUnavailable, match="SVGEVAL_LPIPS_MODEL=none"):
        lpips(pictures, pictures)
    assert looked == []
