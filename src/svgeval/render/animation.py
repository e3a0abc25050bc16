"""Animated SVG to frames in headless Chromium, with the isolation of :mod:`svgeval.render.isolated`.

:class:`BrowserRenderer` draws an SVG at the times of an :class:`AnimationSpec` (frame *i* at
``t = i / fps``; InternSVG's protocol is 5 s at 30 fps, 150 frames of 448x448) or one still frame.
Every call ends in a typed outcome, never an exception and never blank frames standing in for a
failure:

1. :func:`~svgeval.render.browser_policy.browser_document` checks the SVG first (the sanitiser's
   rules and the browser's own); a refusal is ``rejected:<reason>`` before any browser starts.
2. A worker process (:mod:`svgeval.render.browser_worker`) owns one chromedriver and one Chromium
   (:mod:`svgeval.render.browser_session`: no network, no file, no page scripts) for many renders.
3. The parent gives each render ``timeout_s`` of wall-clock time; past it, it kills the worker's
   whole process group and records ``timeout``. A worker that dies or reports an error is killed
   the same way (``crash``, ``render_error``). The next render starts a fresh worker. A render
   whose worker dies is made once more on a fresh one before its ``crash`` is recorded, as the
   render pool does (:mod:`svgeval.render.batch`): a browser killed from outside (the OOM killer,
   ``kill``) is not the SVG's doing, and its death can show only once the next request is sent.

A browser that cannot start is not a sample's failure: :class:`BrowserUnavailable` is raised
with one line (call :func:`check_browser` before a run to fail before any work).
"""

from __future__ import annotations

import contextlib
import functools
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TypeVar

import numpy as np
from typing_extensions import Self

import svgeval
from svgeval.render.browser_policy import browser_document
from svgeval.render.browser_session import BrowserPaths, find_browser
from svgeval.render.browser_session import BrowserUnavailable as BrowserUnavailable  # noqa: PLC0414
from svgeval.render.browser_session import PageSpec as PageSpec  # noqa: PLC0414 (re-exported)
from svgeval.render.browser_worker import (
    WORKER_COMMAND,
    FrameRequest,
    Ready,
    WorkerError,
    read_message,
    write_message,
)
from svgeval.render.cairo import RenderSpec
from svgeval.render.picture import Frames, Picture, Rendered, RenderFailure
from svgeval.svg.refusals import DEFAULT_LIMITS, SvgLimits, SvgRejected

DEFAULT_TIMEOUT_S = 60.0
"""Wall-clock time for one render call (InternSVG's 150 frames of 448x448 take a fraction of it)."""
DEFAULT_START_TIMEOUT_S = 60.0
"""Wall-clock time for a worker to start its browser."""
DRAWINGS_AT_ONCE = 4
"""Browsers (and threads) worth drawing animations at once on any machine: a drawing mostly
waits on the browser's next frame, so several overlap even on 2 cores: four drew eight
animations faster than one or two did (``bench/RESULTS.md``)."""

T = TypeVar("T")
R = TypeVar("R")


def at_once(draw: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """``draw(item)`` of each item, in order, :data:`DRAWINGS_AT_ONCE` at a time (``draw``
    takes a browser of a renderer with that many workers)."""
    with ThreadPoolExecutor(DRAWINGS_AT_ONCE) as pool:
        return list(pool.map(draw, items))
CLOSE_GRACE_S = 5.0


def check_browser() -> BrowserPaths:
    """Where Chromium and chromedriver are; raises :class:`BrowserUnavailable` with one line
    naming ``apt-get install chromium chromium-driver`` and the ``browser`` extra."""
    return find_browser()


@functools.cache
def drawing_identity() -> str:
    """What decides the frames of an SVG besides the SVG and the page: the Chromium build
    (``chromium --version``) and svgeval's page and launch code (a digest of
    :mod:`~svgeval.render.browser_session`'s source), so that a cache keyed on it never serves
    frames another browser or another page drew."""
    import hashlib

    from svgeval.render import browser_session

    version = subprocess.run([find_browser().chromium, "--version"], capture_output=True,
                             text=True, timeout=30, check=False).stdout.strip()
    code = hashlib.sha256(Path(browser_session.__file__).read_bytes()).hexdigest()[:16]
    return f"{version} | browser_session {code}"


@dataclass(frozen=True)
class AnimationSpec:
    """Frames of an animation: page size, frame rate, duration and background.

    The defaults are InternSVG's (``utils/svg_animate.py``): 448x448, 30 fps, 5 s, white page,
    the ``<svg>`` normalised (see :class:`~svgeval.render.browser_session.PageSpec`).
    """

    width: int = 448
    height: int = 448
    fps: float = 30.0
    duration_s: float = 5.0
    background: str | None = "white"
    normalize: bool = True

    @property
    def page(self) -> PageSpec:
        return PageSpec(self.width, self.height, self.background, self.normalize)

    @property
    def times(self) -> tuple[float, ...]:
        """``i / fps`` for ``i < int(duration_s * fps)``, as InternSVG counts its frames."""
        return tuple(index / self.fps for index in range(int(self.duration_s * self.fps)))


class BrowserRenderer:
    """Isolated, time-limited Chromium rendering of animated (and still) SVG.

    ``workers`` browsers serve the calling threads (each call takes a free one); each starts on
    its first render. ``sandbox`` keeps Chromium's sandbox (default: on unless running as
    root, where Chromium refuses it). Use as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        workers: int = 1,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        *,
        start_timeout_s: float = DEFAULT_START_TIMEOUT_S,
        sandbox: bool | None = None,
        limits: SvgLimits = DEFAULT_LIMITS,
    ) -> None:
        check_browser()
        self.timeout_s = timeout_s
        self.limits = limits
        sandboxed = os.geteuid() != 0 if sandbox is None else sandbox
        self._workers = [_Worker(sandboxed, start_timeout_s) for _ in range(max(workers, 1))]
        self._free: queue.Queue[_Worker] = queue.Queue()
        for worker in self._workers:
            self._free.put(worker)
        self._finalizer = weakref.finalize(self, _close_all, self._workers)

    def animate(self, svg: str | bytes, spec: AnimationSpec | None = None
                ) -> Frames | RenderFailure:
        """The frames of ``svg`` at ``spec.times`` (InternSVG's protocol by default)."""
        spec = spec or AnimationSpec()
        return self.frames(svg, spec.page, spec.times)

    def still(
        self, svg: str | bytes, spec: RenderSpec, t: float = 0.0, *, normalize: bool = True
    ) -> Rendered:
        """One frame at ``t`` seconds as a picture (or the failure), like
        :meth:`svgeval.render.isolated.Renderer.render`."""
        page = PageSpec(spec.width, spec.height, spec.background, normalize)
        drawn = self.frames(svg, page, (t,))
        return drawn if isinstance(drawn, RenderFailure) else Picture(drawn[0])

    def frames(self, svg: str | bytes, page: PageSpec, times: Sequence[float]
               ) -> Frames | RenderFailure:
        """Frames of ``svg`` on ``page`` at each of ``times`` (seconds); blocks the calling thread
        until a browser is free and has answered, or the time limit has passed."""
        try:
            document = browser_document(svg, self.limits)
        except SvgRejected as error:
            return RenderFailure("rejected", error.detail, error.reason)
        request = FrameRequest(document, page, tuple(times))
        worker = self._free.get()
        try:
            drawn = worker.render(request, self.timeout_s)
            if isinstance(drawn, RenderFailure) and drawn.kind == "crash":
                drawn = worker.render(request, self.timeout_s)  # once more (module doc)
        finally:
            self._free.put(worker)
        return drawn

    @property
    def start_seconds(self) -> list[float]:
        """How long each browser started so far took to start."""
        return [seconds for worker in self._workers for seconds in worker.start_seconds]

    @property
    def process_groups(self) -> list[int]:
        """The process group of each running worker (its chromedriver and Chromium included)."""
        return [worker.pid for worker in self._workers if worker.pid is not None]

    def close(self) -> None:
        """Stop every browser (the workers quit theirs; what is left is killed)."""
        self._finalizer()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _close_all(workers: list[_Worker]) -> None:
    for worker in workers:
        worker.close()


class _Worker:
    """One worker process and its browser, started when first needed."""

    def __init__(self, sandbox: bool, start_timeout_s: float) -> None:
        self.sandbox = sandbox
        self.start_timeout_s = start_timeout_s
        self.start_seconds: list[float] = []
        self._process: subprocess.Popen[bytes] | None = None
        self._profile: Path | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def render(self, request: FrameRequest, timeout_s: float) -> Frames | RenderFailure:
        if self._process is not None and self._process.poll() is not None:
            self.kill()  # ended between renders (killed from outside): not this SVG's doing
        process = self._process or self._start()
        assert process.stdin is not None and process.stdout is not None
        deadline = time.monotonic() + timeout_s
        try:
            write_message(process.stdin.fileno(), request, deadline)
            reply = read_message(process.stdout.fileno(), deadline)
        except TimeoutError:
            self.kill()
            return RenderFailure("timeout", f"browser render took longer than {timeout_s:g} s")
        except (EOFError, OSError):
            code = self.kill()
            return RenderFailure("crash", f"browser worker died (exit code {code})")
        if isinstance(reply, WorkerError):
            self.kill()
            return RenderFailure(reply.kind, reply.message)
        if not isinstance(reply, np.ndarray):
            self.kill()
            return RenderFailure("render_error", f"unexpected reply {type(reply).__name__}")
        return reply

    def _start(self) -> subprocess.Popen[bytes]:
        self._profile = Path(tempfile.mkdtemp(prefix="svgeval-chromium-"))
        package_root = str(Path(svgeval.__file__).resolve().parents[1])
        path = os.pathsep.join(filter(None, (package_root, os.environ.get("PYTHONPATH"))))
        command = [sys.executable, "-c", WORKER_COMMAND, str(os.getpid()),
                   str(self._profile), *(["--sandbox"] if self.sandbox else [])]
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True, env={**os.environ, "PYTHONPATH": path},
        )
        assert process.stdin is not None and process.stdout is not None
        os.set_blocking(process.stdin.fileno(), False)
        self._process = process
        try:
            reply = read_message(process.stdout.fileno(), time.monotonic() + self.start_timeout_s)
        except (TimeoutError, EOFError):
            self.kill()
            raise BrowserUnavailable(
                f"Chromium did not start within {self.start_timeout_s:g} s"
            ) from None
        if not isinstance(reply, Ready):
            self.kill()
            detail = reply.message if isinstance(reply, WorkerError) else repr(reply)
            raise BrowserUnavailable(f"Chromium did not start: {detail}")
        self.start_seconds.append(reply.seconds)
        return process

    def kill(self) -> int | None:
        """Kill the worker's process group; return the worker's exit code."""
        process, self._process = self._process, None
        if process is None:
            return None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        code = process.wait()
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()
        if self._profile is not None:
            shutil.rmtree(self._profile, ignore_errors=True)
        return code

    def close(self) -> None:
        """Ask the worker to quit its browser (end of its input), then kill what is left."""
        process = self._process
        if process is None:
            return
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(CLOSE_GRACE_S)
        self.kill()
