"""Run a task against a model: concurrency, response cache, resume, and the run directory.

Model calls run concurrently on an asyncio loop (at most ``concurrency`` in flight); scoring runs
in a thread pool whose threads wait on the isolated render workers, so rendering uses every core.
Each finished sample is appended to ``samples.jsonl`` at once (see :mod:`svgeval.runner.run_dir`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from svgeval import __version__
from svgeval.models.base import GenerationRequest, Model, ModelError
from svgeval.runner.run_dir import (
    JsonlAppender,
    RunDir,
    latest_by_id,
    read_jsonl,
    rewrite_jsonl,
    write_json,
)
from svgeval.svg.isolation import Renderer
from svgeval.tasks.base import Sample, Task

MODEL_ERROR = "model_error"


class RunConflict(RuntimeError):
    """``--out`` already holds a different run, or a run that was not asked to resume."""


@dataclass(frozen=True)
class RunSettings:
    """Generation and execution settings shared by every task."""

    temperature: float | None = 0.0
    max_tokens: int | None = None
    seed: int | None = None
    concurrency: int = 8
    limit: int | None = None
    render_workers: int | None = None
    render_timeout_s: float = 10.0


@dataclass
class RunSummary:
    """What a run produced: the content of ``results.json``."""

    results: dict[str, Any]


@dataclass
class Resumed:
    """What a run starts from: its samples, cached responses, and records already finished."""

    samples: list[Sample]
    responses: dict[str, dict[str, Any]]
    done: dict[str, dict[str, Any]]


Progress = Callable[[dict[str, Any]], None]
"""Called with each finished sample record (the CLI advances its progress bar)."""


def select_samples(samples: Sequence[Sample], limit: int | None) -> list[Sample]:
    """The first ``limit`` samples of each group (all of them when ``limit`` is None)."""
    if limit is None:
        return list(samples)
    taken: dict[str, int] = {}
    selected = []
    for sample in samples:
        if taken.get(sample.group, 0) < limit:
            taken[sample.group] = taken.get(sample.group, 0) + 1
            selected.append(sample)
    return selected


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def prompt_hash(sample: Sample) -> str:
    """Hash of the messages sent for ``sample``; a cached response is reused only if it matches."""
    return _digest(sample.messages)[:16]


def dataset_hash(samples: Sequence[Sample]) -> str:
    """Hash of every sample's id, group, prompt, reference and scoring target."""
    return _digest(
        [(s.id, s.group, s.messages, s.reference, dict(s.target)) for s in samples]
    )


def build_config(task: Task, model: Model, settings: RunSettings, samples: Sequence[Sample]) -> (
    dict[str, Any]
):
    """The identity of a run: two runs with the same config are comparable and resumable."""
    options = asdict(task.options)
    options["data"] = str(options["data"]) if options["data"] is not None else None
    options["extra"] = dict(task.options.extra)
    return {
        "task": task.name,
        "task_version": task.version,
        "model": model.spec,
        "task_options": options,
        "settings": asdict(settings),
        "n_samples": len(samples),
        "dataset_hash": dataset_hash(samples),
        "svgeval_version": __version__,
    }


_COMPARED = ("task", "task_version", "model", "task_options", "dataset_hash")
_COMPARED_SETTINGS = ("temperature", "max_tokens", "seed", "limit")


def _check_resumable(old: Mapping[str, Any], new: Mapping[str, Any], root: Any) -> None:
    differing = [key for key in _COMPARED if old.get(key) != new.get(key)]
    differing += [
        f"settings.{key}"
        for key in _COMPARED_SETTINGS
        if old.get("settings", {}).get(key) != new["settings"][key]
    ]
    if differing:
        raise RunConflict(
            f"{root} holds a run with different {', '.join(differing)}; "
            "resume with the same arguments or choose another --out"
        )


def score_sample(task: Task, sample: Sample, response: str, renderer: Renderer) -> dict[str, Any]:
    """Score one response into a ``samples.jsonl`` record; a scorer crash becomes a failure."""
    try:
        score = task.score(sample, response, renderer)
        return {
            "valid": score.valid,
            "failure": score.failure,
            "detail": score.detail,
            "metrics": score.metrics,
            "extracted": score.extracted,
            "extraction_rule": score.extraction_rule,
            "not_computed": score.not_computed,
        }
    except Exception as error:  # noqa: BLE001 - a bug in a scorer must not take the run down
        last = traceback.format_exception_only(type(error), error)[-1].strip()
        return {"valid": False, "failure": "scorer_error", "detail": last, "metrics": {}}


class Runner:
    """Runs one task with one model into one run directory."""

    def __init__(
        self,
        task: Task,
        model: Model,
        run_dir: RunDir,
        settings: RunSettings,
        progress: Progress | None = None,
    ) -> None:
        self.task = task
        self.model = model
        self.run_dir = run_dir
        self.settings = settings
        self.progress = progress or (lambda record: None)

    def prepare(self, resume: bool) -> Resumed:
        """Load samples, write ``config.json``, and read back what an earlier run finished."""
        samples = select_samples(self.task.load(), self.settings.limit)
        config = build_config(self.task, self.model, self.settings, samples)
        old = self.run_dir.read_config()
        if self.run_dir.has_work() and not resume:
            raise RunConflict(
                f"{self.run_dir.root} already holds a run; pass --resume to continue it "
                "or choose another --out"
            )
        if old is not None:
            _check_resumable(old, config, self.run_dir.root)
        self.run_dir.root.mkdir(parents=True, exist_ok=True)
        write_json(self.run_dir.config, config)
        wanted = {sample.id for sample in samples}
        responses = {
            key: value
            for key, value in latest_by_id(read_jsonl(self.run_dir.responses)).items()
            if key in wanted
        }
        rewrite_jsonl(self.run_dir.responses, responses.values())
        done = {
            key: value
            for key, value in latest_by_id(read_jsonl(self.run_dir.samples)).items()
            if key in wanted and value.get("failure") != MODEL_ERROR
        }
        rewrite_jsonl(self.run_dir.samples, done.values())
        return Resumed(samples, responses, done)

    async def run(self, resumed: Resumed) -> RunSummary:
        """Generate and score every sample ``resumed`` lacks, then write ``results.json``."""
        samples, responses, done = resumed.samples, resumed.responses, resumed.done
        pending = [sample for sample in samples if sample.id not in done]
        summary = RunSummary(results={})
        semaphore = asyncio.Semaphore(max(1, self.settings.concurrency))
        response_log = JsonlAppender(self.run_dir.responses)
        sample_log = JsonlAppender(self.run_dir.samples)
        renderer = Renderer(self.settings.render_workers, self.settings.render_timeout_s)
        threads = ThreadPoolExecutor(max_workers=2 * renderer.workers)
        loop = asyncio.get_running_loop()

        async def handle(sample: Sample) -> None:
            cached = responses.get(sample.id)
            if cached is None or cached.get("prompt_hash") != prompt_hash(sample):
                async with semaphore:
                    cached = await self._generate(sample)
                if cached.get("error") is None:
                    response_log.append(cached)
            record = self._base_record(sample, cached)
            failed_call = cached.get("error") is not None
            response = "" if failed_call else cached["response"]
            record.update(
                await loop.run_in_executor(
                    threads, score_sample, self.task, sample, response, renderer
                )
            )
            if failed_call:  # scored as an empty answer, so the task's failure values apply
                record.update(valid=False, failure=MODEL_ERROR, detail=cached["error"])
            sample_log.append(record)
            done[sample.id] = record
            self.progress(record)

        try:
            jobs = [asyncio.ensure_future(handle(sample)) for sample in pending]
            try:
                await asyncio.gather(*jobs)
            except BaseException:
                for job in jobs:
                    job.cancel()
                await asyncio.gather(*jobs, return_exceptions=True)
                raise
        finally:
            threads.shutdown(wait=True)
            renderer.close()
            response_log.close()
            sample_log.close()
            ordered = [done[s.id] for s in samples if s.id in done]
            summary.results = self.write_results(ordered, complete=len(ordered) == len(samples))
            await self.model.aclose()
        return summary

    async def _generate(self, sample: Sample) -> dict[str, Any]:
        request = GenerationRequest(
            sample_id=sample.id,
            messages=sample.messages,
            temperature=self.settings.temperature,
            max_tokens=self.settings.max_tokens,
            seed=self.settings.seed,
            input_svg=sample.input_svg,
            reference=sample.reference,
        )
        entry: dict[str, Any] = {"id": sample.id, "prompt_hash": prompt_hash(sample)}
        started = time.perf_counter()
        try:
            generation = await self.model.generate(request)
        except ModelError as error:
            entry.update(error=str(error), latency_s=time.perf_counter() - started)
            return entry
        entry.update(
            response=generation.text,
            latency_s=generation.latency_s,
            usage=generation.usage,
            finish_reason=generation.finish_reason,
        )
        return entry

    def _base_record(self, sample: Sample, cached: Mapping[str, Any]) -> dict[str, Any]:
        record: dict[str, Any] = {
            "id": sample.id,
            "group": sample.group,
            "prompt": sample.messages,
            "prompt_hash": prompt_hash(sample),
            "response": cached.get("response"),
            "latency_s": cached.get("latency_s"),
            "usage": cached.get("usage") or {},
            "finish_reason": cached.get("finish_reason"),
        }
        return record

    def write_results(self, records: Sequence[Mapping[str, Any]], complete: bool) -> dict[str, Any]:
        """Aggregate ``records`` with the task's protocol and write ``results.json``."""
        aggregate = self.task.aggregate(records)
        results = {
            "task": self.task.name,
            "task_version": self.task.version,
            "model": self.model.spec,
            "n": len(records),
            "n_valid": sum(1 for r in records if r.get("valid")),
            "complete": complete,
            "metrics": aggregate.metrics,
            "counts": aggregate.counts,
            "svgeval_version": __version__,
        }
        if aggregate.not_computed:
            results["not_computed"] = aggregate.not_computed
        if self.model.report():
            results["model_report"] = self.model.report()
        write_json(self.run_dir.results, results)
        return results
