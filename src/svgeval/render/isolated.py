"""Run renders in worker processes so that no SVG can take the run down.

:class:`Renderer` keeps a pool of worker processes (:mod:`svgeval.render.pool`: pebble,
forkserver start method, rebuilt when it breaks). Each render has a limit of CPU time (and a
longer one of wall-clock time, for a machine too busy to give it any) and each worker an
address-space limit; a render that runs too long is killed at its limit, one that crashes
the worker (SIGSEGV in a native renderer, out of memory) loses only that worker, which is
replaced. Every outcome is a :data:`~svgeval.render.picture.Rendered`: either a
:class:`~svgeval.render.picture.Picture` or a :class:`~svgeval.render.picture.RenderFailure`,
never a blank image standing in for a failure. The one exception is svgeval's own:
:class:`~svgeval.render.pool.RenderWorkersLost` when no worker can run here, which is never an
SVG's outcome. Renders asked for at the same time travel
to the workers in chunks (:mod:`svgeval.render.batch`); an SVG drawn before in the run is not drawn
again (:mod:`svgeval.render.memo`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from types import TracebackType
from typing import Any, TypeVar

from typing_extensions import Self

from svgeval.render.batch import CallAttempts, RenderBatcher, failure_from, retried
from svgeval.render.batch import RenderFunction as RenderFunction  # noqa: PLC0414 (re-exported)
from svgeval.render.cairo import RenderSpec, render_svg_uint8
from svgeval.render.disk_cache import RenderCache
from svgeval.render.memo import RenderMemo, render_key
from svgeval.render.picture import Picture, Rendered, RenderFailure
from svgeval.render.pool import RenderWorkersLost as RenderWorkersLost  # noqa: PLC0414
from svgeval.render.pool import WorkerPool, is_pool_loss

T = TypeVar("T")

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MEMORY_MB = 2048


class Renderer:
    """Isolated, time-limited CairoSVG rendering shared by all samples of a run.

    ``workers`` defaults to the number of CPUs. ``render_function`` is CairoSVG by default; another
    renderer runs inside the same isolation. Use as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        workers: int | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        memory_mb: int = DEFAULT_MEMORY_MB,
        *,
        render_function: RenderFunction = render_svg_uint8,
        cache: RenderCache | None = None,
    ) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.timeout_s = timeout_s
        self.cache = cache
        """Successful renders are read from and written to ``cache`` (see render_cache)."""
        self.memo = RenderMemo()
        """This renderer's renders kept in memory (see render_memo)."""
        self.render_function = render_function
        """What draws each SVG in the workers (a function of an importable module: the workers do
        not run the main script)."""
        self._renderer_id = f"{render_function.__module__}.{render_function.__qualname__}"
        self._pool = WorkerPool(self.workers, memory_mb)
        self._batcher = RenderBatcher(self._pool.schedule, self.workers, timeout_s,
                                      render_function)

    def render(self, svg: str | bytes, spec: RenderSpec) -> Rendered:
        """Render one SVG: its picture or its failure; blocks the calling thread until the
        worker answers or times out.

        An SVG this renderer drew before (or is drawing for another thread) with the same spec
        is not drawn again (see :mod:`~svgeval.render.memo`).
        """
        return self.draw_all([svg], spec)[0]

    def draw_all(self, svgs: Sequence[str | bytes], spec: RenderSpec) -> list[Rendered]:
        """The pictures of ``svgs`` at ``spec`` or their failures: :meth:`draw_each` of every
        SVG with the one spec."""
        return self.draw_each([(svg, spec) for svg in svgs])

    def draw_each(self, drawings: Sequence[tuple[str | bytes, RenderSpec]]) -> list[Rendered]:
        """The picture of each ``(svg, spec)`` or its failure, as :meth:`render` draws it,
        every render started before the first is awaited: a scorer that needs two renders (an
        answer and the reference) waits once, not twice, and its thread is woken once (the
        wake-ups of the scoring threads cost much of a run's own CPU: ``bench/RESULTS.md``); a
        batch whose SVGs each have their own size is drawn side by side too. Read each picture's :attr:`~svgeval.render.picture.Picture.floats`
        when it is compared, one at a time (a batch's renders in float64 would hold eight times
        their bytes at once)."""
        keys = [render_key(svg, spec, self._renderer_id) for svg, spec in drawings]
        from_workers: set[int] = set()

        def start(index: int) -> Future[Rendered]:
            svg, spec = drawings[index]
            cached = self.cache.get(svg, spec) if self.cache is not None else None
            if cached is None:
                from_workers.add(index)
                return self.submit(svg, spec)
            done: Future[Rendered] = Future()
            done.set_result(cached)
            return done

        drawn = self.memo.get_or_render_many(keys, start)
        for index in from_workers:
            image = drawn[index]
            if self.cache is not None and isinstance(image, Picture):
                self.cache.put(*drawings[index], image)
        return drawn

    def submit(self, svg: str | bytes, spec: RenderSpec) -> Future[Rendered]:
        """Render in a worker, with other renders asked for meanwhile (see :mod:`.batch`);
        neither the memo nor the disk cache is read."""
        return self._batcher.submit(svg, spec)

    def call(self, function: Callable[..., T], *args: Any) -> T | RenderFailure:
        """Run ``function(*args)`` in a worker with the same time and memory limits as a render.

        For any code that renders untrusted SVG itself (PSS renders every path): a hang, crash
        or refusal becomes the :class:`RenderFailure` returned in place of the value, retried as a render is (a call whose
        worker dies, or that reached the wall-clock limit with CPU time to spare, is made once
        more; one a broken pool dropped is made again; see :mod:`svgeval.render.batch`). ``function`` must be importable by name from a module (not
        defined in the main script: workers do not run it) and its arguments picklable.
        Blocks the calling thread.
        """
        attempts = CallAttempts()
        while True:
            future = self._pool.schedule(function, args=args, timeout=self.timeout_s)
            try:
                result: T = future.result()
                return result
            except BaseException as error:  # every failure of untrusted input becomes a record
                if isinstance(error, (KeyboardInterrupt, SystemExit)):
                    raise
                if is_pool_loss(error):
                    continue  # the next schedule starts a new pool, or raises RenderWorkersLost
                if retried(attempts, error):
                    continue
                return failure_from(error, self.timeout_s)

    def close(self) -> None:
        self._batcher.close()
        self._pool.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self._pool.stop()


def render_many(renderer: Renderer, svgs: Sequence[str | bytes], spec: RenderSpec) -> list[
        Rendered]:
    """Render ``svgs`` with ``renderer``'s workers in chunks; results keep input order."""
    futures = [renderer.submit(svg, spec) for svg in svgs]
    return [future.result() for future in futures]
