"""Model kinds, registered by name in :data:`MODELS`.

A kind is a factory that turns the part of a spec after the first colon (``gpt-4o`` in
``openai:gpt-4o``) and the command line's endpoint options into a :class:`Model`. Kinds that
ship with svgeval live in :mod:`svgeval.models.builtin` and, for checkpoints run in this
process, :mod:`svgeval.models.in_process`; another package adds one through the
``svgeval.models`` entry-point group (see :mod:`svgeval.registry` and ``docs/models.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from svgeval.models.base import Model, ModelEvents
from svgeval.registry import Registry
from svgeval.run_request import DEFAULTS


@dataclass(frozen=True)
class EndpointOptions:
    """Command-line options of the backends: the endpoint's (for those that send requests) and
    the ``--model-arg KEY=VALUE`` pairs of a kind that declares :attr:`ModelKind.options`."""

    base_url: str | None = None
    api_key_env: str | None = None
    concurrency: int = DEFAULTS.concurrency
    timeout_s: float = DEFAULTS.timeout
    max_retries: int = 6
    first_token_timeout_s: float | None = None
    stream: bool = DEFAULTS.stream
    model_args: Mapping[str, str] = field(default_factory=dict)
    """``--model-arg`` values as typed; the kind parses them into its options dataclass."""
    events: ModelEvents = field(default_factory=ModelEvents)
    """Whom a backend that sends requests tells of its retries and notices."""


ModelFactory = Callable[[str, str, EndpointOptions], Model]
"""(spec, argument, options) -> backend."""


@dataclass(frozen=True)
class ModelKind:
    """A kind of backend: ``argument`` is how its argument is written (None: it takes none);
    ``sends_requests`` is True for backends that use the endpoint options; ``options`` is the
    dataclass of its ``--model-arg`` options (None: it takes none; see
    :mod:`svgeval.tasks.options`)."""

    name: str
    summary: str
    create: ModelFactory
    argument: str | None = None
    sends_requests: bool = False
    options: type[Any] | None = None

    @property
    def form(self) -> str:
        """How a spec of this kind is written, e.g. ``openai:<model>``."""
        return f"{self.name}:{self.argument}" if self.argument else self.name


MODELS: Registry[ModelKind] = Registry(
    "model", "svgeval.models", ("svgeval.models.builtin", "svgeval.models.in_process")
)
"""Every model kind by name."""


def model_kind(
    name: str,
    summary: str,
    argument: str | None = None,
    sends_requests: bool = False,
    options: type[Any] | None = None,
) -> Callable[[ModelFactory], ModelFactory]:
    """Decorator that registers a factory as the model kind ``name``."""

    def register(create: ModelFactory) -> ModelFactory:
        MODELS.register(ModelKind(name, summary, create, argument, sends_requests, options))
        return create

    return register
