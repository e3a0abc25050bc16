"""``svgeval run`` and ``svgeval score``, and the flags other commands share.

This module declares the flags and imports no more than their declarations need (typer, the
run request whose defaults they show, :mod:`svgeval.run_request`): ``svgeval run --help`` reads
them without importing the runner, models or tasks, which each command imports when it runs
(:mod:`svgeval.cli.root`). The flags' values are checked by the request, in one place.
"""

from __future__ import annotations

import gc
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from svgeval.cli.errors import UserError, user_errors
from svgeval.cli.executor import ExecutorFlag, RayAddressFlag
from svgeval.cli.judge import (
    JudgeApiKeyEnv,
    JudgeBaseUrl,
    JudgeConcurrency,
    JudgeSpec,
    TextOnlyJudge,
    TextOnlyModel,
)
from svgeval.run_request import DEFAULTS, RunOptions, RunRequest, checked

if TYPE_CHECKING:
    from svgeval.runner import Results, RunConfig, RunDir
    from svgeval.runner.resume import Resumed

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


REPEATED = {"set_": ("options", "--set", "KEY=VALUE"),
            "model_arg": ("model_args", "--model-arg", "KEY=VALUE"),
            "model_path": ("model_paths", "--model-path", "METRIC=PATH")}
"""The repeated flags of ``run``: parameter -> the request's field, the flag, its form."""


def request_of(flags: Mapping[str, Any]) -> RunRequest:
    """The request of ``run``'s parameters ``flags`` (the repeated ``KEY=VALUE`` flags parsed);
    a wrong value is one line naming its flag, before anything is imported or written."""
    values = dict(flags)
    for parameter, (field, flag, form) in REPEATED.items():
        values[field] = parse_sets(values.pop(parameter) or [], flag, form)
    return checked(RunRequest, **values)


def run(
    task: TaskName,
    model: Annotated[str, typer.Option(help="Model spec; see `svgeval list models`.")
                     ] = DEFAULTS.model,
    out_dir: Annotated[Path, typer.Option("--out", help="Run directory.")] = DEFAULTS.out_dir,
    data: DataPath = DEFAULTS.data,
    tier: Tier = DEFAULTS.tier,
    resume: Annotated[bool, typer.Option(help="Continue the run in --out.")] = DEFAULTS.resume,
    limit: Limit = DEFAULTS.limit,
    epochs: Annotated[int, typer.Option(
        help="Answers per prompt (per-epoch results, pass@k).")] = DEFAULTS.epochs,
    shard: Annotated[
        str | None, typer.Option(help="Run only slice INDEX/COUNT of the work (0/2, 1/2).")
    ] = None,
    seed: Seed = DEFAULTS.seed,
    temperature: Annotated[float, typer.Option(
        help="Sampling temperature (0 to 2).")] = DEFAULTS.temperature,
    omit_temperature: Annotated[
        bool,
        typer.Option(
            "--omit-temperature", help="Send no temperature (reasoning models accept only theirs)."
        ),
    ] = DEFAULTS.omit_temperature,
    max_tokens: Annotated[int | None, typer.Option(
        help="Cap on generated tokens.")] = DEFAULTS.max_tokens,
    concurrency: Annotated[int, typer.Option(
        help="Model requests in flight.")] = DEFAULTS.concurrency,
    timeout: Annotated[
        float,
        typer.Option(help="Seconds of silence (no token) before a request is retried; "
                     "with --no-stream, seconds for the whole answer."),
    ] = DEFAULTS.timeout,
    first_token_timeout: Annotated[
        float | None,
        typer.Option(help="Seconds to wait for the first token, queueing included "
                     "(default 10 x --timeout); see docs/servers.md."),
    ] = DEFAULTS.first_token_timeout,
    stream: Annotated[
        bool, typer.Option(help="Stream answers (--no-stream for servers without SSE).")
    ] = DEFAULTS.stream,
    base_url: Annotated[str | None, typer.Option(
        help="Endpoint of openai-compatible.")] = DEFAULTS.base_url,
    api_key_env: Annotated[str | None, typer.Option(
        help="Env variable with the API key (the only way a key goes to a --base-url).")
    ] = DEFAULTS.api_key_env,
    render_workers: Annotated[int | None, typer.Option(
        help="Render processes.")] = DEFAULTS.render_workers,
    render_timeout: Annotated[
        float | None,
        typer.Option(help="Seconds of CPU time per render, 3x that of wall time (default: "
                          "the task's protocol, else 10)."),
    ] = DEFAULTS.render_timeout,
    renderer: Annotated[str, typer.Option(
        help="cairosvg (the papers'), skia or resvg.")] = DEFAULTS.renderer,
    render_cache: Annotated[Path | None, typer.Option(
        help="Folder caching renders.")] = DEFAULTS.render_cache,
    metric_batch_size: Annotated[
        int | None, typer.Option(help="Samples per batch of a model-based metric (CLIP, DINO, "
                                      "...); default: at most 8 on a CPU, 32 on a GPU, fewer "
                                      "when free memory is short.")
    ] = DEFAULTS.metric_batch_size,
    device: Annotated[
        str, typer.Option(help="Where model-based metrics run: auto, cpu, cuda or mps.")
    ] = DEFAULTS.device,
    precision: Annotated[
        str, typer.Option(help="Precision of the model-based metrics' forward passes: fp32 (the "
                          "papers' numbers), bf16 or fp16 (autocast, for speed on a GPU).")
    ] = DEFAULTS.precision,
    preprocess: Annotated[
        str, typer.Option(help="Where model-based metrics turn renders into network inputs: cpu "
                          "(the model's image processor, the papers' numbers) or device (the "
                          "same steps in torch on --device).")
    ] = DEFAULTS.preprocess,
    set_: Sets = None,
    model_arg: ModelArgs = None,
    model_path: Annotated[
        list[str] | None,
        typer.Option(help="Local weights for a metric, METRIC=PATH (e.g. dino=/models/dinov2)."),
    ] = None,
    text_only_model: TextOnlyModel = DEFAULTS.text_only_model,
    judge: JudgeSpec = DEFAULTS.judge,
    judge_base_url: JudgeBaseUrl = DEFAULTS.judge_base_url,
    judge_api_key_env: JudgeApiKeyEnv = DEFAULTS.judge_api_key_env,
    judge_concurrency: JudgeConcurrency = DEFAULTS.judge_concurrency,
    text_only_judge: TextOnlyJudge = DEFAULTS.text_only_judge,
    executor: ExecutorFlag = DEFAULTS.executor,
    ray_address: RayAddressFlag = DEFAULTS.ray_address,
) -> None:
    """Run TASK with a model and write the run directory."""
    with user_errors():
        request = request_of(locals())
    if not start_run(request).complete:
        raise typer.Exit(1)


def start_run(request: RunRequest) -> Results:
    """Set up the run ``request`` asks for on this machine (:func:`build_runner`: the renderer,
    the task's options, the model, the judge, the executor, each checked before anything is
    written) and run it with progress output; :meth:`Runner.prepare` checks the data and the
    run directory before a checkpoint's weights load, last."""
    # imported here: `svgeval run --help` declares the flags without the runner
    from svgeval.cli.execute import SaidEvents, execute
    from svgeval.runner.build import build_runner

    gc.freeze()  # the runner's modules and schemas, as svgeval.cli.main froze the command line's
    with user_errors():
        said = SaidEvents()
        runner = build_runner(request, model_events=said.of("model"),
                              judge_events=said.of("judge"))
        return execute(runner, runner.prepare(request.resume), runner.run, said=said)


def score(
    run_directory: Annotated[Path, typer.Argument(help="A run directory with responses.jsonl.")],
    data: Annotated[
        Path | None, typer.Option(help="Where the data is now, if it moved since the run.")
    ] = None,
    judge: JudgeSpec = DEFAULTS.judge,
    judge_base_url: JudgeBaseUrl = DEFAULTS.judge_base_url,
    judge_api_key_env: JudgeApiKeyEnv = DEFAULTS.judge_api_key_env,
    judge_concurrency: JudgeConcurrency = DEFAULTS.judge_concurrency,
    text_only_judge: TextOnlyJudge = DEFAULTS.text_only_judge,
) -> None:
    """Re-score the cached responses of a run without calling any model.

    Samples with no cached response stay missing (`--resume` completes them). The run's files
    change only once re-scoring has finished. Judged metrics come from the run's cached
    verdicts; only with --judge is a judge asked, for the verdicts not in the cache. Scoring
    runs with the local executor, whatever executor the run used.
    """
    from svgeval.cli.execute import SaidEvents, execute
    from svgeval.render.backends import check_renderer
    from svgeval.runner import RunDir, Runner
    from svgeval.runner.build import judge_of
    from svgeval.runner.identity import task_from_config

    gc.freeze()  # as in run
    with user_errors():
        run_dir = RunDir(run_directory)
        config = run_dir.read_config()
        if config is None:
            raise UserError(f"{run_directory} has no config.json; is it a run directory?")
        check_renderer(config.settings.renderer)
        asked = checked(  # the judge with the run's timeouts and streaming
            RunOptions, judge=judge, judge_base_url=judge_base_url, judge_api_key_env=judge_api_key_env,
            judge_concurrency=judge_concurrency, text_only_judge=text_only_judge,
            timeout=config.settings.timeout_s or DEFAULTS.timeout,
            first_token_timeout=config.settings.first_token_timeout_s,
            stream=config.settings.stream,
        )
        said = SaidEvents()
        runner = Runner.cached(config, task_from_config(config, data), run_dir,
                               judge_of(asked, said.of("judge")))
        resumed = runner.prepare_rescore(config)
        _check_answers(run_dir, config, resumed)
        execute(runner, resumed, runner.rescore, mode="score", said=said)


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
