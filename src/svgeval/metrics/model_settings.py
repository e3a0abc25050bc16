"""How the model-based metrics run: the precision of their forward passes, where renders become
network inputs, and the local weights given by metric.

One frozen :class:`ModelSettings` travels with each call (``model_settings=`` of every model
metric; in a run, :class:`~svgeval.tasks.base.MetricContext` carries the run's ``--precision``,
``--preprocess`` and ``--model-path``). Nothing is set for the process: two runs, or two calls,
in one process each compute with their own. A metric called without one reads the environment
(:meth:`ModelSettings.from_environment`: ``SVGEVAL_PRECISION``, ``SVGEVAL_PREPROCESS``), and
``SVGEVAL_<METRIC>_MODEL`` is read, after :attr:`ModelSettings.model_paths`, wherever weights
are looked for (:func:`svgeval.metrics._models.load_first`); svgeval reads these variables and
never writes them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import cast, get_args

from svgeval.errors import UserError
from svgeval.run_request import Precision, Preprocessing

PRECISIONS: tuple[str, ...] = get_args(Precision)
"""Values of ``--precision`` (a run's ``settings.precision``) and ``SVGEVAL_PRECISION``."""
PREPROCESSINGS: tuple[str, ...] = get_args(Preprocessing)
"""Values of ``--preprocess`` (a run's ``settings.preprocess``) and ``SVGEVAL_PREPROCESS``:
where the model metrics turn renders into network inputs
(:func:`svgeval.metrics._pixels.pixel_values`)."""


class InvalidMetricSetting(UserError, ValueError):
    """A value of the model metrics' settings the user gave (``--device``, ``--precision``,
    ``--preprocess`` or their environment variables) that is none of the choices. A ValueError
    as well, the error these raised before, which callers and tests catch."""


def _checked(chosen: str, choices: tuple[str, ...], source: str) -> str:
    if chosen not in choices:
        raise InvalidMetricSetting(f"{source} must be one of {', '.join(choices)}, not {chosen!r}")
    return chosen


def _from_environment(variable: str, choices: tuple[str, ...]) -> str:
    """The choice ``variable`` names (its first choice when unset or empty)."""
    return _checked(os.environ.get(variable, "").strip().lower() or choices[0], choices, variable)


def model_variable(metric: str) -> str:
    """The environment variable a user may set to ``metric``'s local weights
    (``SVGEVAL_CLIP_MODEL``)."""
    return f"SVGEVAL_{metric.upper()}_MODEL"


@dataclass(frozen=True)
class ModelSettings:
    """The settings of the model metrics' forward passes.

    ``precision``: ``fp32`` (the papers' numbers), or ``bf16``/``fp16``, which run each forward
    pass under ``torch.autocast`` to that type (:func:`svgeval.metrics._models.inference`).
    ``preprocess``: ``cpu`` (the model's own image processor) or ``device`` (the same steps in
    torch on the metric's device). ``model_paths``: local weights by metric name (``clip``,
    ``dino``, ``lpips``, ...; ``none`` turns a metric off), looked in before
    ``SVGEVAL_<METRIC>_MODEL``."""

    precision: Precision = "fp32"
    preprocess: Preprocessing = "cpu"
    model_paths: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _checked(self.precision, PRECISIONS, "precision")
        _checked(self.preprocess, PREPROCESSINGS, "preprocess")

    @classmethod
    def from_environment(cls, model_paths: Mapping[str, str] | None = None) -> ModelSettings:
        """The settings a metric called without any uses: ``SVGEVAL_PRECISION`` (default
        fp32) and ``SVGEVAL_PREPROCESS`` (default cpu), with ``model_paths``."""
        return cls(cast(Precision, _from_environment("SVGEVAL_PRECISION", PRECISIONS)),
                   cast(Preprocessing, _from_environment("SVGEVAL_PREPROCESS", PREPROCESSINGS)),
                   dict(model_paths or {}))

    def model_path(self, metric: str) -> str | None:
        """Where ``metric``'s weights are looked for first: its entry in :attr:`model_paths`,
        else ``SVGEVAL_<METRIC>_MODEL`` (None: neither)."""
        return self.model_paths.get(metric) or os.environ.get(model_variable(metric)) or None


def chosen(settings: ModelSettings | None) -> ModelSettings:
    """``settings``, or for a call that gave none, :meth:`ModelSettings.from_environment`."""
    return settings if settings is not None else ModelSettings.from_environment()
