"""What a running evaluation tells its user: done/total, ETA, tokens/s, retries, failures.

:class:`RunMonitor` counts what the runner reports (finished samples, retries, and the phases
after them: the model metrics, the set metrics such as FID) and renders one line. On a terminal the CLI shows it under a progress bar; when stdout is a log file,
:class:`PeriodicReporter` writes the line every ``interval_s`` seconds instead of nothing.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol

from typing_extensions import Self

from svgeval.runner.records import SampleRecord


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


class PhaseProgress(Protocol):
    """Told where a phase of the run that follows the samples stands (the metric stage's)."""

    def start(self, name: str, total: int, unit: str) -> None:
        """``name`` (e.g. ``model metrics (lpips, dino)``) begins, ``total`` ``unit`` to go."""

    def advance(self, done: int) -> None:
        """``done`` more of the current phase's units are finished."""


class NoProgress:
    """A :class:`PhaseProgress` that shows nothing (the API's runs)."""

    def start(self, name: str, total: int, unit: str) -> None:
        """Nothing."""

    def advance(self, done: int) -> None:
        """Nothing."""


@dataclass
class Phase:
    """One phase's counts and when it began."""

    name: str
    total: int
    unit: str
    started: float
    done: int = 0


class RunMonitor:
    """Counters of one run invocation; thread-safe (records arrive from the event loop, retries
    from the model backend)."""

    def __init__(
        self, total: int, already_done: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.total = total
        self.done = already_done
        self._start_done = already_done
        self._clock = clock
        self._started = clock()
        self.tokens = 0
        self.retries = 0
        self.failures: Counter[str] = Counter()
        self.phase: Phase | None = None
        """The phase after the samples now running, if any."""
        self._lock = threading.Lock()

    def start(self, name: str, total: int, unit: str) -> None:
        """A phase begins (:class:`PhaseProgress`): :meth:`line` shows it from now on."""
        with self._lock:
            self.phase = Phase(name, total, unit, self._clock())

    def advance(self, done: int) -> None:
        with self._lock:
            if self.phase is not None:
                self.phase.done += done

    def record(self, record: SampleRecord, asked: bool = True) -> None:
        """Count a finished sample; its tokens only when the model was ``asked`` for it now
        (not an answer from the run's cache)."""
        with self._lock:
            self.done += 1
            if asked and record.usage is not None:
                self.tokens += record.usage.completion_tokens
            if record.failure is not None:
                self.failures[record.failure.kind.value] += 1

    def retry(self) -> None:
        """Count a retried model request."""
        with self._lock:
            self.retries += 1

    def line(self) -> str:
        """E.g. ``120/600 samples · 2m00s · ETA 8m00s · 35.1 tok/s · 2 retries · failed:
        extract 3``; during a phase after the samples, that phase's, e.g. ``model metrics
        (lpips): 64/299 samples · 1m10s · ETA 4m17s``."""
        with self._lock:
            if self.phase is not None:
                return phase_line(self.phase, self._clock())
            elapsed = self._clock() - self._started
            finished_now = self.done - self._start_done
            parts = [f"{self.done}/{self.total} samples", _duration(elapsed)]
            if finished_now and self.done < self.total:
                eta = elapsed / finished_now * (self.total - self.done)
                parts.append(f"ETA {_duration(eta)}")
            if self.tokens and elapsed > 0:
                parts.append(f"{self.tokens / elapsed:.1f} tok/s")
            parts.append(f"{self.retries} retries")
            if self.failures:
                failed = ", ".join(f"{kind} {n}" for kind, n in sorted(self.failures.items()))
                parts.append(f"failed: {failed}")
            return " · ".join(parts)


def phase_line(phase: Phase, now: float) -> str:
    """``<name>: <done>/<total> <unit> · <elapsed> · ETA <left>``."""
    elapsed = now - phase.started
    parts = [f"{phase.name}: {phase.done}/{phase.total} {phase.unit}", _duration(elapsed)]
    if 0 < phase.done < phase.total:
        parts.append(f"ETA {_duration(elapsed / phase.done * (phase.total - phase.done))}")
    return " · ".join(parts)


class PeriodicReporter:
    """Writes ``monitor.line()`` every ``interval_s`` seconds from a background thread, and a
    last time on exit."""

    def __init__(
        self, monitor: RunMonitor, write: Callable[[str], None], interval_s: float = 30.0
    ) -> None:
        self._monitor = monitor
        self._write = write
        self._interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="svgeval-progress", daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self._interval_s):
            self._write(self._monitor.line())

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()
        self._write(self._monitor.line())
