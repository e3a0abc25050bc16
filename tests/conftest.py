"""Shared fixtures: one render pool per test session, SVGEditBench cases from the demo icons."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

# No model hub is reachable from the tests: set before huggingface_hub is imported (it reads this
# once), so that a weights lookup fails at once instead of retrying with backoff.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest
from support.tiny_chat_models import tiny_chat_llm, tiny_chat_vlm
from support.tiny_models import (
    i3d_weights,
    inception_weights,
    tiny_clip_dir,
    tiny_dino_dir,
    tiny_dreamsim_dir,
    tiny_hps_dir,
    tiny_longclip_dir,
    tiny_siglip_dir,
    tiny_text_encoder_dir,
    torchvision_inception_weights,
)
from support.tiny_viclip import tiny_viclip_dir

from svgeval.builders.svgeditbench.builder import build_cases, write_release
from svgeval.render.isolated import Renderer
from svgeval.svg.demo_corpus import write_demo_corpus


@pytest.fixture(scope="session")
def renderer() -> Iterator[Renderer]:
    with Renderer(workers=2, timeout_s=10.0) as pool:
        yield pool


@pytest.fixture()
def demo_data(tmp_path: Path) -> Path:
    """SVGEditBench cases (72) built from the built-in icons, in the release layout."""
    names = write_demo_corpus(tmp_path / "icons")
    cases = build_cases(sorted((tmp_path / "icons").glob("*.svg")), names=names)
    write_release(cases, tmp_path / "data")
    return tmp_path / "data"


__all__ = ["demo_data", "i3d_weights", "inception_weights", "renderer", "tiny_chat_llm", "tiny_chat_vlm", "tiny_clip_dir",
           "tiny_dino_dir", "tiny_dreamsim_dir", "tiny_hps_dir", "tiny_longclip_dir", "tiny_siglip_dir",
           "tiny_text_encoder_dir", "tiny_viclip_dir", "torchvision_inception_weights"]
