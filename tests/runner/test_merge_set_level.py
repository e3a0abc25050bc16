"""A merge computes a task's set-level metrics again over the union of the shards, per epoch,
and keeps the per-sample values the records carry."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path

from svgeval.models.baselines import IdentityModel
from svgeval.run_request import Shard
from svgeval.runner import RunDir, Runner, RunSettings
from svgeval.runner.merge import merge_run_dirs, merged_work
from svgeval.runner.records import Results
from svgeval.tasks.base import BatchItem, CommonOptions, MetricContext
from svgeval.tasks.outcome import MetricValues
from svgeval.tasks.svgeditbench import SvgEditBench


class Counted(SvgEditBench):
    """SVGEditBench with a set-level metric: the number of samples scored in each group."""

    set_metrics = ("n_set",)

    def set_score(self, groups: Mapping[str, Sequence[BatchItem]], context: MetricContext) -> MetricValues:
        return MetricValues(metrics={f"{group}/n_set": float(len(items)) for group, items in groups.items()})


def settings(shard: Shard | None = None) -> RunSettings:
    return RunSettings(render_workers=1, limit=2, epochs=2, shard=shard)


def run(data: Path, out: Path, shard: Shard | None = None) -> Results:
    runner = Runner(Counted(CommonOptions(data=data)), IdentityModel(), RunDir(out), settings(shard))
    return asyncio.run(runner.run(runner.prepare(resume=False)))


def test_set_level_metrics_of_a_merge_are_those_of_the_whole_run(
    demo_data: Path, tmp_path: Path
) -> None:
    full = run(demo_data, tmp_path / "full")
    assert full.epochs is not None and full.epochs.metrics["2"]["crop_to_half/n_set"] == 2.0
    shards = [run(demo_data, tmp_path / f"s{i}", Shard(index=i, count=2)) for i in range(2)]
    assert any(shard.metrics.get("crop_to_half/n_set", 0.0) < 2.0 for shard in shards)
    out = RunDir(tmp_path / "merged")
    config = merge_run_dirs([tmp_path / "s0", tmp_path / "s1"], out)
    runner = Runner(Counted(CommonOptions(data=demo_data)), IdentityModel(), out, config.settings)
    merged = asyncio.run(runner.finish(merged_work(runner, config)))
    assert merged.complete and merged.n == full.n == 24
    assert merged.metrics == full.metrics and merged.stats == full.stats
    assert merged.epochs == full.epochs
