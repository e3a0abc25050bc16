"""Named reward recipes: which components a reward uses and how much each weighs.

A reward is ``R = sum_c w_c r_c / sum_c w_c`` over components ``r_c`` in [0, 1] (higher is
better), so R is in [0, 1]; an output with no SVG, or one that cannot be parsed, rendered or
renders blank, gets ``penalty`` instead (default -1), so every reward lies in [penalty, 1].

Recipes follow RLRF (Rodriguez et al., 2025, "Rendering-Aware Reinforcement Learning for Vector
Graphics Generation"), which VectorGym (Sec. 3.4) trains with: rendered prediction and reference
compared by a pixel L2 term, an L2 term on edge maps (RLRF's are Canny's; ours are thresholded
Sobel gradients, :mod:`svgeval.rewards.components`), a perceptual term (RLRF uses DreamSim; we
use LPIPS, the perceptual metric svgeval ships) and a length term relative to the
reference; captioning is rewarded by BGE-M3 cosine (VectorGym Sec. 3.4). The weights are ours
(the papers do not print them); every weight can be overridden.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

IMAGE_COMPONENTS = ("pixel", "edge", "lpips", "length")
TEXT_COMPONENTS = ("bge", "rouge")
COMPONENTS = IMAGE_COMPONENTS + TEXT_COMPONENTS


@dataclass(frozen=True)
class RewardPreset:
    """A reward recipe. ``kind`` is ``svg`` (completion is SVG code compared by rendering) or
    ``text`` (completion is a caption compared with the reference caption)."""

    name: str
    kind: str
    weights: Mapping[str, float]
    render_size: int = 128
    """Side in pixels of the square renders compared (white background)."""
    penalty: float = -1.0
    """Reward of a completion with no SVG, or unparsable, unrenderable or blank output."""
    lpips_net: str = "alex"
    source: str = ""
    notes: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = set(self.weights) - set(COMPONENTS)
        if unknown:
            raise ValueError(f"unknown reward components {sorted(unknown)}; known: {COMPONENTS}")
        if any(w < 0 for w in self.weights.values()) or sum(self.weights.values()) <= 0:
            raise ValueError("weights must be non-negative with a positive sum")
        object.__setattr__(self, "weights", MappingProxyType(dict(self.weights)))

    def active(self) -> tuple[str, ...]:
        """Components with a positive weight, in the canonical order."""
        return tuple(c for c in COMPONENTS if self.weights.get(c, 0.0) > 0)

    def with_weights(self, **weights: float) -> RewardPreset:
        """A copy with some weights replaced (0 switches a component off)."""
        return replace(self, weights={**self.weights, **weights})


_RLRF = "RLRF (Rodriguez et al., 2025) rewards as used by VectorGym Sec. 3.4; weights ours"

PRESETS: dict[str, RewardPreset] = {
    p.name: p
    for p in (
        RewardPreset("text2svg", "svg", {"pixel": 0.3, "edge": 0.2, "lpips": 0.4, "length": 0.1},
                     source=_RLRF),
        RewardPreset("img2svg", "svg", {"pixel": 0.5, "edge": 0.2, "lpips": 0.2, "length": 0.1},
                     source=_RLRF),
        RewardPreset("sketch2svg", "svg",
                     {"pixel": 0.3, "edge": 0.3, "lpips": 0.3, "length": 0.1}, source=_RLRF),
        RewardPreset("edit", "svg", {"pixel": 0.6, "edge": 0.2, "lpips": 0.1, "length": 0.1},
                     source=_RLRF),
        RewardPreset("fast", "svg", {"pixel": 0.6, "edge": 0.3, "length": 0.1},
                     source="render-only recipe without a neural term (ours), for throughput"),
        RewardPreset("captioning", "text", {"bge": 1.0},
                     source="VectorGym Sec. 3.4: BGE-M3 cosine of the two captions"),
        RewardPreset("captioning-rouge", "text", {"rouge": 1.0},
                     source="ROUGE-L F1 / 100 (VectorGym Sec. 3.5 metric), no model needed"),
    )
}
"""Named presets; ``sketch2svg`` and ``img2svg`` differ only in weights."""


def get_reward_preset(preset: str | RewardPreset) -> RewardPreset:
    """Look a preset up by name (a :class:`RewardPreset` passes through)."""
    if isinstance(preset, RewardPreset):
        return preset
    try:
        return PRESETS[preset]
    except KeyError:
        raise ValueError(f"unknown reward preset {preset!r}; known: {sorted(PRESETS)}") from None
