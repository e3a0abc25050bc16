"""Helpers for the SVGenius tests: the shared release and end-to-end runs through the runner."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from support.shared_paths import shared_release

from svgeval.models.base import Model
from svgeval.runner import RunDir, Runner, RunSettings
from svgeval.tasks.base import CommonOptions, Task


def svgenius_root() -> Path:
    """The shared SVGenius release (the test is skipped when it is absent)."""
    root: Path = shared_release("svgenius")
    return root


def released_items(relative: str) -> list[Any]:
    """A released task file, e.g. ``editing/bug_fixion/hard_errors_dataset.json``."""
    path = svgenius_root() / "src" / "tasks" / relative
    items: list[Any] = json.loads(path.read_text(encoding="utf-8"))
    return items


def run_task(
    task_class: type[Task],
    model: Model,
    out: Path,
    *,
    data: Path | None = None,
    tier: str = "all",
    extra: Mapping[str, str] | None = None,
    render_timeout_s: float = 10.0,
    limit: int | None = None,
) -> dict[str, Any]:
    """Run ``task_class`` with ``model`` through the runner; returns ``results.json``."""
    options = CommonOptions(data=data or svgenius_root(), tier=tier, extra=dict(extra or {}))
    settings = RunSettings(render_workers=2, render_timeout_s=render_timeout_s, limit=limit)
    runner = Runner(task_class(options), model, RunDir(out), settings)
    results = asyncio.run(runner.run(runner.prepare(resume=False)))
    return results.model_dump(mode="json")


def sample_records(out: Path) -> list[dict[str, Any]]:
    """The ``samples.jsonl`` lines of a run directory."""
    lines = (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]
