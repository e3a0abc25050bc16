"""Named reward recipes: which terms a reward uses, how much each weighs, how they combine.

A reward is ``R = sum_c w_c r_c / sum_c w_c`` (``combine="mean"``) or ``R = sum_c w_c r_c``
(``combine="sum"``, as a released recipe adds its terms) over the active terms ``r_c``
(:data:`svgeval.rewards.terms.TERMS`, each at most 1, 1 for a perfect match). A completion
with no SVG, one that cannot be parsed, rendered or renders blank, or one that fails the
preset's format ``gate``, gets ``penalty`` instead (default -1).

Where each recipe's weights come from:

* ``text2svg``, ``img2svg``, ``sketch2svg``, ``edit``, ``fast``: svgeval's own weights for the
  RLRF-style terms VectorGym (Sec. 3.4) trains with, neither paper printing any.
* ``rlrf``: the terms of RLRF (Rodriguez et al., 2025, Sec. 3.2: ``R_total = sum_i w_i R_i``
  over the normalised L2, the Canny L2, DreamSim, LPIPS and the length term). The text
  available to us gives that form but not the values of ``w_i``, so the weights are equal
  (ours), combined as a mean.
* ``rlrf-server``: the public RLRF reward server's configuration (HTplex/rlrf-rewarder,
  ``reward_score/configs/ht_exp2.yaml``): ``img_l2`` 0.2, ``img_l2_canny`` 0.2, ``lpips`` 0.2,
  ``dreamsim`` 0.2, ``dreamsim_canny_dl`` 0.2 summed (image group weight 1.0), the length term
  present with weight 0 (text group weight 0.0); renders of 512 px (``svg_rewarder.py``'s
  ``RASTERIZE_SIZE``); a failure is -1 (its ``MIN_REWARD``).
* ``reason-svg``: Reason-SVG (Xing et al., 2025, Sec. 3.3) rewards render success, CLIP
  ViT-L/14 semantic alignment and HPSv2 aesthetics (with a fourth, the Drawing-with-Thought
  rationale, that svgeval does not score); its ``lambda`` values are not in the text available
  to us, so the weights are equal (ours).
* ``sgp-rl``: SGP-RL (Chen et al., 2025, "Symbolic Graphics Programming with Large Language
  Models"), as its released code computes it (Sphere-AI-Lab/SGP-RL,
  ``understand_r1_zero/svg_grader.py`` and ``args.py``): CLIP text-image (ViT-B/32,
  ``clip_small``) with ``clip_coeff`` 1.0 plus DINOv2 image-image (ViT-S/14, ``dino_small``)
  with ``dino_coeff`` 1.0, summed; the length and format coefficients are 0.0, and a
  completion without the ``</think> <answer>...</answer>`` format, with text elements, or that
  does not render gets 0 (``reward_offset`` 0.0).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType

from svgeval.errors import UserError
from svgeval.rewards.terms import COMPONENTS, TERMS

GATES = ("think_answer",)
"""Format gates a preset may require (:func:`passes_gate`)."""


class InvalidRewardPreset(UserError, ValueError):
    """A reward preset that names no preset, or whose weights, components, combination or gate
    cannot work. A ValueError as well, the error it was before, which callers and tests catch."""


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
    combine: str = "mean"
    """``mean``: weights normalised to sum to 1; ``sum``: terms added with their weights."""
    models: Mapping[str, str] = field(default_factory=dict)
    """Weights of the model terms by family (``clip``, ``dino``, ``hps``, ``dreamsim``): a hub
    id or local path; a family left out uses the metric's default."""
    gate: str | None = None
    """A format the completion must have to be scored at all (``think_answer``)."""
    source: str = ""

    def __post_init__(self) -> None:
        unknown = set(self.weights) - set(COMPONENTS)
        if unknown:
            raise InvalidRewardPreset(
                f"unknown reward components {sorted(unknown)}; known: {COMPONENTS}")
        if any(w < 0 for w in self.weights.values()) or sum(self.weights.values()) <= 0:
            raise InvalidRewardPreset("weights must be non-negative with a positive sum")
        if self.combine not in ("mean", "sum"):
            raise InvalidRewardPreset(f"combine must be 'mean' or 'sum', not {self.combine!r}")
        if self.gate is not None and self.gate not in GATES:
            raise InvalidRewardPreset(f"unknown gate {self.gate!r}; known: {GATES}")
        object.__setattr__(self, "weights", MappingProxyType(dict(self.weights)))
        object.__setattr__(self, "models", MappingProxyType(dict(self.models)))

    @cached_property
    def _active(self) -> tuple[str, ...]:
        return tuple(c for c in COMPONENTS if self.weights.get(c, 0.0) > 0)

    @cached_property
    def _weighted(self) -> tuple[tuple[tuple[str, float], ...], float]:
        """The active terms with their weights, and what their weighted sum is divided by."""
        weights = tuple((c, self.weights[c]) for c in self._active)
        return weights, (sum(w for _, w in weights) if self.combine == "mean" else 1.0)

    @cached_property
    def _bounds(self) -> tuple[float, float]:
        weights, total = self._weighted
        low = sum(w * TERMS[c].low for c, w in weights) / total
        return low, sum(w for _, w in weights) / total

    def active(self) -> tuple[str, ...]:
        """Components with a positive weight, in the canonical order (worked out once a
        preset: a reward call asks for them about twice a completion)."""
        return self._active

    def with_weights(self, **weights: float) -> RewardPreset:
        """A copy with some weights replaced (0 switches a component off)."""
        return replace(self, weights={**self.weights, **weights})

    def bounds(self) -> tuple[float, float]:
        """The lowest and highest reward a scored completion can get."""
        return self._bounds

    def combined(self, values: Mapping[str, float]) -> float:
        """``R`` of the active terms' ``values`` (module docstring)."""
        weights, total = self._weighted
        return sum(w * values[c] for c, w in weights) / total


def passes_gate(gate: str | None, completion: str) -> bool:
    """True when ``completion`` has the format ``gate`` asks for. ``think_answer`` (SGP-RL's
    ``is_format_correct`` and ``no_text_in_response``): ``</think> <answer>`` present, the
    completion ending with ``</answer>``, and no ``</text>``, ``</tspan>`` or ``</textPath>``."""
    if gate is None:
        return True
    text_free = not any(tag in completion for tag in ("</text>", "</tspan>", "</textPath>"))
    return "</think> <answer>" in completion and completion.endswith("</answer>") and text_free


_OURS = "svgeval's weights for the RLRF-style terms VectorGym Sec. 3.4 trains with"
_SERVER = "public RLRF reward server, HTplex/rlrf-rewarder reward_score/configs/ht_exp2.yaml"

PRESETS: dict[str, RewardPreset] = {
    p.name: p
    for p in (
        RewardPreset("text2svg", "svg", {"pixel": 0.3, "sobel": 0.2, "lpips": 0.4, "length": 0.1},
                     source=_OURS),
        RewardPreset("img2svg", "svg", {"pixel": 0.5, "sobel": 0.2, "lpips": 0.2, "length": 0.1},
                     source=_OURS),
        RewardPreset("sketch2svg", "svg",
                     {"pixel": 0.3, "sobel": 0.3, "lpips": 0.3, "length": 0.1}, source=_OURS),
        RewardPreset("edit", "svg", {"pixel": 0.6, "sobel": 0.2, "lpips": 0.1, "length": 0.1},
                     source=_OURS),
        RewardPreset("fast", "svg", {"pixel": 0.6, "sobel": 0.3, "length": 0.1},
                     source="render-only recipe without a neural term (ours), for throughput"),
        RewardPreset("rlrf", "svg", {"l2": 1.0, "canny": 1.0, "dreamsim": 1.0,
                                     "lpips_rlrf": 1.0, "rlrf_length": 1.0},
                     render_size=512, source="RLRF (Rodriguez et al., 2025) Sec. 3.2 terms; "
                     "the paper's w_i not printed, equal weights (ours)"),
        RewardPreset("rlrf-server", "svg", {"l2": 0.2, "canny": 0.2, "lpips_rlrf": 0.2,
                                            "dreamsim": 0.2, "dreamsim_canny": 0.2,
                                            "rlrf_length": 0.0},
                     render_size=512, combine="sum", source=_SERVER),
        RewardPreset("reason-svg", "svg", {"render": 1.0, "clip_text": 1.0, "hps": 1.0},
                     render_size=224, models={"clip": "openai/clip-vit-large-patch14"},
                     source="Reason-SVG (Xing et al., 2025) terms; its lambdas not printed, "
                     "equal weights (ours)"),
        RewardPreset("sgp-rl", "svg", {"clip_text": 1.0, "dino_image": 1.0}, render_size=224,
                     penalty=0.0, combine="sum", gate="think_answer",
                     models={"clip": "openai/clip-vit-base-patch32",
                             "dino": "facebook/dinov2-small"},
                     source="SGP-RL released code: understand_r1_zero/svg_grader.py, args.py"),
        RewardPreset("captioning", "text", {"bge": 1.0},
                     source="VectorGym Sec. 3.4: BGE-M3 cosine of the two captions"),
        RewardPreset("captioning-rouge", "text", {"rouge": 1.0},
                     source="ROUGE-L F1 / 100 (VectorGym Sec. 3.5 metric), no model needed"),
    )
}
"""Named presets; ``sketch2svg`` and ``img2svg`` differ only in weights."""

TASK_PRESETS = ("text2svg", "img2svg", "sketch2svg", "edit", "fast", "captioning",
                "captioning-rouge")
"""The presets ``by_task`` picks from by each row's task."""


def get_reward_preset(preset: str | RewardPreset) -> RewardPreset:
    """Look a preset up by name (a :class:`RewardPreset` passes through)."""
    if isinstance(preset, RewardPreset):
        return preset
    try:
        return PRESETS[preset]
    except KeyError:
        raise InvalidRewardPreset(
            f"unknown reward preset {preset!r}; known: {sorted(PRESETS)}") from None
