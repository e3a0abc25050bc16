"""A run's identity: the record of what was run, and the checks that keep runs comparable.

:func:`build_config` writes what a run is (task and options, data, model, settings, package
versions, dataset hash); two runs with the same :meth:`RunConfig.identity` are comparable and
one may resume the other. :func:`task_from_config` rebuilds a run's task for ``svgeval score``
and the reports.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svgeval import __version__
from svgeval.errors import UserError
from svgeval.models.base import AnswerSource
from svgeval.runner.judging import Judge
from svgeval.runner.run_config import RunConfig, RunSettings
from svgeval.tasks import get_task
from svgeval.tasks.base import CommonOptions, Sample, Task, target_json
from svgeval.tasks.builtin import BUILTIN
from svgeval.tasks.options import recorded_options


class RunConflict(UserError):
    """``--out`` already holds a different run, or a run that was not asked to resume."""


RESCORE_ADVICE = ("svgeval score scores a run on its own data with its own task version: pass "
                  "--data with the run's data, or use the svgeval version in its config.json")
"""What a refused ``svgeval score`` advises (a resume advises other arguments or --out)."""

VERSIONED_PACKAGES = ("cairosvg", "cairocffi", "lxml", "numpy", "pillow", "scikit-image")
"""Packages whose versions can change numbers; torch and transformers are added when loaded."""


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def prompt_hash(sample: Sample) -> str:
    """Hash of the messages sent for ``sample``; a cached response is reused only if it matches."""
    return _digest(sample.messages)[:16]


@dataclass(frozen=True)
class DatasetDigest:
    """What one read of a dataset's samples gives: its hash (:func:`dataset_hash`), its size,
    and the ids of the samples without each field an offline baseline answers with
    (:attr:`Model.answers_from <svgeval.models.base.Model.answers_from>`), which the run notes
    without reading a sample again."""

    hash: str
    count: int
    lacking: Mapping[AnswerSource, tuple[str, ...]]


def digest_samples(samples: Sequence[Sample]) -> DatasetDigest:
    """The :class:`DatasetDigest` of ``samples``, each read once.

    The hash is the digest of the JSON list of ``(id, group, messages, reference, target)``,
    fed one sample at a time (the same bytes as dumping the whole list, without holding them).
    """
    digest = hashlib.sha256(b"[")
    lacking: dict[AnswerSource, list[str]] = {"input_svg": [], "reference": []}
    count = 0
    for index, s in enumerate(samples):
        count += 1
        if s.input_svg is None:
            lacking["input_svg"].append(s.id)
        if not s.reference:
            lacking["reference"].append(s.id)
        item = json.dumps((s.id, s.group, s.messages, s.reference, target_json(s.target)),
                          sort_keys=True, ensure_ascii=False, default=str)
        digest.update(((", " if index else "") + item).encode("utf-8"))
    digest.update(b"]")
    return DatasetDigest(digest.hexdigest(), count,
                         {field: tuple(ids) for field, ids in lacking.items()})


def dataset_hash(samples: Sequence[Sample]) -> str:
    """Hash of every sample's id, group, prompt, reference and scoring target
    (:func:`digest_samples`)."""
    return digest_samples(samples).hash


def package_versions() -> dict[str, str]:
    """Versions of svgeval and of the packages that change numbers (torch and transformers
    only once something has imported them)."""
    versions = {"svgeval": __version__, "python": sys.version.split()[0]}
    loaded = [name for name in ("torch", "transformers") if name in sys.modules]
    for name in (*VERSIONED_PACKAGES, *loaded):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def task_options_record(task: Task) -> dict[str, Any]:
    """The task's options as JSON values: tier, seed and every ``--set`` option."""
    options = {
        key: str(value) if isinstance(value, Path) else value
        for key, value in dataclasses.asdict(task.options).items()
    }
    return {"tier": task.common.tier, "seed": task.common.seed, "set": options}


def build_config(
    task: Task,
    model: str,
    base_url: str | None,
    settings: RunSettings,
    dataset: DatasetDigest,
    judge: Judge | None = None,
) -> RunConfig:
    """The record of a run of the model ``model`` (its spec) at ``base_url`` (an HTTP model's
    endpoint); ``dataset`` is the digest of the whole dataset (before ``--limit``)."""
    data = task.common.data
    return RunConfig(
        task=task.name,
        task_version=task.version,
        model=model,
        base_url=base_url,
        judge=judge.spec if judge is not None else None,
        judge_base_url=judge.base_url if judge is not None else None,
        task_options=task_options_record(task),
        data=(BUILTIN if task.uses_builtin
              else str(data.expanduser().resolve()) if data is not None else None),
        settings=settings,
        n_samples=dataset.count,
        dataset_hash=dataset.hash,
        versions=package_versions(),
    )


def _leaves(name: str, mine: Any, theirs: Any) -> Iterator[tuple[str, Any, Any]]:
    """The differing values under ``name``, nested options one by one (``task_options.set.x``)."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for key in dict.fromkeys([*mine, *theirs]):
            if mine.get(key) != theirs.get(key):
                yield from _leaves(f"{name}.{key}", mine.get(key), theirs.get(key))
    else:
        yield name, mine, theirs


def identity_differences(old: RunConfig, new: RunConfig) -> list[str]:
    """Each field of the identity that differs, with both values: ``model "identity" in the
    directory, "oracle" now`` (a dataset hash cut to 12 characters)."""
    before, after = old.identity(), new.identity()
    lines = []
    for key in (key for key in after if before[key] != after[key]):
        for name, mine, theirs in _leaves(key, before[key], after[key]):
            if key == "dataset_hash":
                mine, theirs = str(mine)[:12], str(theirs)[:12]
            shown = [json.dumps(value, ensure_ascii=False, default=str) for value in (mine, theirs)]
            lines.append(f"{name} {shown[0]} in the directory, {shown[1]} now")
    return lines


def check_resumable(old: RunConfig, new: RunConfig, root: Path,
                    advice: str = "resume with the same arguments or choose another --out") -> None:
    """Refuse to resume a run of another identity, naming each difference with both values
    and ending with ``advice``, or another ``--shard`` of the same run."""
    differing = identity_differences(old, new)
    if differing:
        raise RunConflict(f"{root} holds a run with a different {'; '.join(differing)}; {advice}")
    if old.settings.shard != new.settings.shard:
        held = f"shard {old.settings.shard}" if old.settings.shard else "every shard"
        flag = f"--shard {old.settings.shard}" if old.settings.shard else "no --shard"
        raise RunConflict(
            f"{root} holds {held} of this run; resume with {flag} or choose another --out "
            "(svgeval merge combines shards)"
        )



def task_from_config(config: RunConfig, data: Path | None = None) -> Task:
    """The task of a run with the run's options; ``data`` replaces the recorded data folder."""
    options = config.task_options
    task = get_task(config.task)
    where = data if data is not None else (Path(config.data) if config.data else None)
    common = CommonOptions(data=where, seed=int(options.get("seed", 0)),
                           tier=str(options.get("tier", "all")),
                           model_paths=dict(config.settings.model_paths))
    return task(common, recorded_options(task.Options, options.get("set", {})))
