"""Reference renders kept between calls are compressed and bounded in bytes (least recently used
evicted first), so a server that sees thousands of references stays within its budget."""

from __future__ import annotations

import tracemalloc

from cases import house

from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.memo import render_key
from svgeval.rewards import RewardScorer

MIB = 1024 * 1024


def references(n: int) -> list[str]:
    """``n`` distinct houses (roof colour and position vary)."""
    return [house(dx=k % 9, roof=f"#{(k * 2654435761) % 0xFFFFFF:06x}") for k in range(n)]


def test_reference_renders_take_a_fraction_of_their_raw_size(renderer: Renderer) -> None:
    """800 distinct references with the default settings: raw, their renders would hold
    800 x 48 KiB = 37.5 MiB (128 px RGB); kept compressed, under 6 MiB of memory stays."""
    refs = references(800)
    with RewardScorer("fast", renderer=renderer) as scorer:
        scorer.score(refs[:1], refs[:1])
        tracemalloc.start()
        for start in range(0, len(refs), 200):
            chunk = refs[start:start + 200]
            scorer.score(chunk, chunk)
        kept, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert kept < 6 * MIB, f"{kept / MIB:.1f} MiB kept"


def test_the_reference_cache_is_bounded_in_bytes_lru(renderer: Renderer) -> None:
    refs = references(300)
    spec = RenderSpec.square(128)
    with RewardScorer("fast", renderer=renderer, cache_bytes=100_000) as scorer:
        for start in range(0, len(refs), 50):
            chunk = refs[start:start + 50]
            scorer.score(chunk, chunk)
        scorer.score(refs[:1], refs[:1])  # drawn again, now the most recently used
        kept = scorer.references

        def is_kept(svg: str) -> bool:
            return kept.lookup(render_key(svg, spec, "render_svg_uint8")) is not None

        assert 0 < kept.size_bytes <= 100_000
        assert is_kept(refs[0]) and is_kept(refs[-1]) and not is_kept(refs[1])
