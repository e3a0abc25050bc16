"""Epochs and shards in pieces: pass@k against counting subsets, per-epoch numbers worked by
hand, a shard partition that does not depend on the Python process, seeds per epoch, and
records of one epoch that keep their old bytes."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from svgeval.run_request import Shard
from svgeval.runner.epochs import pass_at_k, pass_at_k_table, summarize
from svgeval.runner.records import SampleRecord
from svgeval.runner.run_config import RunConfig, RunSettings
from svgeval.runner.units import (
    WorkUnit,
    epoch_seed,
    read_ahead,
    shard_number,
    work_units,
)
from svgeval.tasks.base import CommonOptions, Sample
from svgeval.tasks.lazy import LazySamples, headers
from svgeval.tasks.svgenius.understanding import SvgeniusUnderstanding


def pass_at_k_by_counting(answers: list[bool], k: int) -> float:
    """The share of the k-subsets of ``answers`` that hold a correct one."""
    subsets = list(itertools.combinations(answers, k))
    return sum(any(subset) for subset in subsets) / len(subsets)


@pytest.mark.parametrize(("n", "c"), [(1, 0), (1, 1), (3, 1), (5, 2), (6, 0), (6, 6), (7, 3)])
def test_pass_at_k_is_the_share_of_k_subsets_with_a_correct_answer(n: int, c: int) -> None:
    answers = [True] * c + [False] * (n - c)
    for k in range(1, n + 1):
        assert pass_at_k(n, c, k) == pytest.approx(pass_at_k_by_counting(answers, k), abs=1e-12)


def test_pass_at_k_by_hand_and_its_bounds() -> None:
    assert pass_at_k(5, 2, 1) == pytest.approx(2 / 5)
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)  # 1 - C(3,2)/C(5,2)
    assert pass_at_k(5, 2, 4) == 1.0  # C(3,4) = 0: any 4 of 5 hold a correct one
    with pytest.raises(ValueError, match="1 <= k <= n"):
        pass_at_k(2, 0, 3)  # the released estimator would say 1.0 here


def understanding_record(sample_id: str, epoch: int, correct: bool) -> SampleRecord:
    value = 100.0 if correct else 0.0
    return SampleRecord(id=sample_id, epoch=epoch, group="easy", prompt=[], prompt_hash="h",
                        metrics={"acc": value, "semantic_acc": value, "n_unparsed": 0.0})


TASK = SvgeniusUnderstanding(CommonOptions())
# prompt a: right in epoch 1 only; prompt b: never right
RECORDS = [
    understanding_record(sample_id, epoch, sample_id == "a" and epoch == 1)
    for epoch in (1, 2, 3)
    for sample_id in ("a", "b")
]


def test_pass_at_k_of_a_pass_fail_metric_per_group() -> None:
    table = pass_at_k_table(TASK, RECORDS, epochs=3)
    # a: n=3, c=1: pass@1 = 1/3, pass@3 = 1; b: 0; mean over the two prompts, in percent
    assert table["easy/acc:pass@1"] == pytest.approx(100 * (1 / 3 + 0) / 2)
    assert table["easy/acc:pass@3"] == pytest.approx(100 * (1 + 0) / 2)
    assert table["easy/semantic_acc:pass@1"] == table["easy/acc:pass@1"]
    assert not any("n_unparsed" in key for key in table)  # a count, not pass/fail
    assert "easy/acc:pass@10" not in table  # more than the 3 answers each prompt has


def test_several_epochs_report_each_epoch_their_mean_and_spread() -> None:
    summary = summarize(TASK, RECORDS, {}, epochs=3)
    assert summary.epochs is not None
    per_epoch = [summary.epochs.metrics[e]["easy/acc"] for e in ("1", "2", "3")]
    assert per_epoch == [50.0, 0.0, 0.0]
    assert summary.metrics["easy/acc"] == pytest.approx(50 / 3)
    # sample standard deviation of (50, 0, 0): sqrt(((100/3)^2 + 2 (50/3)^2) / 2)
    assert summary.epochs.std["easy/acc"] == pytest.approx(((100 / 3) ** 2 / 2 + (50 / 3) ** 2)
                                                           ** 0.5)
    assert summary.stats["easy/acc"].n == 3
    assert summary.counts["easy"].n == 6
    assert summary.epochs.pass_at_k["easy/acc:pass@3"] == pytest.approx(50.0)


def test_one_epoch_reports_the_tasks_aggregate_unchanged() -> None:
    first = [record for record in RECORDS if record.epoch == 1]
    summary = summarize(TASK, first, {}, epochs=1)
    aggregate = TASK.aggregate(first)
    assert summary.metrics == aggregate.metrics and summary.epochs is None
    assert summary.stats["easy/acc"].stderr == aggregate.stats["easy/acc"].stderr


def config(shard: Shard | None = None, epochs: int = 1) -> RunConfig:
    return RunConfig(task="t", task_version="1", model="m", task_options={}, n_samples=50,
                     dataset_hash="d", versions={},
                     settings=RunSettings(epochs=epochs, shard=shard))


SAMPLES = [Sample(f"s{i}", "g", [], "", target={}) for i in range(50)]


def test_shards_partition_the_units_of_every_epoch() -> None:
    every = {unit.key for unit in work_units(SAMPLES, config(epochs=2))}
    assert len(every) == 100
    slices = [{u.key for u in work_units(SAMPLES, config(Shard(index=i, count=3), epochs=2))}
              for i in range(3)]
    assert set().union(*slices) == every and sum(map(len, slices)) == 100
    assert all(20 <= len(part) <= 47 for part in slices)  # a hash, not a split by order


@pytest.mark.e2e
def test_the_partition_does_not_depend_on_the_python_process() -> None:
    code = (
        "from svgeval.runner.run_config import RunConfig, RunSettings\n"
        "from svgeval.runner.units import shard_number\n"
        "c = RunConfig(task='t', task_version='1', model='m', task_options={}, n_samples=50,"
        " dataset_hash='d', versions={}, settings=RunSettings())\n"
        "print([shard_number(c, f's{i}', e, 3) for i in range(50) for e in (1, 2)])"
    )
    here = [shard_number(config(), f"s{i}", e, 3) for i in range(50) for e in (1, 2)]
    src = str(Path(__file__).resolve().parents[2] / "src")
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": src}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True).stdout
        assert json.loads(out) == here


def test_epoch_seeds() -> None:
    assert epoch_seed(5, 1) == 5 and epoch_seed(None, 3) is None
    seeds = [epoch_seed(5, epoch) for epoch in range(2, 50)]
    assert len(set(seeds)) == 48 and all(0 <= s < 2**31 for s in seeds if s is not None)
    assert seeds[0] == epoch_seed(5, 2) and epoch_seed(6, 2) != epoch_seed(5, 2)


def test_parse_shard() -> None:
    assert Shard.parse("1/4") == Shard(index=1, count=4) and str(Shard.parse(" 0 / 2 ")) == "0/2"
    for bad in ("2/2", "0/0", "x", "-1/2", "1/"):
        with pytest.raises(ValueError, match="--shard"):
            Shard.parse(bad)


def test_one_epoch_records_keep_their_bytes_and_old_lines_read() -> None:
    record = SampleRecord(id="a", group="g", prompt=[], prompt_hash="h", created_at="t")
    line = record.model_dump_json()
    assert '"epoch"' not in line and SampleRecord.model_validate_json(line).epoch == 1
    assert '"epoch":2' in record.model_copy(update={"epoch": 2}).model_dump_json()
    settings = json.loads(RunSettings().model_dump_json())
    assert "epochs" not in settings and "shard" not in settings
    assert RunSettings.model_validate(settings) == RunSettings()


def test_read_ahead_gives_every_unit_once_in_order_with_its_sample_read_off_the_loop() -> None:
    readers: set[int] = set()

    def build(index: int) -> Sample:
        readers.add(threading.get_ident())
        return SAMPLES[index]

    lazy = LazySamples(headers(SAMPLES), range(len(SAMPLES)), build)
    units = work_units(lazy, config(epochs=2))

    async def drain() -> list[tuple[WorkUnit, Sample] | None]:
        ready: asyncio.Queue[tuple[WorkUnit, Sample] | None] = asyncio.Queue(4)  # < READ_AHEAD
        producer = asyncio.ensure_future(read_ahead(units, ready, consumers=3))
        taken = [await ready.get() for _ in range(len(units) + 3)]
        await producer
        return taken

    taken = asyncio.run(drain())
    assert taken[-3:] == [None, None, None]
    pairs = [item for item in taken[:-3] if item is not None]
    assert [unit.key for unit, _ in pairs] == [unit.key for unit in units]
    assert all(sample.id == unit.sample_id for unit, sample in pairs)
    assert readers and threading.get_ident() not in readers
