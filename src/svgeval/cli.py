"""Command line: ``svgeval run``, ``score``, ``export``, ``list``, ``demo``, the data builders, and
the report commands of :mod:`svgeval.cli_report` (``report``, ``leaderboard``, ``compare``).

Every error a user can cause (bad path, bad flag, unreachable endpoint, malformed data) ends with a
one-line message saying what happened and what to do, and exit code 1.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from svgeval import __version__
from svgeval.cli_errors import UserError, console, user_errors
from svgeval.cli_execute import execute, stdout_console
from svgeval.cli_executor import ExecutorFlag, RayAddressFlag, check_executor
from svgeval.cli_judge import (
    JudgeApiKeyEnv,
    JudgeBaseUrl,
    JudgeConcurrency,
    JudgeSpec,
    TextOnlyJudge,
    TextOnlyModel,
    build_judge,
)
from svgeval.cli_merge import cached_runner, merge
from svgeval.cli_report import compare, leaderboard, report
from svgeval.cli_rewards import serve_rewards
from svgeval.cli_sarena import sarena_app
from svgeval.cli_svgauge import audit, correlate, svgauge_app
from svgeval.cli_svgeditbench import svgeditbench_app
from svgeval.cli_svgenius import svgenius_app
from svgeval.cli_vectorgym import vectorgym_app
from svgeval.metrics import METRICS
from svgeval.models import MODELS, load_model
from svgeval.runner import RunDir, Runner, RunSettings
from svgeval.runner.units import parse_shard, select_samples
from svgeval.svg.demo_corpus import write_demo_corpus
from svgeval.svg.isolation import DEFAULT_TIMEOUT_S
from svgeval.svg.render_fast import RENDERERS
from svgeval.tasks import get_task, tasks_by_suite
from svgeval.tasks.base import Task, TaskOptions
from svgeval.tasks.options import option_infos
from svgeval.tasks.svgeditbench import build_cases, write_release

HELP = {"help_option_names": ["-h", "--help"]}
app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    context_settings=HELP,
    help="Evaluate models on SVG benchmarks.",
)
app.add_typer(svgeditbench_app, name="svgeditbench", context_settings=HELP)
app.add_typer(svgenius_app, name="svgenius", context_settings=HELP)
app.add_typer(vectorgym_app, name="vectorgym", context_settings=HELP)
app.add_typer(sarena_app, name="sarena", context_settings=HELP)
out = stdout_console()

TaskName = Annotated[str, typer.Argument(help="Task name; see `svgeval list tasks`.")]
DataPath = Annotated[Path | None, typer.Option(help="Local copy of the official release.")]
Tier = Annotated[str, typer.Option(help="Difficulty tier (tasks with tiers).")]
Seed = Annotated[int, typer.Option(help="Seed for data generation and sampling.")]
Limit = Annotated[int | None, typer.Option(help="First N samples of each group.")]
Sets = Annotated[
    list[str] | None,
    typer.Option("--set", help="Task option KEY=VALUE; see `svgeval list tasks`."),
]


def _parse_sets(pairs: list[str], flag: str = "--set", form: str = "KEY=VALUE") -> dict[str, str]:
    extra = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UserError(f"{flag} expects {form}, got {pair!r}")
        extra[key.strip()] = value.strip()
    return extra


def _make_task(name: str, data: Path | None, tier: str, seed: int, sets: list[str]) -> Task:
    """The task ``name`` with its options checked (unknown keys and bad values are errors)."""
    task_cls = get_task(name)
    return task_cls(TaskOptions(data=data, seed=seed, tier=tier, extra=_parse_sets(sets)))


def _check_numbers(**flags: tuple[float | None, float, bool]) -> None:
    """Each flag's value must be above its bound (``True``: or equal to it); one line if not."""
    for flag, (value, bound, inclusive) in flags.items():
        if value is None:
            continue
        if value < bound or (value == bound and not inclusive):
            relation = "at least" if inclusive else "more than"
            raise UserError(f"--{flag.replace('_', '-')} must be {relation} {bound:g}, got {value:g}")


@app.command()
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
    api_key_env: Annotated[str | None, typer.Option(help="Env variable with the API key.")] = None,
    render_workers: Annotated[int | None, typer.Option(help="Render processes.")] = None,
    render_timeout: Annotated[
        float | None,
        typer.Option(help="Seconds per render (default: the task's protocol, else 10)."),
    ] = None,
    renderer: Annotated[str, typer.Option(help="cairosvg (the papers'), skia or resvg.")] = "cairosvg",
    render_cache: Annotated[Path | None, typer.Option(help="Folder caching renders.")] = None,
    metric_batch_size: Annotated[
        int, typer.Option(help="Samples per batch of a model-based metric (CLIP, DINO, ...).")
    ] = 32,
    device: Annotated[
        str, typer.Option(help="Where model-based metrics run: auto, cpu, cuda or mps.")
    ] = "auto",
    set_: Sets = None,
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
    with user_errors():
        _check_numbers(
            limit=(limit, 1, True),
            epochs=(epochs, 1, True),
            temperature=(temperature, 0, True),
            max_tokens=(max_tokens, 1, True),
            concurrency=(concurrency, 1, True),
            timeout=(timeout, 0, False),
            first_token_timeout=(first_token_timeout, 0, False),
            render_workers=(render_workers, 1, True),
            render_timeout=(render_timeout, 0, False),
            metric_batch_size=(metric_batch_size, 1, True),
        )
        slice_ = parse_shard(shard) if shard is not None else None
        if renderer not in RENDERERS:
            raise UserError(f"--renderer must be one of {', '.join(RENDERERS)}, got {renderer!r}")
        if device not in ("auto", "cpu", "cuda", "mps"):
            raise UserError(f"--device must be auto, cpu, cuda or mps, got {device!r}")
        if temperature > 2:
            raise UserError(f"--temperature must be at most 2, got {temperature:g}")
        for metric, path in _parse_sets(model_path or [], "--model-path", "METRIC=PATH").items():
            os.environ[f"SVGEVAL_{metric.upper()}_MODEL"] = path
        task_obj = _make_task(task, data, tier, seed, set_ or [])
        backend = load_model(
            model,
            base_url=base_url,
            api_key_env=api_key_env,
            concurrency=concurrency,
            timeout_s=timeout,
            first_token_timeout_s=first_token_timeout,
            stream=stream,
            accepts_images=not text_only_model,
        )
        judge_setup = build_judge(
            judge, base_url=judge_base_url, api_key_env=judge_api_key_env,
            concurrency=judge_concurrency, text_only=text_only_judge, timeout_s=timeout,
            first_token_timeout_s=first_token_timeout, stream=stream,
        )
        settings = RunSettings(
            temperature=None if omit_temperature else temperature,
            max_tokens=max_tokens,
            seed=seed,
            concurrency=concurrency,
            timeout_s=timeout,
            first_token_timeout_s=first_token_timeout,
            stream=stream,
            limit=limit,
            render_workers=render_workers,
            render_timeout_s=render_timeout or task_obj.render_timeout_s or DEFAULT_TIMEOUT_S,
            renderer=renderer,
            render_cache=str(render_cache) if render_cache else None,
            metric_batch_size=metric_batch_size,
            device=None if device == "auto" else device,
            epochs=epochs,
            shard=slice_,
            executor=executor, ray_address=ray_address,
        )
        check_executor(executor, ray_address)  # last: starting Ray takes seconds
        runner = Runner(task_obj, backend, RunDir(out_dir), settings, judge=judge_setup)
        results = execute(runner, runner.prepare(resume), runner.run)
    if not results.complete:
        raise typer.Exit(1)


@app.command()
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
    with user_errors():
        run_dir = RunDir(run_directory)
        config = run_dir.read_config()
        if config is None:
            raise UserError(f"{run_directory} has no config.json; is it a run directory?")
        judge_setup = build_judge(
            judge, base_url=judge_base_url, api_key_env=judge_api_key_env,
            concurrency=judge_concurrency, text_only=text_only_judge,
            timeout_s=config.settings.timeout_s or 120.0,
            first_token_timeout_s=config.settings.first_token_timeout_s,
            stream=config.settings.stream,
        )
        runner = cached_runner(config, run_dir, data, judge_setup)
        execute(runner, runner.prepare_rescore(config), runner.rescore)


@app.command()
def export(
    task: TaskName,
    out_file: Annotated[Path, typer.Option("--out", help="JSONL file to write.")],
    data: DataPath = None,
    tier: Tier = "all",
    seed: Seed = 0,
    limit: Limit = None,
    set_: Sets = None,
    images: Annotated[
        bool, typer.Option(help="Keep image parts of the messages (base64 data URLs).")
    ] = True,
) -> None:
    """Write each sample's id and chat messages, to answer them with any system and replay them.

    Each line is {"id", "group", "messages"}; answer with lines {"id", "response"} and run
    `svgeval run TASK --model replay:answers.jsonl`.
    """
    with user_errors():
        _check_numbers(limit=(limit, 1, True))
        if out_file.is_dir():
            raise UserError(f"--out {out_file} is a directory; name a .jsonl file")
        samples = select_samples(_make_task(task, data, tier, seed, set_ or []).load(), limit)
        out_file.parent.mkdir(parents=True, exist_ok=True)
        with out_file.open("w", encoding="utf-8") as handle:
            for sample in samples:
                messages = sample.messages if images else _text_only(sample.messages)
                line = {"id": sample.id, "group": sample.group, "messages": messages}
                handle.write(json.dumps(line, ensure_ascii=False) + "\n")
        console.print(f"wrote {len(samples)} prompts to {out_file}", highlight=False)


def _text_only(messages: list[dict[str, object]]) -> list[dict[str, object]]:
    """Messages with their image parts removed."""
    stripped = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = [part for part in content if part.get("type") != "image_url"]
        stripped.append({**message, "content": content})
    return stripped


def _print_suite(suite: str, tasks: Sequence[type[Task]]) -> None:
    """One suite of ``svgeval list tasks``: a heading naming its source and preset, then each
    task with its ``--set`` options."""
    about = [f"{label}: {value}" for label, value in
             (("source", tasks[0].suite_source), ("preset", tasks[0].preset)) if value]
    detail = f"  ({'; '.join(about)})" if about else ""
    out.print(f"[bold underline]{escape(suite)}[/bold underline]{escape(detail)}", highlight=False)
    for cls in tasks:
        tiers = f" (tiers: {', '.join(cls.tiers)})" if cls.tiers else ""
        out.print(f"  [bold]{cls.name}[/bold]  {escape(cls.description)}{tiers}")
        for option in option_infos(cls.Options):
            out.print(f"      --set {escape(option.describe())}", highlight=False)


@app.command("list")
def list_(
    what: Annotated[str, typer.Argument(help="tasks, models or metrics")],
) -> None:
    """List tasks, model backends or metrics."""
    with user_errors():
        if what == "tasks":
            for suite, tasks in tasks_by_suite().items():
                _print_suite(suite, tasks)
        elif what == "models":
            for kind in MODELS.all().values():
                out.print(f"[bold]{escape(kind.form)}[/bold]  {kind.summary}")
        elif what == "metrics":
            for info in METRICS.all().values():
                arrow = "higher is better" if info.higher_is_better else "lower is better"
                presets = ", ".join(info.presets) or "-"
                out.print(
                    f"[bold]{info.name}[/bold]  {info.summary}; {info.value_range}, {arrow}; "
                    f"presets: {presets}; source: {info.source}",
                    highlight=False,
                )
        else:
            raise UserError(f"cannot list {what!r}; choose tasks, models or metrics")


@app.command()
def demo(
    out_dir: Annotated[Path, typer.Option("--out", help="Run directory.")] = Path("runs/demo"),
    model: Annotated[str, typer.Option(help="identity (No Edit) or oracle.")] = "identity",
    seed: Annotated[int, typer.Option(help="Seed for the SVGEditBench colour draws.")] = 0,
) -> None:
    """SVGEditBench on the built-in icons: no server, no download."""
    with user_errors():
        data = out_dir / "data"
        names = write_demo_corpus(out_dir / "icons")
        cases = build_cases(sorted((out_dir / "icons").glob("*.svg")), seed=seed, names=names)
        write_release(cases, data)
        console.print(f"built {len(cases)} SVGEditBench cases from {len(names)} icons in {data}")
        task = get_task("svgeditbench")(TaskOptions(data=data, seed=seed))
        runner = Runner(task, load_model(model), RunDir(out_dir / f"run-{model}"),
                        RunSettings(seed=seed))
        execute(runner, runner.prepare(resume=True), runner.run)


app.add_typer(svgauge_app, name="svgauge", context_settings=HELP)
for report_command in (report, leaderboard, compare, correlate, audit, merge):
    app.command()(report_command)
app.command("serve-rewards")(serve_rewards)


@app.callback(invoke_without_command=True)
def main(
    version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False,
) -> None:
    """svgeval: benchmarks and metrics for models that read, edit and write SVG."""
    if version:
        out.print(__version__)
        raise typer.Exit(0)


if __name__ == "__main__":
    sys.exit(app())
