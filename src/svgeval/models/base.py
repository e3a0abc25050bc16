"""The one interface every model backend implements.

A backend turns a :class:`GenerationRequest` (chat messages plus sampling settings) into a
:class:`Generation` (text, token usage, latency). Backends are async so the runner can keep many
requests in flight; the offline baselines answer at once. A backend that retries tells the
:class:`ModelEvents` it was made with about each retry as it happens, with a :class:`RetryEvent`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from svgeval.errors import SvgevalError, UserError
from svgeval.messages import Message

if TYPE_CHECKING:  # the HTTP backends' module; the offline ones need not import asyncio
    from svgeval.models.adaptive import Learned
    from svgeval.tasks.base import Task


@dataclass(frozen=True)
class GenerationRequest:
    """What the runner asks of a model for one sample.

    ``input_svg`` and ``reference`` come from the sample; only the offline baselines
    (``identity``, ``oracle``) read them.
    """

    sample_id: str
    messages: list[Message]
    temperature: float | None = 0.0
    """None sends no temperature (the server's default; OpenAI reasoning models accept no other)."""
    max_tokens: int | None = None
    seed: int | None = None
    input_svg: str | None = None
    reference: str | None = None
    response_format: Mapping[str, Any] | None = None
    """A structured-output request, the OpenAI ``response_format`` object (e.g. ``{"type":
    "json_schema", "json_schema": {...}}``); sent by the OpenAI-compatible backends, which is
    where judges run (None: free text)."""


@dataclass(frozen=True)
class Generation:
    """A model's answer: its text, token usage if the backend reports it, and timings.

    ``finish_reason`` is the server's (``stop``, ``length`` when ``max_tokens`` cut the answer
    off, ...), None when the backend has none. ``latency_s`` is the wall time of the last
    (successful) attempt only; ``total_s`` runs from the start of the first attempt to the
    answer, backoff waits included; ``attempts`` counts the HTTP requests made, this one
    included. Backends that send no requests leave the defaults.
    """

    text: str
    latency_s: float = 0.0
    usage: dict[str, Any] = field(default_factory=dict)
    finish_reason: str | None = None
    attempts: int = 1
    total_s: float = 0.0


class ModelError(SvgevalError, RuntimeError):
    """A request that failed for good (after retries); the sample is recorded as failed.

    ``attempts`` and ``total_s`` mean what they mean on :class:`Generation`: the requests made
    and the wall time from the first attempt to giving up.
    """

    def __init__(self, message: str, *, attempts: int = 1, total_s: float = 0.0) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.total_s = total_s


class AnswerMissing(ModelError):
    """The backend has no answer for this sample and asking again would not give one (a replay
    file without its id): the sample is left without a record, and the run incomplete."""


class ModelUnavailable(UserError):
    """The backend cannot work at all (unreachable endpoint, bad key); the run stops."""


class InvalidModelSetting(UserError, ValueError):
    """A model spec, flag or argument that cannot work (an unknown kind, a missing --base-url,
    a --model-arg out of range). A ValueError as well, the error these raised before: callers
    catch that (a judge spec's errors are reworded for --judge)."""


@dataclass(frozen=True)
class RetryEvent:
    """One failed attempt that the backend is about to retry.

    ``attempt`` is the attempt that failed (1-based), ``reason`` says briefly why (``HTTP 429``,
    ``no token for 60 s``, ``connection refused``), and ``wait_s`` is the backoff before the
    next attempt.
    """

    sample_id: str
    attempt: int
    reason: str
    wait_s: float


def _unheard(_: object) -> None:
    """Nobody listens."""


@dataclass(frozen=True)
class ModelEvents:
    """Whom a backend tells, as it works, of each retry (:attr:`retry`, with a
    :class:`RetryEvent`, before the next attempt) and of what the user should read once
    (:attr:`notice`, a sentence: an HTTP backend that lowered its requests in flight because
    the server shed load). A backend is given them when it is made
    (:func:`svgeval.models.load_model`'s ``events``); by default nobody listens."""

    retry: Callable[[RetryEvent], None] = _unheard
    notice: Callable[[str], None] = _unheard


AnswerSource = Literal["input_svg", "reference"]
"""A field of a sample that an offline baseline answers with."""

NO_ANSWER: dict[AnswerSource, str] = {"input_svg": "no input SVG",
                                      "reference": "no reference answer"}
"""Why a baseline that answers with a field has no answer for a sample without it."""


class Model(ABC):
    """A model backend. ``spec`` is the string the user gave, e.g. ``openai:gpt-4o``.

    ``events`` hears of a backend's retries and notices (:class:`ModelEvents`, given when the
    backend is made; only the HTTP backends have any). ``accepts_images`` is
    False for a backend declared text-only (``--text-only-model``): the runner then refuses,
    before any request, a task whose messages carry images. ``answers_are_free`` is True for a
    backend that computes the same answers again at no cost (the offline baselines, a replay
    file): the runner then writes its answers in groups instead of one flushed line each, since
    ``--resume`` after a ``kill -9`` asks it again for nothing.

    ``paces_requests`` is True for a backend that keeps its own limit of requests in flight
    (the HTTP backends, :mod:`svgeval.models.adaptive`): the runner hands it every request it
    has ready instead of ``--concurrency`` at a time, so that a request waiting to retry holds
    no place. Such a backend may learn how many requests its server takes at once; it hands
    that out by :meth:`learned` (calling ``on_learned``, when set, each time it changes), and a
    later run starts from it with :meth:`start_from`.

    ``answers_from`` is the field of a sample an offline baseline answers with (``identity``:
    the input SVG, ``oracle``: the reference answer; None for every other backend): a sample
    without it has no answer from the backend (:data:`NO_ANSWER` says why). It is data, not a
    call: the runner reads which samples lack each field from the pass that hashes the dataset
    (:class:`~svgeval.runner.identity.DatasetDigest`), reading no sample again.
    """

    spec: str
    events: ModelEvents = ModelEvents()
    on_learned: Callable[[], None] | None = None
    accepts_images: bool = True
    answers_are_free: bool = False
    paces_requests: bool = False
    answers_from: AnswerSource | None = None

    @abstractmethod
    async def generate(self, request: GenerationRequest) -> Generation:
        """Answer one request; raise ModelError for a failed request."""

    async def aclose(self) -> None:
        """Release connections; the default has nothing to release."""

    def check_ids(self, task: Task[Any], sample_ids: Sequence[str]) -> None:
        """Raise ModelUnavailable when the backend cannot answer these samples of ``task`` at
        all (a replay file with other ids); the default accepts any."""

    def report(self) -> dict[str, Any]:
        """Facts about the run that belong in ``results.json`` (e.g. ids a replay file lacked)."""
        return {}

    def load(self) -> Model:
        """This backend ready to answer: itself (the default), or what a
        :class:`PendingModel` sets up now. The runner calls it once the run's cheap checks have
        passed (:meth:`svgeval.runner.Runner.prepare`) and answers with what it returns."""
        return self

    def learned(self) -> dict[str, Learned]:
        """What this backend learned of each server it asked, by its shown base URL; the
        default learns nothing."""
        return {}

    def start_from(self, learned: Mapping[str, Learned]) -> None:
        """Start from what an earlier run learned (as :meth:`learned` gave it); the default
        has no use for it."""


class PendingModel(Model):
    """A backend whose slow setup (loading a checkpoint's weights) waits for :meth:`load`, so
    that a run checks its data, its run directory and its settings first. A kind returns one
    once its own cheap checks pass (its options, the checkpoint's folder or hub id); it answers
    nothing itself."""

    def __init__(self, spec: str, setup: Callable[[], Model]) -> None:
        self.spec = spec
        self._setup = setup

    def load(self) -> Model:
        """The backend ``setup`` makes (ModelUnavailable when it cannot)."""
        return self._setup()

    async def generate(self, request: GenerationRequest) -> Generation:
        raise ModelUnavailable(f"{self.spec}: not loaded; the backend load() returns answers")
