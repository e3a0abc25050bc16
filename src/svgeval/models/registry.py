"""Model kinds, registered by name in :data:`MODELS`.

A kind is a factory that turns the part of a spec after the first colon (``gpt-4o`` in
``openai:gpt-4o``) and the command line's endpoint options into a :class:`Model`. Kinds that
ship with svgeval live in :mod:`svgeval.models.builtin`; another package adds one through the
``svgeval.models`` entry-point group (see :mod:`svgeval.registry`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from svgeval.models.base import Model
from svgeval.registry import Registry


@dataclass(frozen=True)
class EndpointOptions:
    """Command-line options of the backends that send requests."""

    base_url: str | None = None
    api_key_env: str | None = None
    concurrency: int = 8
    timeout_s: float = 120.0
    max_retries: int = 6
    first_token_timeout_s: float | None = None
    stream: bool = True


ModelFactory = Callable[[str, str, EndpointOptions], Model]
"""(spec, argument, options) -> backend."""


@dataclass(frozen=True)
class ModelKind:
    """A kind of backend: ``argument`` is how its argument is written (None: it takes none);
    ``sends_requests`` is True for backends that use the endpoint options."""

    name: str
    summary: str
    create: ModelFactory
    argument: str | None = None
    sends_requests: bool = False

    @property
    def form(self) -> str:
        """How a spec of this kind is written, e.g. ``openai:<model>``."""
        return f"{self.name}:{self.argument}" if self.argument else self.name


MODELS: Registry[ModelKind] = Registry("model", "svgeval.models", ("svgeval.models.builtin",))
"""Every model kind by name."""


def model_kind(
    name: str, summary: str, argument: str | None = None, sends_requests: bool = False
) -> Callable[[ModelFactory], ModelFactory]:
    """Decorator that registers a factory as the model kind ``name``."""

    def register(create: ModelFactory) -> ModelFactory:
        MODELS.register(ModelKind(name, summary, create, argument, sends_requests))
        return create

    return register
