"""What a run is asked to do: every setting of a run, its default and its bounds, once.

:class:`RunRequest` is ``svgeval run``'s flags as one typed, checked object (a field per flag,
named as the flag is); :func:`svgeval.evaluate`, ``svgeval demo`` and the audit make one too,
and :func:`svgeval.runner.build.build_runner` turns it into a :class:`~svgeval.runner.Runner`.
The command line's options, :func:`svgeval.evaluate`'s keywords and the backends' parameters
take their defaults from :data:`DEFAULTS`: each default is written here and nowhere else.

Its constraints refuse, with one line naming the flag (:func:`flag_error`), every value that is
wrong whatever the machine (a count below 1, a temperature above 2, an unknown renderer, device
or executor, a malformed shard, a judge option without ``--judge``) before anything is imported
or written. What depends on the machine (is the renderer installed? does the model or the Ray
cluster answer?) is checked when the runner is built. Importing this module imports pydantic
and nothing of svgeval: every layer may use it (``svgeval run --help`` reads its defaults).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from svgeval.errors import UserError

Renderer = Literal["cairosvg", "skia", "resvg"]
"""Renderers of ``--renderer`` (:mod:`svgeval.render.backends`): cairosvg is the papers'."""
Device = Literal["auto", "cpu", "cuda", "mps"]
"""Where model-based metrics run (``--device``; auto: cuda when torch sees a GPU)."""
Precision = Literal["fp32", "bf16", "fp16"]
"""Precision of the model metrics' forward passes (``--precision``; fp32: the papers')."""
Preprocessing = Literal["cpu", "device"]
"""Where model metrics turn renders into network inputs (``--preprocess``; cpu: the papers')."""
Executor = Literal["local", "ray"]
"""Where scoring and model metrics run (``--executor``)."""

SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


class Shard(BaseModel):
    """``--shard INDEX/COUNT``: the slice of a run's work units this run directory holds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    index: int
    """0-based index of the slice, of ``count``."""
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``INDEX/COUNT`` as a :class:`Shard`; ValueError with a one-line message if not."""
        match = SHARD.fullmatch(text)
        if match is None:
            raise ValueError(f"--shard expects INDEX/COUNT such as 0/2, got {text!r}")
        index, count = int(match[1]), int(match[2])
        if count < 1 or index >= count:
            raise ValueError(
                f"--shard {text}: INDEX must be 0 to COUNT-1 and COUNT at least 1 (e.g. 0/2 and 1/2)"
            )
        return cls(index=index, count=count)


class RunOptions(BaseModel):
    """Every setting of a run but its task, with its default; named as ``svgeval run``'s flags
    (``options``: ``--set``, ``model_args``: ``--model-arg``, ``model_paths``:
    ``--model-path``, ``out_dir``: ``--out``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = "identity"
    """Model spec (``svgeval list models``)."""
    out_dir: Path = Path("runs/latest")
    """Run directory."""
    data: Path | None = None
    """Local copy of the official release (None: the downloaded one)."""
    tier: str = "all"
    """Difficulty tier (tasks with tiers)."""
    options: dict[str, str] = Field(default_factory=dict)
    """Task options as typed (``--set KEY=VALUE``), checked by the task."""
    resume: bool = False
    """Continue the run in ``out_dir``."""
    limit: int | None = Field(default=None, ge=1)
    """First N samples of each group (None: all)."""
    epochs: int = Field(default=1, ge=1)
    """Answers per prompt."""
    shard: Shard | None = None
    """The slice of the work to run (``INDEX/COUNT``; None: all)."""
    seed: int = 0
    """Seed for data generation and sampling."""
    temperature: float = Field(default=0.0, ge=0, le=2)
    """Sampling temperature."""
    omit_temperature: bool = False
    """Send no temperature (reasoning models accept only theirs)."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Cap on generated tokens (None: none sent)."""
    concurrency: int = Field(default=8, ge=1)
    """Model requests in flight."""
    timeout: float = Field(default=120.0, gt=0)
    """Seconds of silence before a request is retried (without streaming: for the answer)."""
    first_token_timeout: float | None = Field(default=None, gt=0)
    """Seconds to wait for the first token, queueing included (None: 10 x ``timeout``)."""
    stream: bool = True
    """Stream answers (server-sent events)."""
    base_url: str | None = None
    """Endpoint of an openai-compatible model."""
    api_key_env: str | None = None
    """Environment variable holding the API key."""
    render_workers: int | None = Field(default=None, ge=1)
    """Render processes (None: one per CPU)."""
    render_timeout: float | None = Field(default=None, gt=0)
    """Seconds of CPU time per render (None: the task's protocol, else the renderer's)."""
    renderer: Renderer = "cairosvg"
    """Renderer of every render."""
    render_cache: Path | None = None
    """Folder caching renders (None: no cache)."""
    metric_batch_size: int | None = Field(default=None, ge=1)
    """Samples per batch of a model-based metric (None: sized from the memory free)."""
    device: Device = "auto"
    """Where model-based metrics run."""
    precision: Precision = "fp32"
    """Precision of the model-based metrics' forward passes."""
    preprocess: Preprocessing = "cpu"
    """Where model-based metrics turn renders into network inputs."""
    model_args: dict[str, str] = Field(default_factory=dict)
    """Model options as typed (``--model-arg KEY=VALUE``), checked by the model's kind."""
    model_paths: dict[str, str] = Field(default_factory=dict)
    """Local weights of a metric, by metric (``--model-path METRIC=PATH``)."""
    text_only_model: bool = False
    """The model cannot read images."""
    judge: str | None = None
    """Judge model spec for judged tasks (None: no judge)."""
    judge_base_url: str | None = None
    """Endpoint of an openai-compatible judge."""
    judge_api_key_env: str | None = None
    """Environment variable holding the judge's API key."""
    judge_concurrency: int = Field(default=8, ge=1)
    """Judge requests in flight."""
    text_only_judge: bool = False
    """The judge cannot read images."""
    executor: Executor = "local"
    """Where scoring and model metrics run."""
    ray_address: str | None = None
    """Ray cluster to join (None: a local Ray instance)."""

    @field_validator("shard", mode="before")
    @classmethod
    def _shard_as_written(cls, value: Any) -> Any:
        return Shard.parse(value) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _options_that_need_another(self) -> RunOptions:
        if self.ray_address is not None and self.executor != "ray":
            raise ValueError("--ray-address needs --executor ray")
        if self.judge is None:
            for flag, value in (("--judge-base-url", self.judge_base_url),
                                ("--judge-api-key-env", self.judge_api_key_env),
                                ("--text-only-judge", self.text_only_judge)):
                if value:
                    raise ValueError(f"{flag} needs --judge MODEL")
        return self


class RunRequest(RunOptions):
    """A run: its task and its settings (:class:`RunOptions`)."""

    task: str
    """Task name (``svgeval list tasks``)."""


DEFAULTS = RunOptions()
"""Every run setting at its default: where the command line, :func:`svgeval.evaluate` and the
backends read their defaults."""

FLAGS = {"out_dir": "--out", "options": "--set", "model_args": "--model-arg",
         "model_paths": "--model-path"}
"""The fields whose flag is not ``--`` and the field's name with dashes."""

BOUNDS = {"greater_than_equal": ("ge", "at least"), "greater_than": ("gt", "more than"),
          "less_than_equal": ("le", "at most"), "less_than": ("lt", "less than")}
"""Pydantic's error types of a bound, with the bound's key and how a message says it."""


def flag(field: str) -> str:
    """The command-line flag of the request's ``field``."""
    return FLAGS.get(field, "--" + field.replace("_", "-"))


def _shown(value: Any) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else repr(value)


def flag_error(error: ValidationError) -> str:
    """The first fault of a :class:`RunRequest` as one line naming its flag:
    ``--limit must be at least 1, got 0``, ``--renderer must be one of cairosvg, skia, resvg,
    got 'inkscape'``, or a validator's own line (``--ray-address needs --executor ray``)."""
    fault = error.errors()[0]
    context = fault.get("ctx", {})
    if not fault["loc"]:  # a check of several fields: its message names them
        return str(context.get("error", fault["msg"]))
    field = str(fault["loc"][0])
    name, value = flag(field), fault["input"]
    if fault["type"] in BOUNDS:
        key, relation = BOUNDS[fault["type"]]
        return f"{name} must be {relation} {_shown(context[key])}, got {_shown(value)}"
    if fault["type"] == "literal_error":
        choices = get_args(RunRequest.model_fields[field].annotation)
        return f"{name} must be one of {', '.join(choices)}, got {value!r}"
    if "error" in context:  # a field validator's line (a shard)
        return str(context["error"])
    said = fault["msg"]  # pydantic's sentence, its first letter lowered after the flag
    return f"{name}: {said[:1].lower()}{said[1:]}, got {value!r}"


R = TypeVar("R", bound=RunOptions)


class InvalidRunSetting(UserError, ValueError):
    """A run setting whose value is wrong on any machine; its line names the flag. A ValueError
    as well, as it was before there was a class: callers of :func:`checked` may catch that."""


def checked(kind: type[R], **values: Any) -> R:
    """A :class:`RunRequest` (or the :class:`RunOptions` alone) of ``values``;
    :class:`InvalidRunSetting` with :func:`flag_error`'s line if one is wrong."""
    try:
        return kind.model_validate(values)
    except ValidationError as error:
        raise InvalidRunSetting(flag_error(error)) from None
