"""Run a task against a model: concurrency, response cache, resume, and the run directory.

Model calls run concurrently on an asyncio loop (at most ``concurrency`` in flight; an HTTP
backend, which paces its own requests, gets every ready one and keeps ``concurrency`` or fewer
attempts on the wire, learning how many its server takes, kept in ``servers.json``); scoring runs
in a thread pool whose threads wait on the isolated render workers, so rendering uses every core.
Each finished sample is appended to ``samples.jsonl`` at once (see :mod:`svgeval.runner.run_dir`).

A run's identity (:meth:`RunConfig.identity`) is its task, data, prompts, model and sampling
settings; ``--limit`` and ``--epochs`` are not part of it, so a smoke run grows into a full run
with ``--resume`` and a larger limit or more epochs, reusing every answer already paid for. The
answers are work units (a sample and an epoch, :mod:`svgeval.runner.units`), of which
``--shard`` keeps a slice. :meth:`Runner.rescore` scores the cached answers again without a
model and replaces ``samples.jsonl`` only once it is complete; :meth:`Runner.finish` only
completes the batched and set-level metrics and ``results.json`` (``svgeval merge``).
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from svgeval import __version__
from svgeval.models.adaptive import Learned
from svgeval.models.base import NO_ANSWER, Model
from svgeval.runner.answers import answer_failure, answer_of
from svgeval.runner.epochs import summarize, tally
from svgeval.runner.executor_choice import make_executor
from svgeval.runner.finished import FinishedRecords
from svgeval.runner.identity import (
    RESCORE_ADVICE,
    RunConflict,
    build_config,
    check_resumable,
    digest_samples,
    package_versions,
    prompt_hash,
)
from svgeval.runner.judging import Judge, Judging, check_image_inputs, judgment_cache
from svgeval.runner.other_run import load_samples
from svgeval.runner.progress import NoProgress, PhaseProgress
from svgeval.runner.records import (
    Results,
    SampleRecord,
    ServersRecord,
)
from svgeval.runner.resume import Resumed, read_back
from svgeval.runner.run_config import RunConfig, RunSettings
from svgeval.runner.run_dir import (
    RecordAppender,
    RunDir,
    latest_by_key,
    write_record,
)
from svgeval.runner.slots import request_slots
from svgeval.runner.units import (
    SamplesById,
    WorkUnit,
    distinct_samples,
    read_ahead,
    select_samples,
    work_units,
)
from svgeval.tasks.base import Sample, Task
from svgeval.tasks.outcome import MetricValues

SCORE_FLUSH_INTERVAL_S = 0.05
"""How often finished samples reach ``samples.jsonl``: a ``kill -9`` loses at most this much
scoring, which ``--resume`` redoes from the answers in ``responses.jsonl`` (flushed at once)."""


Progress = Callable[[SampleRecord], None]
"""Called with each finished sample record (the CLI advances its progress display)."""


class Runner:
    """Runs one task with one model (and its judge, if the task has one) into one run
    directory."""

    def __init__(
        self,
        task: Task,
        model: Model | None,
        run_dir: RunDir,
        settings: RunSettings,
        progress: Progress | None = None,
        judge: Judge | None = None,
        answered_by: RunConfig | None = None,
    ) -> None:
        """``model`` answers (:meth:`run`); a runner of cached work (:meth:`cached`) has none,
        and takes the model's spec and endpoint from ``answered_by``, the run's config."""
        self.base_url: str | None
        if model is not None:
            self.spec, self.base_url = model.spec, getattr(model, "base_url", None)
        elif answered_by is not None:
            self.spec, self.base_url = answered_by.model, answered_by.base_url
        else:
            raise TypeError("a runner without a model needs the config of the run it scores")
        self.task = task
        self.model = model
        self.judge = judge
        self.run_dir = run_dir
        self.settings = settings
        self.progress = progress or (lambda record: None)
        self.phases: PhaseProgress = NoProgress()
        """Told how the phases after the samples go (the CLI shows them)."""
        self._config: RunConfig | None = None
        self._set_level: dict[int, MetricValues] = {}
        self.unanswerable: dict[str, str] = {}
        """Sample id -> why the model has no answer for it (:attr:`Model.answers_from`: the
        offline baselines), noted as the dataset is hashed."""

    @classmethod
    def cached(cls, config: RunConfig, task: Task, run_dir: RunDir,
               judge: Judge | None = None) -> Runner:
        """A runner of the run ``config`` that asks no model (:meth:`rescore`, :meth:`finish`):
        its answers come from the run's cache and its judged metrics from the cached verdicts
        (unless ``judge`` can be asked). It scores with the local executor, whatever executor
        the run used."""
        if judge is None and config.judge is not None:
            judge = Judge(config.judge)
        local = config.settings.model_copy(update={"executor": "local", "ray_address": None})
        return cls(task, None, run_dir, local, judge=judge, answered_by=config)

    def _asking(self) -> Model:
        """The model that answers; a bug to ask for it in a runner of cached work."""
        if self.model is None:
            raise TypeError("this runner scores cached answers: it has no model to ask")
        return self.model

    def _load(self) -> tuple[list[WorkUnit], RunConfig]:
        """The work units and the config of the run; the samples the model has no answer for
        (:attr:`Model.answers_from`) are noted from the same read that hashes the dataset."""
        everything = load_samples(self.task)
        dataset = digest_samples(everything)
        source = self.model.answers_from if self.model is not None else None
        self.unanswerable = (dict.fromkeys(dataset.lacking[source], NO_ANSWER[source])
                             if source is not None else {})
        config = build_config(self.task, self.spec, self.base_url, self.settings, dataset,
                              self.judge)
        return work_units(select_samples(everything, self.settings.limit), config), config

    def prepare(self, resume: bool) -> Resumed:
        """Check the run, write ``config.json``, and read back what an earlier run finished.

        The cheap checks come first: the samples load, the run directory holds no other run
        (nor one not asked to resume), the model has answers for these samples. Only then does
        the model do its slow setup (:meth:`Model.load`: a checkpoint's weights), and
        :attr:`model` becomes the backend it returns; nothing is written before it succeeds.
        """
        units, config = self._load()
        old = self.run_dir.read_config()
        if self.run_dir.has_work() and not resume:
            raise RunConflict(
                f"{self.run_dir.root} already holds {self.run_dir.describe()}; pass --resume to "
                "continue it or choose another --out"
            )
        if old is not None:
            check_resumable(old, config, self.run_dir.root)
            config = config.model_copy(update={"created_at": old.created_at})
        self._asking().check_ids(self.task, list(dict.fromkeys(unit.sample_id for unit in units)))
        self.model = self._asking().load()
        check_image_inputs(self.task, distinct_samples(units), self.model, self.judge)
        self.run_dir.root.mkdir(parents=True, exist_ok=True)
        write_record(self.run_dir.config, config)
        self._config = config
        return read_back(self.run_dir, units)

    def prepare_rescore(self, config: RunConfig) -> Resumed:
        """The samples of a finished or interrupted run whose answers are cached; writes
        nothing (see :meth:`rescore`)."""
        units, current = self._load()
        same_judge = current.model_copy(update={"judge": config.judge})
        check_resumable(config, same_judge, self.run_dir.root, RESCORE_ADVICE)
        check_image_inputs(self.task, distinct_samples(units), self.model, self.judge)
        if current.judge != config.judge:  # re-judged: the run now carries this judge's verdicts
            judge = {"judge": current.judge, "judge_base_url": current.judge_base_url}
            config = config.model_copy(update=judge)
        self._config = config
        responses = latest_by_key(self.run_dir.read_responses())
        return Resumed(units, {u.key: responses[u.key] for u in units if u.key in responses}, {})

    async def run(self, resumed: Resumed) -> Results:
        """Generate and score every unit ``resumed`` lacks, then write ``results.json``."""
        return await self._execute(resumed, _missing(resumed), self._asking(), rescoring=False)

    async def rescore(self, resumed: Resumed) -> Results:
        """Score the cached answers again; units without one stay missing. The new
        ``samples.jsonl`` replaces the old one only once every cached answer is scored."""
        pending = [unit for unit in _missing(resumed) if unit.key in resumed.responses]
        return await self._execute(resumed, pending, None, rescoring=True)

    async def finish(self, resumed: Resumed) -> Results:
        """Complete the batched and set-level metrics of the records in ``samples.jsonl`` and
        write ``results.json``, asking no model (``svgeval merge``)."""
        return await self._execute(resumed, [], None, rescoring=False)

    async def _execute(self, resumed: Resumed, pending: list[WorkUnit], asked: Model | None,
                       *, rescoring: bool) -> Results:
        """Score ``pending`` (each unit's cached answer, else ``asked``'s: None for cached
        work), then the batched and set-level metrics, then write ``results.json``.
        ``rescoring`` writes the samples to a scratch file that replaces ``samples.jsonl`` only
        once complete."""
        responses = resumed.responses
        samples = SamplesById(resumed.units)
        executor = make_executor(self.task, self.settings)  # first: Ray may refuse to start
        started = time.perf_counter()
        generated_tokens = 0
        # a free model's answers (and the scores, from the cached answers) are recomputed on
        # --resume: written in groups, off the event loop
        free = SCORE_FLUSH_INTERVAL_S if asked is not None and asked.answers_are_free else None
        response_log = (RecordAppender(self.run_dir.responses, flush_interval_s=free)
                        if asked is not None else None)
        scratch = self.run_dir.samples.with_name(self.run_dir.samples.name + ".rescore")
        if rescoring:  # a re-score killed before it finished left its lines: start afresh
            scratch.unlink(missing_ok=True)
        sample_log = RecordAppender(scratch if rescoring else self.run_dir.samples,
                                    flush_interval_s=SCORE_FLUSH_INTERVAL_S)
        if pending:
            self._pace_from_learned(asked)
        model = executor.limit(asked, self.settings.concurrency) if asked is not None else None
        slots = request_slots(model, self.settings.concurrency) if model is not None else None
        verdicts = judgment_cache(self.run_dir.read_judgments())
        judge = self.judge
        if judge is not None and judge.model is not None:
            judge = replace(judge, model=executor.limit(judge.model, judge.concurrency))
        judging = Judging(judge, self.task, self.run_dir.judgments, verdicts)

        # finished records wait for the results as compact JSON (runner/finished.py), with the
        # extracted SVG only if a batched or set-level metric will draw it
        done = FinishedRecords(keep_extracted=bool(self.task.batched_metrics
                                                   or self.task.set_metrics
                                                   or self.task.aggregate_reads_extracted))
        done.update(resumed.done)

        async def handle(unit: WorkUnit, sample: Sample) -> None:
            nonlocal generated_tokens
            cached = responses.get(unit.key)
            if cached is None or cached.prompt_hash != prompt_hash(sample):
                if model is None or slots is None:  # cached work: its units all have answers
                    raise TypeError(f"no cached answer to {unit.key} and no model to ask")
                async with slots:
                    cached = await answer_of(model, self.task, self.settings, unit, sample)
                if cached is None:  # the model has no answer to give: the sample stays missing
                    return
                if cached.error is None and response_log is not None:
                    response_log.append(cached)
                    if cached.usage is not None:
                        generated_tokens += cached.usage.completion_tokens
            outcome = await judging.apply(await executor.score(sample, cached.response or ""))
            record = SampleRecord.answered(
                outcome,
                cached,  # its prompt hash is the sample's: checked above, or just asked
                prompt=sample.messages,
                expected=sample.expected,
                failure=answer_failure(outcome.failure, cached, self.settings.max_tokens),
            )
            sample_log.append(record)
            self.progress(record)
            done[unit.key] = record

        finished = False
        try:
            # a bounded number of coroutines take the units in order, each with its sample
            # read ahead off the event loop: answers wait in memory only while their scoring is
            # near, and neither the units' samples nor their tasks are all held at once
            workers = min(len(pending), max(64, 4 * self.settings.concurrency))
            ready: asyncio.Queue[tuple[WorkUnit, Sample] | None] = asyncio.Queue(workers)

            async def work_through() -> None:
                while (item := await ready.get()) is not None:
                    await handle(*item)

            jobs = [asyncio.ensure_future(read_ahead(pending, ready, workers)),
                    *(asyncio.ensure_future(work_through()) for _ in range(workers))]
            try:
                await asyncio.gather(*jobs)
                sample_log.close()
                self._set_level = await executor.batch_stage(
                    samples,
                    done,
                    scratch if rescoring else self.run_dir.samples,
                    self.phases,
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
            if model is not None:
                await model.aclose()
            await judging.aclose()
            executor.close()
            self.task.close()
            if finished or not rescoring:  # an interrupted re-score leaves the run as it was
                if rescoring:
                    scratch.replace(self.run_dir.samples)
                    if self._config not in (None, self.run_dir.read_config()):  # a new judge
                        write_record(self.run_dir.config, self._config)
                ordered = done.in_order([unit.key for unit in resumed.units])
                results = self.write_results(
                    ordered, len(resumed.units), time.perf_counter() - started, generated_tokens
                )
            else:
                scratch.unlink(missing_ok=True)
        return results

    def _pace_from_learned(self, model: Model | None) -> None:
        """Start ``model``'s (None: no model is asked) and the judge's backends from what
        earlier runs in this directory learned of their servers (``servers.json``), and write
        there what they learn."""
        backends = [model] if model is not None else []
        if self.judge is not None and self.judge.model is not None:
            backends.append(self.judge.model)
        servers = dict(self.run_dir.read_servers().servers)
        for backend in backends:
            backend.start_from(servers)
            backend.on_learned = functools.partial(self._keep_learned, servers, backend)

    def _keep_learned(self, servers: dict[str, Learned], backend: Model) -> None:
        """Write to ``servers.json`` what ``backend`` has just learned, beside the rest."""
        servers.update(backend.learned())
        write_record(self.run_dir.servers, ServersRecord(servers=servers))

    def write_results(
        self,
        records: Sequence[SampleRecord],
        n_expected: int,
        wall_s: float = 0.0,
        generated_tokens: int = 0,
    ) -> Results:
        """Aggregate ``records`` with the task's protocol and write ``results.json``."""
        summary = summarize(self.task, records, self._set_level, self.settings.epochs)
        counted = tally(records, wall_s, generated_tokens)
        results = Results(
            task=self.task.name,
            task_version=self.task.version,
            model=self.spec,
            judge=self.judge.spec if self.judge is not None else None,
            n=len(records),
            n_expected=n_expected,
            n_dataset=self._config.n_samples if self._config is not None else None,
            n_valid=counted.n_valid,
            n_missing=n_expected - len(records),
            n_answered=counted.n_answered,
            complete=counted.n_answered == n_expected,
            metrics=summary.metrics,
            stats=summary.stats,
            counts=summary.counts,
            judge_failure_kinds=counted.judge_failures if self.judge is not None else None,
            not_computed=summary.not_computed,
            model_report=self.model.report() if self.model is not None else {},
            judge_report=(self.judge.model.report()
                          if self.judge is not None and self.judge.model is not None else {}),
            usage=counted.usage,
            epochs=summary.epochs,
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


def _missing(resumed: Resumed) -> list[WorkUnit]:
    return [unit for unit in resumed.units if unit.key not in resumed.done]
