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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from svgeval.runner.identity import RunConflict
from svgeval.runner.judging import judgment_cache
from svgeval.runner.records import Record, RecordKey, ResponseRecord, RunConfig, SampleRecord
from svgeval.runner.run_dir import RunDir, latest_by_key, rewrite_records, write_record
from svgeval.runner.runner import Resumed, Runner

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
