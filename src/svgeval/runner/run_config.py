"""``config.json``: what a run is (:class:`RunConfig`), with its settings (:class:`RunSettings`:
their defaults are the run request's, :data:`svgeval.run_request.DEFAULTS`) and the slice of
work a sharded run holds (:class:`~svgeval.run_request.Shard`); a record like those of
:mod:`svgeval.runner.records`, checked whenever it is read back."""

from __future__ import annotations

from typing import Any, cast

from pydantic import ConfigDict, Field, model_validator

from svgeval.metrics.model_settings import ModelSettings
from svgeval.render.isolated import DEFAULT_TIMEOUT_S
from svgeval.run_request import DEFAULTS, Precision, Preprocessing, Shard
from svgeval.runner.records import OmitsDefaults, Record, now


class RunSettings(OmitsDefaults):
    """Generation and execution settings of a run."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    omitted_at_default = ("epochs", "shard", "precision", "preprocess", "model_paths")

    temperature: float | None = DEFAULTS.temperature
    """Sampling temperature sent to the model; None sends none (the server's default)."""
    max_tokens: int | None = None
    """Cap on generated tokens; None sends none."""
    seed: int | None = None
    """Seed for data generation and sampling."""
    concurrency: int = DEFAULTS.concurrency
    """Model requests in flight."""
    timeout_s: float | None = None
    """Seconds of silence after which a streamed answer is abandoned and retried."""
    first_token_timeout_s: float | None = None
    """Longest wait for an answer's first token, queueing included (None: 10 x timeout_s)."""
    stream: bool = DEFAULTS.stream
    """Answers are streamed (server-sent events)."""
    limit: int | None = None
    """First N samples of each group (not part of the run's identity: a resume may raise it)."""
    render_workers: int | None = None
    """Render processes (None: one per CPU)."""
    render_timeout_s: float = DEFAULT_TIMEOUT_S
    """Wall-clock limit of one render."""
    renderer: str = DEFAULTS.renderer
    """Renderer of every render: cairosvg (the papers'), skia or resvg (svgeval.render.backends)."""
    render_cache: str | None = None
    """Folder of the on-disk render cache (svgeval.render.disk_cache); None: no cache."""
    metric_batch_size: int | None = None
    """Samples per batch of a model-based metric (None: sized from the memory free,
    :mod:`svgeval.runner.metric_memory`)."""
    device: str | None = None
    """Where model-based metrics run: cpu, cuda, mps (None: cuda when available)."""
    precision: str = DEFAULTS.precision
    """Precision of the model-based metrics' forward passes (``--precision``; fp32, the papers'
    numbers, is left out of the file). Part of the identity: it changes those numbers."""
    preprocess: str = DEFAULTS.preprocess
    """Where the model-based metrics turn renders into network inputs (``--preprocess``; cpu,
    the model's own image processor, is left out of the file). Part of the identity: a resize
    on the device follows torch's filters, not PIL's."""
    model_paths: dict[str, str] = Field(default_factory=dict)
    """Local weights by metric (``--model-path METRIC=PATH``; none is left out of the file),
    handed to the model metrics with the precision and preprocessing
    (:meth:`model_settings`); not part of the identity: the weights a hub id names are the
    same wherever they are read from, and a re-score on another machine may find them
    elsewhere."""
    executor: str = DEFAULTS.executor
    """Where scoring and model metrics ran: local or ray; not part of the identity."""
    ray_address: str | None = None
    """The Ray cluster joined with ``--executor ray`` (None: a local Ray instance)."""
    epochs: int = DEFAULTS.epochs
    """Answers per prompt (``--epochs``; not part of the identity: a resume may raise it)."""
    shard: Shard | None = None
    """The slice of the work units held (None: all); :mod:`svgeval.runner.units`."""

    def model_settings(self) -> ModelSettings:
        """How the run's model metrics compute: its precision, preprocessing and local weights."""
        return ModelSettings(cast(Precision, self.precision),
                             cast(Preprocessing, self.preprocess), dict(self.model_paths))


class RunConfig(Record):
    """``config.json``: what a run is. Runs with equal identities are comparable and resumable."""

    created_at: str = Field(default_factory=now)
    """When the run directory was first written."""
    task: str
    """Task name."""
    task_version: str
    """Task version: prompts or scoring changed when it changed."""
    model: str
    """Model spec as given."""
    base_url: str | None = None
    """Endpoint of an HTTP model (never a key)."""
    judge: str | None = None
    """Spec of the judge model (``--judge``) whose verdicts the samples carry; None: none."""
    judge_base_url: str | None = None
    """Endpoint of the judge (never a key)."""
    task_options: dict[str, Any]
    """``--set`` options as typed values, plus ``tier`` and ``seed``."""
    data: str | None = None
    """The data folder, resolved to an absolute path (None: the downloaded release)."""
    settings: RunSettings
    """Generation and execution settings."""
    n_samples: int
    """Samples of the full dataset (before ``--limit``)."""
    dataset_hash: str
    """Hash of every sample's id, group, prompt, reference and target (before ``--limit``)."""
    versions: dict[str, str]
    """Versions of the packages that change numbers (svgeval, CairoSVG, lxml, numpy, ...)."""

    @model_validator(mode="before")
    @classmethod
    def _retired_keys(cls, data: Any) -> Any:
        """Runs written before ``data_as_given`` (``--data`` as typed, never read) was retired
        still load: the key is dropped."""
        if isinstance(data, dict) and "data_as_given" in data:
            return {key: value for key, value in data.items() if key != "data_as_given"}
        return data

    def identity(self) -> dict[str, Any]:
        """What must match for a resume: everything but timestamps, versions, limits and
        execution settings that do not change answers."""
        return {
            "task": self.task,
            "task_version": self.task_version,
            "model": self.model,
            "judge": self.judge,
            "task_options": self.task_options,
            "dataset_hash": self.dataset_hash,
            "temperature": self.settings.temperature,
            "max_tokens": self.settings.max_tokens,
            "seed": self.settings.seed,
            "renderer": self.settings.renderer,
            "precision": self.settings.precision,
            "preprocess": self.settings.preprocess,
        }
