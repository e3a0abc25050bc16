"""PNG renders of the SVGs a report shows, written once into a folder beside the page.

Every SVG, the model's above all, is rendered inside the isolated :class:`Renderer` (sanitized,
time- and memory-limited worker processes), and only the PNG bytes come back, so a hostile SVG
reaches the page as pixels or as a failure message, never as markup. A render is named by a
hash of its SVG code and size: the same SVG is drawn once however many samples show it (an
unchanged input and the identity model's answer), and a second build of the report reuses every
file already there. A render that fails is remembered the same way, in a ``.fail`` file holding
its reason.

A render the run itself could not make is not attempted again: :func:`run_failures` reads from
the records which answers failed to render and how (a timeout, the sanitizer's refusal), and
:meth:`RenderStore.render_all` shows that outcome for every SVG equal to such an answer (the
input an unchanged answer repeats included), so a report never waits again on what hung in
the run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from svgeval.render.cairo import RenderSpec, render_png
from svgeval.render.disk_cache import write_atomically
from svgeval.render.isolated import Renderer
from svgeval.render.picture import RenderFailure
from svgeval.report.sources import output_svg
from svgeval.runner.records import SampleRecord
from svgeval.tasks.outcome import FailureKind

REPORT_SPEC = RenderSpec.square(160)
"""Size of a report render: large enough to see a 72 px benchmark icon's detail."""


@dataclass(frozen=True)
class PageRender:
    """A render as the page refers to it: a PNG path relative to the page, or why there is
    none."""

    src: str | None = None
    error: str | None = None


@dataclass
class RenderCounts:
    """What a build did: renders drawn now, found from an earlier build, failed, and not
    attempted because they failed in the run."""

    drawn: int = 0
    reused: int = 0
    failed: int = 0
    failed_in_run: int = 0


def run_failures(records: Iterable[SampleRecord]) -> dict[str, str]:
    """The answers whose render failed in the run, each with how, as the store words its own
    failures (``timeout: ...``)."""
    failed = {}
    for record in records:
        failure, svg = record.failure, output_svg(record)
        if failure is not None and failure.kind == FailureKind.RENDER and svg is not None:
            how = f"{failure.reason or 'unknown'}: {failure.detail or 'no detail'}"
            failed[svg] = f"{how} (in the run; not drawn again)"
    return failed


class RenderStore:
    """Renders in ``folder``, named by content; the page refers to them as ``<prefix>/<name>``.

    ``workers`` and ``timeout_s`` configure the :class:`Renderer` started when something has
    to be drawn (none is started when every render exists already).
    """

    def __init__(
        self,
        folder: Path,
        prefix: str = "renders",
        spec: RenderSpec = REPORT_SPEC,
        workers: int | None = None,
        timeout_s: float = 10.0,
    ) -> None:
        self.folder = folder
        self.prefix = prefix
        self.spec = spec
        self.workers = workers
        self.timeout_s = timeout_s
        self.counts = RenderCounts()

    def key(self, svg: str) -> str:
        """The name of ``svg``'s render (without extension)."""
        size = f"{self.spec.width}x{self.spec.height}:{self.spec.background}\n"
        return hashlib.sha256((size + svg).encode("utf-8", "surrogatepass")).hexdigest()[:24]

    def _known(self, key: str) -> PageRender | None:
        png = self.folder / f"{key}.png"
        if png.exists():
            return PageRender(src=f"{self.prefix}/{png.name}")
        failed = self.folder / f"{key}.fail"
        if failed.exists():
            return PageRender(error=failed.read_text(encoding="utf-8"))
        return None

    def _store(self, key: str, png: bytes | RenderFailure) -> PageRender:
        if not isinstance(png, RenderFailure):
            write_atomically(self.folder / f"{key}.png", png)
            return PageRender(src=f"{self.prefix}/{key}.png")
        error = f"{png.tag}: {png.message}"
        write_atomically(self.folder / f"{key}.fail", error.encode("utf-8"))
        self.counts.failed += 1
        return PageRender(error=error)

    def render_all(
        self, svgs: Iterable[str], failed_in_run: Mapping[str, str] | None = None
    ) -> dict[str, PageRender]:
        """Every SVG's render by :meth:`key`, drawing only those not drawn before and not in
        ``failed_in_run`` (SVG -> how its render failed in the run, see :func:`run_failures`)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        todo: dict[str, str] = {}
        done: dict[str, PageRender] = {}
        failed_in_run = failed_in_run or {}
        for svg in svgs:
            key = self.key(svg)
            if key in done or key in todo:
                continue
            if svg in failed_in_run:
                done[key] = PageRender(error=failed_in_run[svg])
                self.counts.failed_in_run += 1
                continue
            known = self._known(key)
            if known is None:
                todo[key] = svg
            else:
                done[key] = known
                self.counts.reused += 1
        if todo:
            with Renderer(workers=self.workers, timeout_s=self.timeout_s) as renderer:
                threads = max(2, renderer.workers * 2)
                with ThreadPoolExecutor(max_workers=threads) as pool:
                    outcomes = pool.map(
                        lambda svg: renderer.call(render_png, svg, self.spec), todo.values()
                    )
                    for key, outcome in zip(todo, outcomes):
                        done[key] = self._store(key, outcome)
            self.counts.drawn += len(todo)
        return done

    def lookup(self, renders: dict[str, PageRender], svg: str | None) -> PageRender | None:
        """The render of ``svg`` from a :meth:`render_all` result (None for no SVG)."""
        return None if svg is None else renders[self.key(svg)]
