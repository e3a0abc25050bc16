"""An on-disk cache of successful renders, so a second run on the same data renders only its
own outputs (the references and originals are already there).

An entry's key is ``sha256(svg bytes) + width x height + background + renderer + version``
(e.g. ``cairosvg 2.9.1``): a new renderer version never serves an old render. An entry is the
render's raw ``uint8`` pixels (``.u8``; the spec in the key gives the shape: height x width x 3
on a background, x 4 without), written to a temporary file and renamed into place, so
concurrent runs and a kill never leave a partial entry; a file of the wrong size is a miss. Failures are not
cached: a timeout can depend on the machine's load.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from svgeval.render.cairo import RenderSpec
from svgeval.render.memo import render_key
from svgeval.render.picture import Picture


class RenderCache:
    """Renders of ``renderer`` (name and version, e.g. ``cairosvg 2.9.1``) under ``directory``."""

    def __init__(self, directory: Path | str, renderer: str) -> None:
        self.directory = Path(directory)
        self.renderer = renderer
        self.hits = self.misses = 0

    def path(self, svg: str | bytes, spec: RenderSpec) -> Path:
        name = render_key(svg, spec, self.renderer)
        return self.directory / name[:2] / f"{name}.u8"

    def get(self, svg: str | bytes, spec: RenderSpec) -> Picture | None:
        """The cached render, or None."""
        shape = (spec.height, spec.width, 4 if spec.background is None else 3)
        try:
            data = self.path(svg, spec).read_bytes()
        except OSError:
            data = b""
        if len(data) != shape[0] * shape[1] * shape[2]:
            self.misses += 1
            return None
        self.hits += 1
        return Picture(np.frombuffer(data, dtype=np.uint8).reshape(shape))

    def put(self, svg: str | bytes, spec: RenderSpec, picture: Picture) -> None:
        """Store a successful render (atomically)."""
        write_atomically(self.path(svg, spec), picture.pixels.tobytes())


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` (its folder made if missing) through a file of its own beside
    it, renamed into place: concurrent writers and a kill never leave a partial file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(scratch, path)
    except BaseException:
        Path(scratch).unlink(missing_ok=True)
        raise
