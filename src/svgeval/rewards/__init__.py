"""Rendering-based rewards for RL on SVG tasks (GRPO with TRL), and the curriculum sampler."""

from svgeval.rewards.availability import RewardUnavailable
from svgeval.rewards.pipeline import RewardResult
from svgeval.rewards.presets import PRESETS, RewardPreset, get_reward_preset
from svgeval.rewards.scorer import RewardScorer
from svgeval.rewards.trl import SvgReward, completion_text, svg_reward

__all__ = ["PRESETS", "RewardPreset", "RewardResult", "RewardScorer", "RewardUnavailable",
           "SvgReward", "completion_text", "get_reward_preset", "svg_reward"]


def __getattr__(name: str) -> object:
    """``CurriculumSampler`` and ``curriculum_order`` import torch, so they load on first use."""
    if name in ("CurriculumSampler", "curriculum_order"):
        from svgeval.rewards import curriculum

        return getattr(curriculum, name)
    raise AttributeError(name)
