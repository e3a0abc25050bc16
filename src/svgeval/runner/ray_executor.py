"""``--executor ray``: scoring on Ray actors, model metrics on a GPU actor, one limiter per endpoint.

What runs where (the driver is the ``svgeval run`` process):

* Per-sample scoring: a pool of :class:`Scorer` actors (one CPU each; ``--render-workers`` of
  them, else one per CPU of the cluster). Each owns an isolated :class:`Renderer` with one render
  process, so a hostile SVG that hangs or crashes the renderer costs that render process and one
  sample, never the actor. The driver sends each sample to an idle actor.
* Each actor's model metrics compute with the run's ``--precision``, ``--preprocess`` and
  ``--model-path``, which travel with the settings into the actor's
  :class:`~svgeval.tasks.base.MetricContext` (and the task's options); nothing of them is in
  the driver's environment, which would not reach another node.
* Batched and set-level model metrics: one :class:`MetricWorker` actor, on a GPU
  (``num_gpus=1``) when the cluster has one, else on every CPU of one node (Ray gives torch one
  thread per CPU of the actor); it starts once scoring is over and the scorers have stopped.
* Model and judge calls stay in the driver, but each waits for a slot from the
  :class:`EndpointLimiter` of its endpoint (base URL and model): a named, detached actor in the
  ``svgeval`` namespace, so every driver on the cluster (shards of one run, other runs) shares
  ``--concurrency`` (``--judge-concurrency``) requests in flight to one endpoint.

A local Ray instance is started when no ``--ray-address`` is given and none is running, sized for
a small machine (no dashboard, worker logs not copied to the terminal, a small object store).
A worker that dies mid-run ends the run with one line; its finished samples are on disk and
``--resume`` completes the rest.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import socket
import uuid
from collections.abc import Sequence
from typing import Any

from svgeval.models.base import Generation, GenerationRequest, Model
from svgeval.runner.executors import (
    Executor,
    ExecutorError,
    metric_context,
    score_sample,
    settings_renderer,
)
from svgeval.runner.metric_stage import MetricBackend
from svgeval.runner.run_config import RunSettings
from svgeval.tasks.base import BatchItem, Sample, Task
from svgeval.tasks.outcome import MetricValues, Outcome

NAMESPACE = "svgeval"
"""The Ray namespace of the endpoint limiters (shared by every driver on a cluster)."""

OBJECT_STORE_BYTES = 200 * 1024 * 1024
"""Object store of a local Ray instance: samples and scores are small."""

RAY_MISSING = "--executor ray needs Ray: pip install 'svgeval[ray]'"

CONNECT_TIMEOUT_S = 5.0
"""How long ``--ray-address`` may take to accept a connection."""


def import_ray() -> Any:
    """The ``ray`` module, or :class:`ExecutorError` with the install command."""
    try:
        import ray
    except ImportError:
        raise ExecutorError(RAY_MISSING) from None
    return ray


def check_reachable(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Refuse at once a ``HOST:PORT`` (or ``ray://HOST:PORT``) nobody listens on: Ray itself
    would retry for minutes. Other forms (``auto``) are left to Ray."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as error:
        raise ExecutorError(f"cannot reach the Ray cluster at {address} ({error}); check "
                            "--ray-address (the head node's HOST:PORT)") from None


def connect(address: str | None) -> bool:
    """Join the cluster at ``address`` or start a local instance; True when this call started
    or joined it (and so should shut it down), False when Ray was already initialised."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    if address:
        check_reachable(address)
    quiet: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                             "logging_level": logging.WARNING}
    try:
        if address:
            ray.init(address=address, **quiet)
        else:
            ray.init(num_cpus=os.cpu_count() or 1, object_store_memory=OBJECT_STORE_BYTES,
                     **quiet)
    except (ConnectionError, RuntimeError, ValueError) as error:
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise ExecutorError(f"cannot start or join {where} ({error}); "
                            "check --ray-address or run with --executor local") from None
    return True


class Scorer:
    """A Ray actor scoring samples with its own isolated one-process renderer."""

    def __init__(self, task: Task[Any], settings: RunSettings) -> None:
        self.task = task
        self.renderer = settings_renderer(settings, 1)

    def score(self, sample: Sample[Any], response: str) -> Outcome:
        return score_sample(self.task, sample, response, self.renderer)

    def pid(self) -> int:
        return os.getpid()

    def close(self) -> None:
        self.renderer.close()


class MetricWorker:
    """A Ray actor computing a task's batched and set-level model metrics."""

    def __init__(self, task: Task[Any], settings: RunSettings) -> None:
        self.task = task
        self.context = metric_context(settings_renderer(settings, settings.render_workers),
                                      settings)

    def batch_size(self) -> int:
        """Samples per batch here (sized from this node's memory unless given)."""
        return self.context.batch_size

    def batch_score(self, items: list[BatchItem[Any]]) -> list[MetricValues]:
        return self.task.batch_score(items, self.context)

    def set_score(self, groups: dict[str, list[BatchItem[Any]]]) -> MetricValues:
        return self.task.set_score(groups, self.context)

    def close(self) -> None:
        self.context.renderer.close()


class EndpointLimiter:
    """A Ray actor granting at most ``limit`` slots at once, first come first served.

    Every slot is held by a holder (one per driver): :meth:`release_all` gives back what a
    holder still holds when it ends. A driver killed outright keeps its slots until the actor
    is killed (``ray.kill(ray.get_actor(name, namespace="svgeval"))``).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_flight = 0
        self.max_in_flight = 0
        self.waiting = 0
        self.held: dict[str, int] = {}
        self._changed = asyncio.Condition()

    async def acquire(self, holder: str) -> None:
        async with self._changed:
            self.waiting += 1
            await self._changed.wait_for(lambda: self.in_flight < self.limit)
            self.waiting -= 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self.held[holder] = self.held.get(holder, 0) + 1

    async def release(self, holder: str, count: int = 1) -> None:
        async with self._changed:
            count = min(count, self.held.get(holder, 0))
            self.held[holder] = self.held.get(holder, 0) - count
            self.in_flight -= count
            self._changed.notify(count)

    async def release_all(self, holder: str) -> None:
        await self.release(holder, self.held.get(holder, 0))

    async def state(self) -> dict[str, int]:
        """``limit``, ``in_flight``, ``waiting`` and ``max_in_flight`` (the most ever granted)."""
        return {"limit": self.limit, "in_flight": self.in_flight, "waiting": self.waiting,
                "max_in_flight": self.max_in_flight}


def endpoint_key(model: Model) -> str | None:
    """``base_url model`` of an HTTP model; None for a backend that sends no request."""
    base_url = getattr(model, "base_url", None)
    return f"{base_url} {getattr(model, 'model', model.spec)}" if base_url else None


def endpoint_limiter(key: str, limit: int) -> Any:
    """The limiter actor of endpoint ``key``, created with ``limit`` slots if none exists."""
    ray = import_ray()
    name = "svgeval-limiter-" + hashlib.sha256(key.encode()).hexdigest()[:16]
    return ray.remote(EndpointLimiter).options(
        name=name, namespace=NAMESPACE, lifetime="detached", get_if_exists=True,
        num_cpus=0, max_concurrency=100_000,
    ).remote(limit)


class ClusterLimitedModel(Model):
    """``inner`` whose every call holds a slot of its endpoint's :class:`EndpointLimiter`."""

    def __init__(self, inner: Model, limiter: Any, holder: str) -> None:
        self.inner = inner
        self.spec = inner.spec
        self.accepts_images = inner.accepts_images
        self.limiter = limiter
        self.holder = holder

    async def generate(self, request: GenerationRequest) -> Generation:
        await self.limiter.acquire.remote(self.holder)
        try:
            return await self.inner.generate(request)
        finally:
            await self.limiter.release.remote(self.holder)

    async def aclose(self) -> None:
        await self.limiter.release_all.remote(self.holder)  # a slot granted to a cancelled call
        await self.inner.aclose()

    def check_ids(self, task: Task[Any], sample_ids: Sequence[str]) -> None:
        self.inner.check_ids(task, sample_ids)

    def report(self) -> dict[str, Any]:
        return self.inner.report()


class RayExecutor(Executor):
    """Scoring on a pool of :class:`Scorer` actors, model metrics on a :class:`MetricWorker`."""

    def __init__(self, task: Task[Any], settings: RunSettings) -> None:
        self.ray = import_ray()
        self.started = connect(settings.ray_address)
        self.token = uuid.uuid4().hex[:12]
        self.scorers: list[Any] = []
        self._idle: asyncio.Queue[Any] | None = None
        self._metrics: Any = None
        super().__init__(task, settings)

    def _pool(self) -> asyncio.Queue[Any]:
        if self._idle is None:
            cpus = self.ray.cluster_resources().get("CPU", 1.0)
            count = self.settings.render_workers or max(1, int(cpus))
            # more scorers than CPUs share them: an actor that cannot be placed would wait forever
            actor = self.ray.remote(Scorer)
            self.scorers = [
                actor.options(name=f"svgeval-scorer-{self.token}-{index}", namespace=NAMESPACE,
                              num_cpus=min(1.0, cpus / count))
                .remote(self.task, self.settings)
                for index in range(count)
            ]
            self._idle = asyncio.Queue()
            for scorer in self.scorers:
                self._idle.put_nowait(scorer)
        return self._idle

    async def score(self, sample: Sample[Any], response: str) -> Outcome:
        idle = self._pool()
        scorer = await idle.get()
        try:
            result: Outcome = await scorer.score.remote(sample, response)
        except self.ray.exceptions.RayActorError as error:
            raise ExecutorError(
                f"a Ray scoring worker died while scoring {sample.id} ({type(error).__name__}); "
                "finished samples are kept: run again with --resume to complete the run"
            ) from None
        idle.put_nowait(scorer)
        return result

    def metric_backend(self) -> MetricBackend:
        self._stop_scorers()  # their CPUs go to the metric actor
        ray = self.ray
        if self._metrics is None:
            gpu = ray.cluster_resources().get("GPU", 0) >= 1
            # on CPU, a whole node: Ray gives torch as many threads as the actor has CPUs
            node_cpus = max(node["Resources"].get("CPU", 1.0) for node in ray.nodes()
                            if node["Alive"])
            where = {"num_gpus": 1} if gpu else {"num_cpus": node_cpus}
            self._metrics = ray.remote(MetricWorker).options(**where).remote(
                self.task, self.settings)
        worker = self._metrics
        return MetricBackend(
            self._metric_result(worker.batch_size.remote()),
            lambda items: list(self._metric_result(worker.batch_score.remote(items))),
            lambda groups: self._metric_result(worker.set_score.remote(groups)),
        )

    def _metric_result(self, pending: Any) -> Any:
        """The metric actor's answer; its death ends the run with one line (the batches done so
        far are in ``samples.jsonl``, and a resumed run computes only the rest)."""
        try:
            return self.ray.get(pending)
        except self.ray.exceptions.RayActorError as error:
            raise ExecutorError(
                f"the Ray model-metric worker died ({type(error).__name__}); finished batches "
                "are kept: run again with --resume to compute the rest"
            ) from None

    def limit(self, model: Model, concurrency: int) -> Model:
        key = endpoint_key(model)
        if key is None:
            return model
        return ClusterLimitedModel(model, endpoint_limiter(key, concurrency), self.token)

    def _stop(self, actors: Sequence[Any]) -> None:
        """Close each actor's renderer, then end the actor (one already dead is skipped)."""
        closing = [actor.close.remote() for actor in actors]
        for actor, done in zip(actors, closing):
            try:
                self.ray.get(done)
            except self.ray.exceptions.RayActorError:
                pass
            self.ray.kill(actor)

    def _stop_scorers(self) -> None:
        self._stop(self.scorers)
        self.scorers, self._idle = [], None

    def close(self) -> None:
        super().close()
        self._stop_scorers()
        if self._metrics is not None:
            self._stop([self._metrics])
        if self.started:
            self.ray.shutdown()
