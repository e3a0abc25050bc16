"""Run a task against a model: concurrency, response cache, resume, and the run directory.

Model calls run concurrently on an asyncio loop (at most ``concurrency`` in flight); scoring runs
in a thread pool whose threads wait on the isolated render workers, so rendering uses every core.
Each finished sample is appended to ``samples.jsonl`` at once (see :mod:`svgeval.runner.run_dir`).

A run's identity (:meth:`RunConfig.identity`) is its task, data, prompts, model and sampling
settings; ``--limit`` is not part of it, so a smoke run grows into a full run with ``--resume``
and a larger limit, reusing every answer already paid for. :meth:`Runner.rescore` scores the
cached answers again without a model and replaces ``samples.jsonl`` only once it is complete.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from svgeval import __version__
from svgeval.models.base import GenerationRequest, Model, ModelError
from svgeval.runner.executors import make_executor
from svgeval.runner.identity import (
    RunConflict,
    build_config,
    check_resumable,
    package_versions,
    prompt_hash,
)
from svgeval.runner.judging import Judge, Judging, check_image_inputs, judgment_cache
from svgeval.runner.records import (
    MetricSummary,
    ResponseRecord,
    Results,
    RunConfig,
    SampleRecord,
    Settings,
    Timing,
    Usage,
    UsageTotals,
)
from svgeval.runner.run_dir import (
    RecordAppender,
    RunDir,
    latest_by_id,
    rewrite_records,
    write_record,
)
from svgeval.tasks.base import Failure, FailureKind, Sample, Score, Task

RunSettings = Settings
"""Generation and execution settings shared by every task (see :class:`Settings`)."""

@dataclass
class Resumed:
    """What a run starts from: its samples, cached responses, and records already finished."""

    samples: list[Sample]
    responses: dict[str, ResponseRecord]
    done: dict[str, SampleRecord]


Progress = Callable[[SampleRecord], None]
"""Called with each finished sample record (the CLI advances its progress display)."""


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


def _truncation(failure: Failure | None, finish_reason: str | None, max_tokens: int | None) -> (
    Failure | None
):
    """A model failure of an answer the server cut off becomes a ``truncated`` failure."""
    if failure is None or not failure.is_models or finish_reason != "length":
        return failure
    limit = f"--max-tokens {max_tokens}" if max_tokens else "the server's token limit"
    return Failure(
        kind=FailureKind.TRUNCATED,
        detail=f"answer cut off by {limit}: raise --max-tokens ({failure.tag}: {failure.detail})",
    )


class Runner:
    """Runs one task with one model (and its judge, if the task has one) into one run
    directory."""

    def __init__(
        self,
        task: Task,
        model: Model,
        run_dir: RunDir,
        settings: Settings,
        progress: Progress | None = None,
        judge: Judge | None = None,
    ) -> None:
        self.task = task
        self.model = model
        self.judge = judge
        self.run_dir = run_dir
        self.settings = settings
        self.progress = progress or (lambda record: None)
        self._config: RunConfig | None = None
        self._set_level = Score()

    def _load(self) -> tuple[list[Sample], RunConfig]:
        everything = self.task.load()
        config = build_config(self.task, self.model, self.settings, everything, self.judge)
        return select_samples(everything, self.settings.limit), config

    def prepare(self, resume: bool) -> Resumed:
        """Load samples, write ``config.json``, and read back what an earlier run finished."""
        samples, config = self._load()
        old = self.run_dir.read_config()
        if self.run_dir.has_work() and not resume:
            raise RunConflict(
                f"{self.run_dir.root} already holds a run; pass --resume to continue it "
                "or choose another --out"
            )
        if old is not None:
            check_resumable(old, config, self.run_dir.root)
            config = config.model_copy(update={"created_at": old.created_at})
        self.model.check_ids([sample.id for sample in samples])
        check_image_inputs(self.task, samples, self.model, self.judge)
        self.run_dir.root.mkdir(parents=True, exist_ok=True)
        write_record(self.run_dir.config, config)
        self._config = config
        responses = latest_by_id(self.run_dir.read_responses())
        rewrite_records(self.run_dir.responses, responses.values())
        if self.run_dir.judgments.exists():  # also drops a line cut short by a kill
            verdicts = judgment_cache(self.run_dir.read_judgments()).values()
            rewrite_records(self.run_dir.judgments, verdicts)
        wanted = {sample.id for sample in samples}
        done = {
            key: record
            for key, record in latest_by_id(self.run_dir.read_samples()).items()
            if (record.failure is None or record.failure.kind != FailureKind.MODEL_ERROR)
            and not record.judge_error
        }
        rewrite_records(self.run_dir.samples, done.values())
        return Resumed(
            samples,
            {key: value for key, value in responses.items() if key in wanted},
            {key: value for key, value in done.items() if key in wanted},
        )

    def prepare_rescore(self, config: RunConfig) -> Resumed:
        """The samples of a finished or interrupted run whose answers are cached; writes
        nothing (see :meth:`rescore`)."""
        samples, current = self._load()
        same_judge = current.model_copy(update={"judge": config.judge})
        check_resumable(config, same_judge, self.run_dir.root)
        check_image_inputs(self.task, samples, self.model, self.judge)
        if current.judge != config.judge:  # re-judged: the run now carries this judge's verdicts
            judge = {"judge": current.judge, "judge_base_url": current.judge_base_url}
            config = config.model_copy(update=judge)
        self._config = config
        responses = latest_by_id(self.run_dir.read_responses())
        return Resumed(samples, {s.id: responses[s.id] for s in samples if s.id in responses}, {})

    async def run(self, resumed: Resumed) -> Results:
        """Generate and score every sample ``resumed`` lacks, then write ``results.json``."""
        return await self._execute(resumed, generate=True)

    async def rescore(self, resumed: Resumed) -> Results:
        """Score the cached answers again; samples without one stay missing. The new
        ``samples.jsonl`` replaces the old one only once every cached answer is scored."""
        return await self._execute(resumed, generate=False)

    async def _execute(self, resumed: Resumed, generate: bool) -> Results:
        samples, responses, done = resumed.samples, resumed.responses, resumed.done
        pending = [
            s for s in samples if s.id not in done and (generate or s.id in responses)
        ]
        executor = make_executor(self.task, self.settings)  # first: Ray may refuse to start
        started = time.perf_counter()
        generated_tokens = 0
        semaphore = asyncio.Semaphore(self.settings.concurrency)
        response_log = RecordAppender(self.run_dir.responses) if generate else None
        scratch = self.run_dir.samples.with_name(self.run_dir.samples.name + ".rescore")
        sample_log = RecordAppender(self.run_dir.samples if generate else scratch)
        model = executor.limit(self.model, self.settings.concurrency)
        verdicts = judgment_cache(self.run_dir.read_judgments())
        judge = self.judge
        if judge is not None and judge.model is not None:
            judge = replace(judge, model=executor.limit(judge.model, judge.concurrency))
        judging = Judging(judge, self.task, self.run_dir.judgments, verdicts)

        async def handle(sample: Sample) -> None:
            nonlocal generated_tokens
            cached = responses.get(sample.id)
            if cached is None or cached.prompt_hash != prompt_hash(sample):
                async with semaphore:
                    cached = await self._generate(sample, model)
                if cached.error is None and response_log is not None:
                    response_log.append(cached)
                    generated_tokens += cached.usage.completion_tokens
            scored = await executor.score(sample, cached.response or "")
            await judging.apply(sample.id, scored)
            if cached.error is not None:  # scored as an empty answer: failure values apply
                scored["failure"] = Failure(kind=FailureKind.MODEL_ERROR, detail=cached.error)
            scored["failure"] = _truncation(
                scored["failure"], cached.finish_reason, self.settings.max_tokens
            )
            record = SampleRecord(
                id=sample.id,
                group=sample.group,
                prompt=sample.messages,
                prompt_hash=prompt_hash(sample),
                expected=sample.expected,
                response=cached.response,
                usage=cached.usage,
                timing=cached.timing,
                finish_reason=cached.finish_reason,
                **scored,
            )
            sample_log.append(record)
            done[sample.id] = record
            self.progress(record)

        finished = False
        try:
            jobs = [asyncio.ensure_future(handle(sample)) for sample in pending]
            try:
                await asyncio.gather(*jobs)
                sample_log.close()
                self._set_level = await executor.batch_stage(
                    {sample.id: sample for sample in samples},
                    done,
                    self.run_dir.samples if generate else scratch,
                )
                finished = True
            except BaseException:
                for job in jobs:
                    job.cancel()
                await asyncio.gather(*jobs, return_exceptions=True)
                raise
        finally:
            if response_log is not None:
                response_log.close()
            sample_log.close()
            await model.aclose()
            await judging.aclose()
            executor.close()
            if generate or finished:  # an interrupted re-score leaves the run as it was
                if not generate:
                    scratch.replace(self.run_dir.samples)
                    if self._config not in (None, self.run_dir.read_config()):  # a new judge
                        write_record(self.run_dir.config, self._config)
                ordered = [done[s.id] for s in samples if s.id in done]
                results = self.write_results(
                    ordered, len(samples), time.perf_counter() - started, generated_tokens
                )
            else:
                scratch.unlink(missing_ok=True)
        return results

    async def _generate(self, sample: Sample, model: Model) -> ResponseRecord:
        request = GenerationRequest(
            sample_id=sample.id,
            messages=sample.messages,
            temperature=self.settings.temperature,
            max_tokens=self.settings.max_tokens,
            seed=self.settings.seed,
            input_svg=sample.input_svg,
            reference=sample.reference,
        )
        try:
            generation = await model.generate(request)
        except ModelError as error:
            return ResponseRecord(
                id=sample.id,
                prompt_hash=prompt_hash(sample),
                error=str(error),
                timing=Timing(attempts=error.attempts, total_s=error.total_s),
            )
        return ResponseRecord(
            id=sample.id,
            prompt_hash=prompt_hash(sample),
            response=generation.text,
            usage=Usage.model_validate(generation.usage or {}),
            timing=Timing(
                attempts=generation.attempts,
                total_s=generation.total_s or generation.latency_s,
                last_attempt_s=generation.latency_s,
            ),
            finish_reason=generation.finish_reason,
        )

    def write_results(
        self,
        records: Sequence[SampleRecord],
        n_expected: int,
        wall_s: float = 0.0,
        generated_tokens: int = 0,
    ) -> Results:
        """Aggregate ``records`` with the task's protocol and write ``results.json``."""
        aggregate = self.task.aggregate([record.model_dump(mode="json") for record in records])
        results = Results(
            task=self.task.name,
            task_version=self.task.version,
            model=self.model.spec,
            judge=self.judge.spec if self.judge is not None else None,
            n=len(records),
            n_expected=n_expected,
            n_valid=sum(1 for record in records if record.valid),
            n_missing=n_expected - len(records),
            complete=len(records) == n_expected,
            metrics={**aggregate.metrics, **self._set_level.metrics},
            stats={
                key: MetricSummary(n=stat.n, stderr=stat.stderr, ci95=stat.ci95)
                for key, stat in aggregate.stats.items()
            },
            counts=aggregate.counts,
            not_computed={**aggregate.not_computed, **self._set_level.not_computed},
            model_report=self.model.report(),
            usage=_usage_totals(records, wall_s, generated_tokens),
            svgeval_version=__version__,
        )
        write_record(self.run_dir.results, results)
        self._record_loaded_versions()
        return results

    def _record_loaded_versions(self) -> None:
        """Add torch/transformers to ``config.json`` once a metric has loaded them."""
        config = self._config
        if config is None:
            return
        versions = {**config.versions, **package_versions()}
        if versions != config.versions and self.run_dir.config.exists():
            self._config = config.model_copy(update={"versions": versions})
            write_record(self.run_dir.config, self._config)


def _usage_totals(
    records: Sequence[SampleRecord], wall_s: float, generated_tokens: int
) -> UsageTotals:
    return UsageTotals(
        prompt_tokens=sum(r.usage.prompt_tokens for r in records),
        completion_tokens=sum(r.usage.completion_tokens for r in records),
        generation_s=sum(r.timing.total_s for r in records),
        wall_s=wall_s,
        completion_tokens_per_s=generated_tokens / wall_s if generated_tokens and wall_s else None,
        attempts=sum(r.timing.attempts for r in records),
    )

