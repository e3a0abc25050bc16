"""``svgeval run`` and ``svgeval score``, and the flags and checks other commands share.

This module declares the flags and imports no more than their declarations need (typer, the
default renderer's name): ``svgeval run --help`` reads them without importing the runner,
models or tasks, which each command imports when it runs (:mod:`svgeval.cli.root`).
"""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from svgeval.cli.errors import UserError, user_errors
from svgeval.cli.executor import ExecutorFlag, RayAddressFlag, connect_executor
from svgeval.cli.judge import (
    JudgeApiKeyEnv,
    JudgeBaseUrl,
    JudgeConcurrency,
    JudgeSpec,
    TextOnlyJudge,
    TextOnlyModel,
    build_judge,
)
from svgeval.cli.request import RunRequest
from svgeval.render.forkserver import DEFAULT_RENDERER

if TYPE_CHECKING:
    from svgeval.runner import Results, RunConfig, RunDir
    from svgeval.runner.runner import Resumed
    from svgeval.tasks.base import Task

TaskName = Annotated[str, typer.Argument(help="Task name; see `svgeval list tasks`.")]
DataPath = Annotated[Path | None, typer.Option(help="Local copy of the official release.")]
Tier = Annotated[str, typer.Option(help="Difficulty tier (tasks with tiers).")]
Seed = Annotated[int, typer.Option(help="Seed for data generation and sampling.")]
Limit = Annotated[int | None, typer.Option(help="First N samples of each group.")]
Sets = Annotated[
    list[str] | None,
    typer.Option("--set", help="Task option KEY=VALUE; see `svgeval list tasks`."),
]
ModelArgs = Annotated[
    list[str] | None,
    typer.Option("--model-arg", help="Model option KEY=VALUE (hf:, vllm:); see `svgeval list models`."),
]


def parse_sets(pairs: list[str], flag: str = "--set", form: str = "KEY=VALUE") -> dict[str, str]:
    """The ``KEY=VALUE`` values of a repeated ``flag`` as a dict; a malformed one is a one-line
    error naming the flag and the ``form`` it expects."""
    extra = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UserError(f"{flag} expects {form}, got {pair!r}")
        extra[key.strip()] = value.strip()
    return extra


def set_model_paths(pairs: list[str] | None) -> None:
    """``--model-path METRIC=PATH``: where the metric functions look first."""
    for metric, path in parse_sets(pairs or [], "--model-path", "METRIC=PATH").items():
        os.environ[f"SVGEVAL_{metric.upper()}_MODEL"] = path


def make_task(name: str, data: Path | None, tier: str, seed: int, sets: list[str]) -> Task:
    """The task ``name`` with its options checked (unknown keys and bad values are errors)."""
    from svgeval.tasks import get_task
    from svgeval.tasks.base import CommonOptions

    task_cls = get_task(name)
    return task_cls(CommonOptions(data=data, seed=seed, tier=tier, extra=parse_sets(sets)))


def run(
    task: TaskName,
    model: Annotated[str, typer.Option(help="Model spec; see `svgeval list models`.")] = "identity",
    out_dir: Annotated[Path, typer.Option("--out", help="Run directory.")] = Path("runs/latest"),
    data: DataPath = None,
    tier: Tier = "all",
    resume: Annotated[bool, typer.Option(help="Continue the run in --out.")] = False,
    limit: Limit = None,
    epochs: Annotated[int, typer.Option(help="Answers per prompt (per-epoch results, pass@k).")] = 1,
    shard: Annotated[
        str | None, typer.Option(help="Run only slice INDEX/COUNT of the work (0/2, 1/2).")
    ] = None,
    seed: Seed = 0,
    temperature: Annotated[float, typer.Option(help="Sampling temperature (0 to 2).")] = 0.0,
    omit_temperature: Annotated[
        bool,
        typer.Option(
            "--omit-temperature", help="Send no temperature (reasoning models accept only theirs)."
        ),
    ] = False,
    max_tokens: Annotated[int | None, typer.Option(help="Cap on generated tokens.")] = None,
    concurrency: Annotated[int, typer.Option(help="Model requests in flight.")] = 8,
    timeout: Annotated[
        float,
        typer.Option(help="Seconds of silence (no token) before a request is retried; "
                     "with --no-stream, seconds for the whole answer."),
    ] = 120.0,
    first_token_timeout: Annotated[
        float | None,
        typer.Option(help="Seconds to wait for the first token, queueing included "
                     "(default 10 x --timeout); see docs/servers.md."),
    ] = None,
    stream: Annotated[
        bool, typer.Option(help="Stream answers (--no-stream for servers without SSE).")
    ] = True,
    base_url: Annotated[str | None, typer.Option(help="Endpoint of openai-compatible.")] = None,
    api_key_env: Annotated[str | None, typer.Option(
        help="Env variable with the API key (the only way a key goes to a --base-url).")] = None,
    render_workers: Annotated[int | None, typer.Option(help="Render processes.")] = None,
    render_timeout: Annotated[
        float | None,
        typer.Option(help="Seconds of CPU time per render, 3x that of wall time (default: "
                          "the task's protocol, else 10)."),
    ] = None,
    renderer: Annotated[str, typer.Option(
        help="cairosvg (the papers'), skia or resvg.")] = DEFAULT_RENDERER,
    render_cache: Annotated[Path | None, typer.Option(help="Folder caching renders.")] = None,
    metric_batch_size: Annotated[
        int | None, typer.Option(help="Samples per batch of a model-based metric (CLIP, DINO, "
                                      "...); default: at most 8 on a CPU, 32 on a GPU, fewer "
                                      "when free memory is short.")
    ] = None,
    device: Annotated[
        str, typer.Option(help="Where model-based metrics run: auto, cpu, cuda or mps.")
    ] = "auto",
    precision: Annotated[
        str, typer.Option(help="Precision of the model-based metrics' forward passes: fp32 (the "
                          "papers' numbers), bf16 or fp16 (autocast, for speed on a GPU).")
    ] = "fp32",
    preprocess: Annotated[
        str, typer.Option(help="Where model-based metrics turn renders into network inputs: cpu "
                          "(the model's image processor, the papers' numbers) or device (the "
                          "same steps in torch on --device).")
    ] = "cpu",
    set_: Sets = None,
    model_arg: ModelArgs = None,
    model_path: Annotated[
        list[str] | None,
        typer.Option(help="Local weights for a metric, METRIC=PATH (e.g. dino=/models/dinov2)."),
    ] = None,
    text_only_model: TextOnlyModel = False,
    judge: JudgeSpec = None,
    judge_base_url: JudgeBaseUrl = None,
    judge_api_key_env: JudgeApiKeyEnv = None,
    judge_concurrency: JudgeConcurrency = 8,
    text_only_judge: TextOnlyJudge = False,
    executor: ExecutorFlag = "local",
    ray_address: RayAddressFlag = None,
) -> None:
    """Run TASK with a model and write the run directory."""
    request = RunRequest(
        task=task, model=model, out_dir=out_dir, data=data, tier=tier, resume=resume,
        limit=limit, epochs=epochs, shard=shard, seed=seed, temperature=temperature,
        omit_temperature=omit_temperature, max_tokens=max_tokens, concurrency=concurrency,
        timeout=timeout, first_token_timeout=first_token_timeout, stream=stream,
        base_url=base_url, api_key_env=api_key_env, render_workers=render_workers,
        render_timeout=render_timeout, renderer=renderer, render_cache=render_cache,
        metric_batch_size=metric_batch_size, device=device, precision=precision,
        preprocess=preprocess, sets=set_ or [],
        model_args=model_arg or [], model_paths=model_path or [],
        text_only_model=text_only_model, judge=judge, judge_base_url=judge_base_url,
        judge_api_key_env=judge_api_key_env, judge_concurrency=judge_concurrency,
        text_only_judge=text_only_judge, executor=executor, ray_address=ray_address,
    )
    with user_errors():
        request.check()
    if not start_run(request).complete:
        raise typer.Exit(1)


def start_run(request: RunRequest) -> Results:
    """Set up the run ``request`` asks for on this machine and run it. The renderer, the task's
    options, the model's spec and options (a checkpoint's folder, or a hub id the hub or the
    local cache can give), the judge, the executor, then the data and the run directory
    (:meth:`Runner.prepare`) are checked before a checkpoint's weights load, last; each fails
    with one line before anything is written."""
    # imported here: `svgeval run --help` declares the flags without the runner
    from svgeval.cli.execute import execute
    from svgeval.models import load_model
    from svgeval.render.backends import check_renderer
    from svgeval.runner import RunDir, Runner

    gc.freeze()  # the runner's modules and schemas, as svgeval.cli.main froze the command line's
    with user_errors():
        check_renderer(request.renderer)  # before anything is written: else every render fails
        set_model_paths(request.model_paths)
        task_obj = make_task(request.task, request.data, request.tier, request.seed,
                             request.sets)
        backend = load_model(
            request.model,
            base_url=request.base_url,
            api_key_env=request.api_key_env,
            concurrency=request.concurrency,
            timeout_s=request.timeout,
            first_token_timeout_s=request.first_token_timeout,
            stream=request.stream,
            accepts_images=not request.text_only_model,
            model_args=parse_sets(request.model_args, "--model-arg"),
            defer_weights=True,
        )
        judge_setup = build_judge(
            request.judge, base_url=request.judge_base_url,
            api_key_env=request.judge_api_key_env, concurrency=request.judge_concurrency,
            text_only=request.text_only_judge, timeout_s=request.timeout,
            first_token_timeout_s=request.first_token_timeout, stream=request.stream,
        )
        settings = request.settings(task_obj.render_timeout_s)
        connect_executor(request.executor, request.ray_address)  # last: starting Ray takes seconds
        runner = Runner(task_obj, backend, RunDir(request.out_dir), settings, judge=judge_setup)
        return execute(runner, runner.prepare(request.resume), runner.run)


def score(
    run_directory: Annotated[Path, typer.Argument(help="A run directory with responses.jsonl.")],
    data: Annotated[
        Path | None, typer.Option(help="Where the data is now, if it moved since the run.")
    ] = None,
    judge: JudgeSpec = None,
    judge_base_url: JudgeBaseUrl = None,
    judge_api_key_env: JudgeApiKeyEnv = None,
    judge_concurrency: JudgeConcurrency = 8,
    text_only_judge: TextOnlyJudge = False,
) -> None:
    """Re-score the cached responses of a run without calling any model.

    Samples with no cached response stay missing (`--resume` completes them). The run's files
    change only once re-scoring has finished. Judged metrics come from the run's cached
    verdicts; only with --judge is a judge asked, for the verdicts not in the cache. Scoring
    runs with the local executor, whatever executor the run used.
    """
    from svgeval.cli.execute import execute
    from svgeval.cli.score import cached_runner
    from svgeval.render.backends import check_renderer
    from svgeval.runner import RunDir

    gc.freeze()  # as in run
    with user_errors():
        run_dir = RunDir(run_directory)
        config = run_dir.read_config()
        if config is None:
            raise UserError(f"{run_directory} has no config.json; is it a run directory?")
        check_renderer(config.settings.renderer)
        judge_setup = build_judge(
            judge, base_url=judge_base_url, api_key_env=judge_api_key_env,
            concurrency=judge_concurrency, text_only=text_only_judge,
            timeout_s=config.settings.timeout_s or 120.0,
            first_token_timeout_s=config.settings.first_token_timeout_s,
            stream=config.settings.stream,
        )
        runner = cached_runner(config, run_dir, data, judge_setup)
        resumed = runner.prepare_rescore(config)
        _check_answers(run_dir, config, resumed)
        execute(runner, resumed, runner.rescore, mode="score")


def _check_answers(run_dir: RunDir, config: RunConfig, resumed: Resumed) -> None:
    """Refuse to score answers to other prompts than those of the data ``config.json`` names:
    that ``config.json`` is another run's (scoring would ask a stand-in model again)."""
    from svgeval.runner.identity import prompt_hash
    from svgeval.runner.units import SamplesById

    if resumed.responses:  # answers to the run's samples: each to the same prompt?
        samples = SamplesById(resumed.units)
        answers = len(resumed.responses)
        other = sum(1 for (sample_id, _), answer in resumed.responses.items()
                    if answer.prompt_hash != prompt_hash(samples[sample_id]))
    else:  # none to the run's samples: any there are answer other samples
        answers = other = len(run_dir.read_responses())
    if other:
        raise UserError(
            f"{other} of the {answers} answers in {run_dir.responses} answer other prompts than "
            f"the data its config.json names ({config.task}, "
            f"{config.data or 'the downloaded release'}): config.json is another run's; put "
            "back the run's own"
        )
