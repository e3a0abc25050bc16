"""The on-disk render cache and the run settings that select the renderer."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from svgeval.render.backends import make_renderer, renderer_version
from svgeval.render.cairo import RenderSpec, render_svg_uint8
from svgeval.render.disk_cache import RenderCache
from svgeval.render.picture import Picture, RenderFailure
from svgeval.runner.run_config import RunSettings
from svgeval.runner.run_dir import RecordAppender

SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><rect width="2" height="4"/></svg>'
SPEC = RenderSpec.square(8)


def test_cache_keys_on_svg_spec_and_renderer_version(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path, "cairosvg 2.9.1")
    image = render_svg_uint8(SVG, SPEC)
    assert cache.get(SVG, SPEC) is None
    cache.put(SVG, SPEC, Picture(image))
    assert np.array_equal(cache.get(SVG, SPEC).pixels, image)  # type: ignore[union-attr]
    assert cache.get(SVG, RenderSpec.square(9)) is None
    assert cache.get(SVG, RenderSpec.square(8, None)) is None
    assert RenderCache(tmp_path, "cairosvg 2.9.2").get(SVG, SPEC) is None
    assert not list(tmp_path.rglob("*.tmp"))
    with_alpha = render_svg_uint8(SVG, RenderSpec.square(8, None))
    cache.put(SVG, RenderSpec.square(8, None), Picture(with_alpha))
    kept = cache.get(SVG, RenderSpec.square(8, None))
    assert kept is not None and np.array_equal(kept.pixels, with_alpha)


def test_an_entry_of_the_wrong_size_is_a_miss(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path, "cairosvg 2.9.1")
    cache.put(SVG, SPEC, Picture(render_svg_uint8(SVG, SPEC)))
    entry = cache.path(SVG, SPEC)
    entry.write_bytes(entry.read_bytes()[:-1])  # cut short, e.g. by a full disk
    assert cache.get(SVG, SPEC) is None and cache.misses == 1


def test_renderer_reads_the_cache_instead_of_rendering(tmp_path: Path) -> None:
    with make_renderer("cairosvg", workers=1, cache_dir=tmp_path) as first:
        image = first.render(SVG, SPEC).floats
        failed = first.render("<svg", SPEC)
    assert first.cache is not None and first.cache.misses == 2 and first.cache.hits == 0
    assert isinstance(failed, RenderFailure) and len(list(tmp_path.rglob("*.u8"))) == 1
    with make_renderer("cairosvg", workers=1, cache_dir=tmp_path) as second:
        again = second.render(SVG, SPEC).floats
    assert second.cache is not None and second.cache.hits == 1
    assert again is not None and image is not None and np.array_equal(again, image)
    assert renderer_version("cairosvg").startswith("cairosvg ")


def test_renderer_is_part_of_the_run_identity() -> None:
    assert RunSettings().renderer == "cairosvg"
    assert RunSettings(renderer="resvg").renderer == "resvg"


def test_appender_flushes_each_line_and_syncs_on_close(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    log = RecordAppender(path, sync_interval_s=3600)
    for value in range(3):
        log.append(RunSettings(seed=value))
        assert len(path.read_text().splitlines()) == value + 1  # visible before any fsync
    log.close()
    log.close()
    assert len(path.read_text().splitlines()) == 3


def test_appender_flushing_in_groups_writes_every_line_by_close(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    log = RecordAppender(path, sync_interval_s=3600, flush_interval_s=3600)
    for value in range(5):
        log.append(RunSettings(seed=value))
    log.close()
    assert [RunSettings.model_validate_json(line).seed for line in path.read_text().splitlines()] == [
        0, 1, 2, 3, 4]


def test_appender_flushing_in_groups_never_writes_on_the_caller_s_thread(tmp_path: Path) -> None:
    log = RecordAppender(tmp_path / "log.jsonl", sync_interval_s=3600, flush_interval_s=0.001)
    handle, writers = log._handle, set()

    class Recording:
        def write(self, text: str) -> int:
            writers.add(threading.current_thread().name)
            return handle.write(text)

        def __getattr__(self, name: str) -> object:
            return getattr(handle, name)

    log._handle = Recording()  # type: ignore[assignment]
    for value in range(200):
        log.append(RunSettings(seed=value))
    writers_before_close = set(writers)
    log.close()
    assert writers_before_close <= {"svgeval-fsync"}
    lines = (tmp_path / "log.jsonl").read_text().splitlines()
    assert [RunSettings.model_validate_json(line).seed for line in lines] == list(range(200))
