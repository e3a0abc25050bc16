"""What ``svgeval run`` was asked to do: its flags in one typed object, checked in one place.

:class:`RunRequest` holds the flags as given; :meth:`RunRequest.check` refuses, with one line
naming the flag, every value that is wrong whatever the machine (a count below 1, a temperature
above 2, an unknown renderer, device or executor, a malformed shard) before anything is
imported or written. What depends on the machine (is the renderer installed? does the model or
the Ray cluster answer?) is checked when the run is set up (:func:`svgeval.cli.run.run`).
Importing this module imports nothing of svgeval's runner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from svgeval.cli.errors import UserError
from svgeval.render.forkserver import DEFAULT_RENDERER

if TYPE_CHECKING:
    from svgeval.runner import RunSettings

DEVICES = ("auto", "cpu", "cuda", "mps")
MAX_TEMPERATURE = 2.0


def check_numbers(**flags: tuple[float | None, float, bool]) -> None:
    """Each flag's value must be above its bound (``True``: or equal to it); one line if not."""
    for flag, (value, bound, inclusive) in flags.items():
        if value is None:
            continue
        if value < bound or (value == bound and not inclusive):
            relation = "at least" if inclusive else "more than"
            raise UserError(f"--{flag.replace('_', '-')} must be {relation} {bound:g}, got {value:g}")


@dataclass(frozen=True, kw_only=True)
class RunRequest:
    """The flags of ``svgeval run``, named as the command line names them."""

    task: str
    model: str = "identity"
    out_dir: Path = Path("runs/latest")
    data: Path | None = None
    tier: str = "all"
    resume: bool = False
    limit: int | None = None
    epochs: int = 1
    shard: str | None = None
    seed: int = 0
    temperature: float = 0.0
    omit_temperature: bool = False
    max_tokens: int | None = None
    concurrency: int = 8
    timeout: float = 120.0
    first_token_timeout: float | None = None
    stream: bool = True
    base_url: str | None = None
    api_key_env: str | None = None
    render_workers: int | None = None
    render_timeout: float | None = None
    renderer: str = DEFAULT_RENDERER
    render_cache: Path | None = None
    metric_batch_size: int | None = None
    device: str = "auto"
    precision: str = "fp32"
    preprocess: str = "cpu"
    sets: list[str] = field(default_factory=list)
    model_args: list[str] = field(default_factory=list)
    model_paths: list[str] = field(default_factory=list)
    text_only_model: bool = False
    judge: str | None = None
    judge_base_url: str | None = None
    judge_api_key_env: str | None = None
    judge_concurrency: int = 8
    text_only_judge: bool = False
    executor: str = "local"
    ray_address: str | None = None

    def check(self) -> None:
        """One :class:`UserError` line for the first flag whose value is wrong on any machine."""
        from svgeval.metrics._models import PRECISIONS, PREPROCESSINGS
        from svgeval.render.backends import RENDERERS
        from svgeval.runner.executors import EXECUTORS
        from svgeval.runner.units import parse_shard

        check_numbers(
            limit=(self.limit, 1, True),
            epochs=(self.epochs, 1, True),
            temperature=(self.temperature, 0, True),
            max_tokens=(self.max_tokens, 1, True),
            concurrency=(self.concurrency, 1, True),
            timeout=(self.timeout, 0, False),
            first_token_timeout=(self.first_token_timeout, 0, False),
            render_workers=(self.render_workers, 1, True),
            render_timeout=(self.render_timeout, 0, False),
            metric_batch_size=(self.metric_batch_size, 1, True),
        )
        if self.shard is not None:
            parse_shard(self.shard)
        if self.renderer not in RENDERERS:
            raise UserError(
                f"--renderer must be one of {', '.join(RENDERERS)}, got {self.renderer!r}")
        if self.device not in DEVICES:
            raise UserError(f"--device must be auto, cpu, cuda or mps, got {self.device!r}")
        if self.precision not in PRECISIONS:
            raise UserError(
                f"--precision must be one of {', '.join(PRECISIONS)}, got {self.precision!r}")
        if self.preprocess not in PREPROCESSINGS:
            raise UserError(f"--preprocess must be one of {', '.join(PREPROCESSINGS)}, "
                            f"got {self.preprocess!r}")
        if self.temperature > MAX_TEMPERATURE:
            raise UserError(f"--temperature must be at most 2, got {self.temperature:g}")
        if self.executor not in EXECUTORS:
            raise UserError(
                f"--executor must be one of {', '.join(EXECUTORS)}, got {self.executor!r}")
        if self.ray_address is not None and self.executor != "ray":
            raise UserError("--ray-address needs --executor ray")

    def settings(self, task_render_timeout_s: float | None) -> RunSettings:
        """The run's :class:`RunSettings` (``task_render_timeout_s``: the task's protocol's
        seconds per render, used without ``--render-timeout``)."""
        from svgeval.render.isolated import DEFAULT_TIMEOUT_S
        from svgeval.runner import RunSettings
        from svgeval.runner.units import parse_shard

        return RunSettings(
            temperature=None if self.omit_temperature else self.temperature,
            max_tokens=self.max_tokens,
            seed=self.seed,
            concurrency=self.concurrency,
            timeout_s=self.timeout,
            first_token_timeout_s=self.first_token_timeout,
            stream=self.stream,
            limit=self.limit,
            render_workers=self.render_workers,
            render_timeout_s=self.render_timeout or task_render_timeout_s or DEFAULT_TIMEOUT_S,
            renderer=self.renderer,
            render_cache=str(self.render_cache) if self.render_cache else None,
            metric_batch_size=self.metric_batch_size,
            device=None if self.device == "auto" else self.device,
            precision=self.precision,
            preprocess=self.preprocess,
            epochs=self.epochs,
            shard=parse_shard(self.shard) if self.shard is not None else None,
            executor=self.executor,
            ray_address=self.ray_address,
        )
