"""``svgeval merge``: run directories of one run (its ``--shard`` slices, or runs that overlap)
combined into one run directory, with nothing lost and nothing twice.

Every directory must hold the same run: equal :meth:`RunConfig.identity` (task and version,
task options, dataset hash, model, judge, sampling settings); otherwise the merge stops with
one line naming the first differing field and the two directories. The shard, ``--limit`` and
``--epochs`` may differ: the merged ``config.json`` has no shard, the largest limit (none if
any directory had none) and the most epochs, and the earliest start time.

Records are united by key: a sample's or a response's (sample id, epoch), a judge reply's
request hash. The last record of a key within one directory counts, as on ``--resume``. A key
in several directories is kept once when its records agree on everything but ``created_at``
and ``timing``; a sample the run would do again on ``--resume`` (its request or a judge's
failed) gives way to a finished one; finished records that disagree (two shards that answered
the same unit differently) stop the merge with one line naming the unit, the field and the two
directories. Judge replies merge as a cache (:func:`~svgeval.runner.judging.judgment_cache`):
a reply beats a failure. Records are written by epoch, then sample id, so the same inputs give
the same files in any order.

``results.json`` is then made by :meth:`Runner.finish` from the records as they are (batched
metric values they carry are kept; set-level metrics are computed again over the union), with
``n_missing`` and ``complete: false`` when units are missing.

All of it is written into a hidden folder beside the output, ``.OUT.merging``
(:func:`scratch_dir`), which :func:`put_in_place` renames to ``OUT`` once the merge has
succeeded: a killed merge leaves ``OUT`` as it was (absent, or the run it held). An existing
``OUT`` (``--force``) is first renamed to ``.OUT.replaced``; after the rename the files in it
that are not run files (a report, notes) are moved into the new ``OUT`` and the rest is
deleted. :func:`recover` tidies what a merge killed in the middle of that left: it puts the old
``OUT`` back if the new one never arrived, carries its other files over otherwise, and deletes
an unfinished ``.OUT.merging``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from svgeval.runner.identity import RunConflict
from svgeval.runner.judging import judgment_cache
from svgeval.runner.records import Record, RecordKey, ResponseRecord, SampleRecord
from svgeval.runner.resume import Resumed
from svgeval.runner.run_config import RunConfig
from svgeval.runner.run_dir import (
    RUN_FILES,
    RunDir,
    latest_by_key,
    rewrite_records,
    write_record,
)
from svgeval.runner.runner import Runner

IGNORED = {"created_at", "timing"}
"""Fields two copies of a record may differ in (when and how fast it was made)."""

SHOWN = 40
"""Characters of a differing value shown in an error."""

R = TypeVar("R", SampleRecord, ResponseRecord)


class MergeConflict(RunConflict):
    """The directories hold different runs, or disagree about a unit."""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def read_configs(roots: Sequence[Path]) -> list[RunConfig]:
    """The ``config.json`` of each directory, all of one run (else :class:`MergeConflict`)."""
    configs = []
    for root in roots:
        config = RunDir(root).read_config()
        if config is None:
            raise MergeConflict(f"{root} has no config.json; is it a run directory?")
        configs.append(config)
    first = configs[0].identity()
    for root, config in zip(roots[1:], configs[1:]):
        other = config.identity()
        field = next((key for key in first if first[key] != other[key]), None)
        if field is not None:
            raise MergeConflict(
                f"{roots[0]} and {root} are not one run: {field} differs "
                f"({_shown(first[field])} vs {_shown(other[field])}); merge only shards of one run"
            )
    return configs


def merged_config(configs: Sequence[RunConfig]) -> RunConfig:
    """The config of the union: no shard, the largest limit and epochs, the first start."""
    limits = [config.settings.limit for config in configs]
    settings = configs[0].settings.model_copy(
        update={
            "shard": None,
            "limit": None if None in limits else max(limit or 0 for limit in limits),
            "epochs": max(config.settings.epochs for config in configs),
        }
    )
    start = min(config.created_at for config in configs)
    return configs[0].model_copy(update={"settings": settings, "created_at": start})


def _content(record: Record) -> dict[str, Any]:
    return {k: v for k, v in record.model_dump(mode="json").items() if k not in IGNORED}


def _unite(
    sources: Sequence[tuple[Path, Sequence[R]]], name: str, finished: Callable[[R], bool]
) -> list[R]:
    """The records of every source by key (see the module's docstring)."""
    kept: dict[RecordKey, tuple[Path, R]] = {}
    for root, records in sources:
        for key, record in latest_by_key(records).items():
            if key not in kept or (finished(record) and not finished(kept[key][1])):
                kept[key] = (root, record)
                continue
            first_root, first = kept[key]
            before, after = _content(first), _content(record)
            field = next((k for k in before if before[k] != after.get(k)), None)
            if field is not None and finished(record):
                raise MergeConflict(
                    f"{name} {key[0]} epoch {key[1]} differs between {first_root} and {root} "
                    f"({field}: {_shown(before[field])} vs {_shown(after[field])}); "
                    "these shards answered it differently: merge one of them"
                )
    ordered = sorted(kept.values(), key=lambda item: (item[1].epoch, item[1].id))
    return [record for _, record in ordered]


def merge_run_dirs(roots: Sequence[Path], out: RunDir) -> RunConfig:
    """Write the union of the run directories ``roots`` into ``out`` (all but ``results.json``,
    see :meth:`Runner.finish`) and return its config."""
    config = merged_config(read_configs(roots))
    dirs = [RunDir(root) for root in roots]
    samples = _unite(
        [(d.root, d.read_samples()) for d in dirs], "sample", lambda record: record.finished
    )
    responses = _unite(
        [(d.root, d.read_responses()) for d in dirs], "response", lambda record: True
    )
    judgments = judgment_cache(record for d in dirs for record in d.read_judgments())
    out.root.mkdir(parents=True, exist_ok=True)
    write_record(out.config, config)
    rewrite_records(out.responses, responses)
    rewrite_records(out.samples, samples)
    if judgments:
        rewrite_records(out.judgments, judgments.values())
    return config


def merged_work(runner: Runner, config: RunConfig) -> Resumed:
    """The work units of the merged run ``config`` and the records of them in the runner's
    directory, for :meth:`Runner.finish` (checks that the data still has the run's hash)."""
    units = runner.prepare_rescore(config).units
    records = latest_by_key(runner.run_dir.read_samples())
    return Resumed(units, {}, {unit.key: records[unit.key] for unit in units if unit.key in records})


def scratch_dir(out: Path) -> Path:
    """The hidden folder a merge into ``out`` is written in before it becomes ``out``."""
    out = out.resolve()
    return out.with_name(f".{out.name}.merging")


def _aside_dir(out: Path) -> Path:
    out = out.resolve()
    return out.with_name(f".{out.name}.replaced")


def _carry_over(old: Path, new: Path) -> None:
    """Move the entries of ``old`` that are not run files into ``new``, then delete ``old``."""
    for entry in old.iterdir():
        is_run_file = any(entry.name.startswith(name) for name in RUN_FILES)
        if not is_run_file and not (new / entry.name).exists():
            os.replace(entry, new / entry.name)
    shutil.rmtree(old)


def recover(out: Path) -> str | None:
    """Tidy what a merge into ``out`` killed in the middle left; a note when ``out`` changed."""
    aside, note = _aside_dir(out), None
    if aside.exists():
        if out.exists():
            _carry_over(aside, out)
        else:
            os.replace(aside, out)
            note = f"{out}: put back, as a merge killed while replacing it left it"
    shutil.rmtree(scratch_dir(out), ignore_errors=True)
    return note


def put_in_place(scratch: Path, out: Path) -> None:
    """Rename the finished merge ``scratch`` to ``out``; an existing ``out`` is replaced (its
    run files deleted, its other files carried over)."""
    if not out.exists():
        os.replace(scratch, out)
        return
    aside = _aside_dir(out)
    os.replace(out, aside)
    os.replace(scratch, out)
    _carry_over(aside, out)
