"""A :class:`Runner` from a :class:`~svgeval.run_request.RunRequest`: the one place a run is put
together, for ``svgeval run``, :func:`svgeval.evaluate`, ``svgeval demo`` and the audit.

:func:`build_runner` checks what the request cannot check alone, cheapest first, each failing
with one line before anything is written: the renderer loads here, the task takes its options,
the model's spec and options are good (a checkpoint's folder, or a hub id the hub or the local
cache can give), the judge can be set up, and last the Ray cluster answers (starting Ray takes
seconds). A checkpoint's weights load later, when :meth:`Runner.prepare` has checked the data
and the run directory.
"""

from __future__ import annotations

from typing import Any

from svgeval.errors import UserError
from svgeval.models import Model, ModelEvents, load_model
from svgeval.render.backends import check_renderer
from svgeval.render.isolated import DEFAULT_TIMEOUT_S
from svgeval.run_request import RunOptions, RunRequest
from svgeval.runner.judging import Judge, judge_wording
from svgeval.runner.run_config import RunSettings
from svgeval.runner.run_dir import RunDir
from svgeval.runner.runner import Runner
from svgeval.tasks.base import CommonOptions, Task


def task_of(request: RunRequest) -> Task:
    """The task ``request`` names, with its options checked (unknown keys and bad values are
    errors). The registry is looked up when called (a test or a plugin may replace it)."""
    from svgeval.tasks import get_task

    return get_task(request.task)(CommonOptions(data=request.data, seed=request.seed,
                                                tier=request.tier, extra=dict(request.options),
                                                model_paths=dict(request.model_paths)))


SAME_NAMED = {"max_tokens", "seed", "concurrency", "stream", "limit", "render_workers",
              "renderer", "metric_batch_size", "precision", "preprocess", "epochs", "shard",
              "executor", "ray_address", "model_paths"}
"""The request's fields that are settings of the same name and value."""


def settings_of(request: RunOptions, task_render_timeout_s: float | None) -> RunSettings:
    """The run's :class:`RunSettings`: a render's time limit is ``--render-timeout``, else the
    task's protocol's (``task_render_timeout_s``), else the renderer's default."""
    return RunSettings(
        **request.model_dump(include=SAME_NAMED),
        temperature=None if request.omit_temperature else request.temperature,
        timeout_s=request.timeout,
        first_token_timeout_s=request.first_token_timeout,
        render_timeout_s=request.render_timeout or task_render_timeout_s or DEFAULT_TIMEOUT_S,
        render_cache=str(request.render_cache) if request.render_cache else None,
        device=None if request.device == "auto" else request.device,
    )


def _endpoint(request: RunOptions, spec: str, *, base_url: str | None,
              api_key_env: str | None, concurrency: int, text_only: bool,
              events: ModelEvents | None, **kind_options: Any) -> Model:
    """The backend ``spec`` names, with the run's timeouts and streaming."""
    return load_model(spec, base_url=base_url, api_key_env=api_key_env, concurrency=concurrency,
                      timeout_s=request.timeout, first_token_timeout_s=request.first_token_timeout,
                      stream=request.stream, accepts_images=not text_only, events=events,
                      **kind_options)


def model_of(request: RunOptions, events: ModelEvents | None = None) -> Model:
    """The backend ``request.model`` names, its checkpoint's weights not loaded yet;
    ``events`` hears of its retries and notices."""
    return _endpoint(request, request.model, base_url=request.base_url,
                     api_key_env=request.api_key_env, concurrency=request.concurrency,
                     text_only=request.text_only_model, events=events,
                     model_args=request.model_args,
                     defer_weights=True)


def judge_of(request: RunOptions, events: ModelEvents | None = None) -> Judge | None:
    """The judge ``request.judge`` names (None without one), with the run's timeouts and
    streaming, ``events`` hearing of its retries and notices; its failure to set up is one line
    naming the judge's flags."""
    if request.judge is None:
        return None
    try:
        model = _endpoint(request, request.judge, base_url=request.judge_base_url,
                          api_key_env=request.judge_api_key_env,
                          concurrency=request.judge_concurrency,
                          text_only=request.text_only_judge, events=events)
    except UserError as error:  # the spec's, a model kind's or a --model-arg's
        raise UserError(f"--judge: {judge_wording(str(error))}") from None
    return Judge(request.judge, model, request.judge_concurrency)


def build_runner(
    request: RunRequest,
    *,
    task: Task | None = None,
    model: Model | None = None,
    model_events: ModelEvents | None = None,
    judge_events: ModelEvents | None = None,
) -> Runner:
    """The runner of ``request``: its task (or ``task``, already made), its model (or
    ``model``, a backend already made: :func:`svgeval.evaluate`'s objects, the audit's replay
    files), its judge and its settings, each checked as the module's docstring says;
    ``model_events`` and ``judge_events`` hear of their backends' retries and notices."""
    check_renderer(request.renderer)  # before anything is written: else every render fails
    task = task or task_of(request)
    model = model or model_of(request, model_events)
    judge = judge_of(request, judge_events)
    settings = settings_of(request, task.render_timeout_s)
    if request.executor == "ray":  # last: starting Ray takes seconds
        from svgeval.runner.ray_executor import connect

        connect(request.ray_address)
    return Runner(task, model, RunDir(request.out_dir), settings, judge=judge)
