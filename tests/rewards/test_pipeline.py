"""Rows scored as their renders arrive, model terms batched behind them: the rewards, their
components and failures are those of scoring everything after every render is done (one batch
of the whole call), for every batch size, in order (the model terms to float32 rounding: a
network's CPU kernels sum in another order for another batch shape)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cases import INVALID, PERTURBED, REFERENCE, UNRELATED, house

from svgeval.render.isolated import Renderer
from svgeval.rewards import RewardScorer
from svgeval.rewards.presets import RewardPreset

pytest.importorskip("transformers")


def test_batching_the_model_terms_changes_no_result(renderer: Renderer,
                                                    tiny_dreamsim_dir: Path) -> None:
    preset = RewardPreset("pixel-dreamsim", "svg", {"pixel": 1.0, "sobel": 1.0, "dreamsim": 1.0,
                                                    "rlrf_length": 1.0}, render_size=64)
    kinds = [REFERENCE, PERTURBED, *INVALID.values(), UNRELATED,
             *(house(dx=dx) for dx in range(1, 8))]
    completions = [kinds[(7 * i) % len(kinds)] for i in range(40)]
    references = [REFERENCE if i % 3 else UNRELATED for i in range(40)]
    scored = {}
    for batch in (1, 7, 64):
        with RewardScorer(preset, renderer=renderer, model_batch=batch,
                          model_paths={"dreamsim": str(tiny_dreamsim_dir)}) as scorer:
            scored[batch] = scorer.score(completions, references)
    rows = scored[64]
    for other in (scored[1], scored[7]):
        assert [r.failure for r in other] == [r.failure for r in rows]
        for mine, theirs in zip(other, rows):
            assert mine.reward == pytest.approx(theirs.reward, abs=1e-5)
            assert mine.components == pytest.approx(theirs.components, abs=1e-5)
            assert {k: v for k, v in mine.components.items() if k != "dreamsim"} == {
                k: v for k, v in theirs.components.items() if k != "dreamsim"}
    assert [r.failure for r in rows].count(None) == sum(
        c not in INVALID.values() for c in completions)
    same = [r for r, c, ref in zip(rows, completions, references) if c == ref]
    # the reference itself: every term 1 but RLRF's length term, 1 - (1/2)^2 = 0.75
    assert same and all(r.reward == pytest.approx((1 + 1 + 1 + 0.75) / 4, abs=1e-6)
                        for r in same)
    assert all(set(r.components) == set(preset.active()) for r in rows if r.failure is None)
