"""Shared fixtures: one render pool per test session, SVGEditBench cases from the demo icons."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

# No model hub is reachable from the tests: set before huggingface_hub is imported (it reads this
# once), so that a weights lookup fails at once instead of retrying with backoff.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# pytest-xdist runs more test processes than the CI machine has cores (Makefile): one math
# thread each (torch's OpenMP pool, numpy's OpenBLAS), inherited by the processes the tests
# start, where each test process's default pool (a thread a core) spins on cores the other
# processes need (the times with and without: docs/development.md).
if "PYTEST_XDIST_WORKER" in os.environ:
    for threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(threads, "1")

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
    tiny_lpips_dir,
    tiny_siglip_dir,
    tiny_text_encoder_dir,
    torchvision_inception_weights,
)
from support.tiny_viclip import tiny_viclip_dir

from svgeval.builders.svgeditbench.builder import build_cases, write_release
from svgeval.render.isolated import Renderer
from svgeval.svg.demo_corpus import write_demo_corpus

FULL_SIZE_NETWORKS = frozenset({"inception_weights", "torchvision_inception_weights",
                                "i3d_weights"})
"""Fixtures of full-size networks with random weights (Inception v3 at 299 px, I3D at 224 px:
seconds a picture or a clip on a CPU core)."""

CHROMIUM = frozenset({"chromium", "browser"})
"""Fixtures of headless Chromium (``tests/render/conftest.py``, ``tests/report/conftest.py``):
a test that needs one starts a browser of its own, or checks what happens when it cannot."""

END_TO_END_FIXTURES = FULL_SIZE_NETWORKS | CHROMIUM
"""A test that uses one of these is end to end (``e2e``): `make test` runs it, `make
test-fast` leaves it out (docs/development.md)."""


@pytest.hookimpl(tryfirst=True)  # before `-m` selects on the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests of :data:`END_TO_END_FIXTURES` end to end, then put the modules holding an
    end-to-end test first, each module's tests in their order: with `--no-loadscope-reorder`
    (`make test`) pytest-xdist hands out its units (a module, or a class) in this order, and the
    long ones started last left one or two workers running alone for the last minutes."""
    for item in items:
        if END_TO_END_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)
    long_modules = {item.path for item in items if item.get_closest_marker("e2e")}
    items.sort(key=lambda item: item.path not in long_modules)  # stable


@pytest.fixture(scope="session")
def renderer() -> Iterator[Renderer]:
    with Renderer(workers=2, timeout_s=10.0) as pool:
        yield pool


@pytest.fixture(scope="session")
def demo_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built-in icons (``icons/``) and the SVGEditBench cases built from them in the release
    layout (``data/``), built once a session; tests use :func:`demo_data`'s copy."""
    root = tmp_path_factory.mktemp("demo_release")
    names = write_demo_corpus(root / "icons")
    cases = build_cases(sorted((root / "icons").glob("*.svg")), names=names)
    write_release(cases, root / "data")
    return root


@pytest.fixture()
def demo_data(demo_release: Path, tmp_path: Path) -> Path:
    """SVGEditBench cases (72) built from the built-in icons, in the release layout: the test's
    own copy of :func:`demo_release` (``tmp_path / "data"``, the icons in ``tmp_path / "icons"``),
    which it may change."""
    for name in ("icons", "data"):
        shutil.copytree(demo_release / name, tmp_path / name)
    return tmp_path / "data"


__all__ = ["demo_data", "demo_release", "i3d_weights", "inception_weights", "renderer", "tiny_chat_llm", "tiny_chat_vlm", "tiny_clip_dir",
           "tiny_dino_dir", "tiny_dreamsim_dir", "tiny_hps_dir", "tiny_longclip_dir", "tiny_lpips_dir", "tiny_siglip_dir",
           "tiny_text_encoder_dir", "tiny_viclip_dir", "torchvision_inception_weights"]
