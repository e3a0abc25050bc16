"""``svgeval.evaluate``: a task on a model from a script, a notebook or a training loop.

::

    import svgeval

    evaluation = svgeval.evaluate("svgeditbench", "hf:Qwen/Qwen2.5-Coder-1.5B-Instruct",
                                  data="svgeditbench-data", limit=5, max_tokens=1024)
    evaluation.metrics["change_color/mse"]

``model`` is one of

* a spec string, as ``svgeval run --model`` takes it (``hf:DIR``, ``openai-compatible:NAME``
  with ``base_url=``, ``replay:FILE``...), with ``model_args`` as ``--model-arg``;
* a transformers model already in memory, with its tokenizer or processor (``processor=``):
  answered by the ``hf:`` backend (:class:`~svgeval.models.hf.HFModel`) in its current weights;
* a :class:`~svgeval.models.Model` (a plugin's backend);
* any function from a list of chat messages to the answer's text, plain or ``async``
  (:class:`~svgeval.models.callable_model.CallableModel`).

It writes the run directory ``svgeval run`` writes (``config.json``, ``responses.jsonl``,
``samples.jsonl``, ``results.json``), so ``svgeval report``, ``score`` and ``run --resume``
work on it, and returns an :class:`Evaluation`: the typed :class:`~svgeval.runner.Results` and
where they are. Errors are raised, not printed: ``ModelUnavailable`` (the model cannot answer
at all), ``RunConflict`` (``out`` holds another run), ``InvalidRunSetting`` (an option; a ValueError too),
``DataUnavailable`` (no data: its message names ``data=``, where the command line's names
``--data``). As on the command line, the options, the data, what ``out`` holds and whether a
hub id can be had (the hub, or the local cache) are checked before a checkpoint's weights load.

It runs where the command line cannot: inside a running event loop (a Jupyter notebook), where
the run gets a thread and an event loop of its own; and in a script without
``if __name__ == "__main__":``, whose render workers do not run the script again
(:mod:`svgeval.render.forkserver`).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
import threading
from collections.abc import Callable, Coroutine, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from svgeval.models import Model
from svgeval.models.base import InvalidModelSetting
from svgeval.run_request import DEFAULTS, InvalidRunSetting, RunRequest, checked
from svgeval.runner import Results, RunDir, SampleRecord
from svgeval.runner.build import build_runner
from svgeval.tasks.download import DataUnavailable

T = TypeVar("T")

CLI_FLAG_KEYWORDS = {"data": "data", "limit": "limit", "tier": "tier", "set": "options",
                     "model-arg": "model_args", "max-tokens": "max_tokens",
                     "base-url": "base_url", "api-key-env": "api_key_env",
                     "concurrency": "concurrency", "resume": "resume=True", "epochs": "epochs",
                     "temperature": "temperature", "render-workers": "render_workers",
                     "renderer": "renderer", "device": "device", "precision": "precision",
                     "preprocess": "preprocess", "model-path": "model_paths"}
"""``svgeval run``'s flags and the :func:`evaluate` keywords that stand for them."""

IN_MEMORY_MODEL_ARGS = ("batch_size", "max_new_tokens")
"""The ``model_args`` that apply to a transformers model already loaded."""


@dataclass(frozen=True)
class Evaluation:
    """What :func:`evaluate` returns: the run's results and its directory."""

    results: Results
    run_dir: Path

    @property
    def metrics(self) -> dict[str, float | None]:
        """``"<group>/<metric>"`` -> mean, as in ``results.json``."""
        return self.results.metrics

    def samples(self) -> list[SampleRecord]:
        """Every scored sample of the run (``samples.jsonl``)."""
        return list(RunDir(self.run_dir).read_samples())


def evaluate(
    task: str,
    model: Any,
    *,
    processor: Any = None,
    out: str | Path | None = None,
    data: str | Path | None = DEFAULTS.data,
    tier: str = DEFAULTS.tier,
    options: Mapping[str, object] | None = None,
    limit: int | None = DEFAULTS.limit,
    epochs: int = DEFAULTS.epochs,
    seed: int = DEFAULTS.seed,
    temperature: float | None = DEFAULTS.temperature,
    max_tokens: int | None = DEFAULTS.max_tokens,
    concurrency: int = DEFAULTS.concurrency,
    model_args: Mapping[str, object] | None = None,
    base_url: str | None = DEFAULTS.base_url,
    api_key_env: str | None = DEFAULTS.api_key_env,
    resume: bool = DEFAULTS.resume,
    render_workers: int | None = DEFAULTS.render_workers,
    renderer: str = DEFAULTS.renderer,
    device: str | None = None,
    precision: str = DEFAULTS.precision,
    preprocess: str = DEFAULTS.preprocess,
    model_paths: Mapping[str, str | Path] | None = None,
    name: str | None = None,
) -> Evaluation:
    """Run ``task`` with ``model`` (see the module's docstring) into ``out``.

    The arguments are ``svgeval run``'s flags, with its defaults and checks
    (:class:`~svgeval.run_request.RunRequest`): ``options`` its ``--set`` (Python values),
    ``limit`` the first N samples of each group, ``concurrency`` the requests in flight (for an
    ``hf:`` model, also its batch size unless ``model_args`` gives one), ``temperature=None``
    its ``--omit-temperature``, ``device`` where the model-based metrics run (None: auto),
    ``precision`` in which (fp32, bf16, fp16) and ``preprocess`` where renders become their
    inputs (cpu, device): both recorded in the run's config, and applied during the run whatever
    ``SVGEVAL_PRECISION`` and ``SVGEVAL_PREPROCESS`` say. ``model_paths`` gives a metric's local
    weights by metric name (``--model-path``: ``{"dino": "/models/dinov2-base"}``; ``"none"``
    turns a metric off), looked in before ``SVGEVAL_<METRIC>_MODEL``; like every setting, they
    hold for this run only, so two runs in one process never see each other's. ``out``
    defaults to a new folder ``runs/<task>-<time>``; with ``resume=True`` a run already there
    continues. ``name`` is the model's name in the run's records for a model passed as an
    object (default: its ``name_or_path`` or function name).
    """
    root = Path(out) if out is not None else fresh_run_folder(task)
    with data_errors_in_python_terms():
        request = request_in_python_terms(
            task=task, out_dir=root, data=data, tier=tier,
            options=_as_strings(options or {}), limit=limit, epochs=epochs, seed=seed,
            temperature=DEFAULTS.temperature if temperature is None else temperature,
            omit_temperature=temperature is None, max_tokens=max_tokens,
            concurrency=concurrency, resume=resume, render_workers=render_workers,
            renderer=renderer, device=device or DEFAULTS.device, precision=precision,
            preprocess=preprocess, base_url=base_url, api_key_env=api_key_env,
            model_args=_as_strings(model_args or {}),
            model_paths={metric: str(path) for metric, path in (model_paths or {}).items()},
            **({"model": model} if isinstance(model, str) else {}),
        )
        backend = None if isinstance(model, str) else as_model(
            model, processor=processor, concurrency=concurrency,
            model_args=request.model_args, name=name)
        runner = build_runner(request, model=backend)
        resumed = runner.prepare(resume)
        return Evaluation(run_coroutine(lambda: runner.run(resumed)), root)


def in_python_terms(message: str) -> str:
    """A message for the command line with its flags as :func:`evaluate`'s keywords:
    ``pass --data PATH`` -> ``pass data=PATH``."""
    def keyword(match: re.Match[str]) -> str:
        name = CLI_FLAG_KEYWORDS[match[1]]
        return name if "=" in name else f"{name}="

    flags = "|".join(map(re.escape, sorted(CLI_FLAG_KEYWORDS, key=len, reverse=True)))
    return re.sub(rf"--({flags})(?![\w-])(?: (?=[A-Z]))?", keyword, message)


@contextlib.contextmanager
def data_errors_in_python_terms() -> Iterator[None]:
    """A :class:`DataUnavailable` raised inside, raised again with its message
    :func:`in_python_terms`."""
    try:
        yield
    except DataUnavailable as error:
        raise DataUnavailable(in_python_terms(str(error))) from None


def request_in_python_terms(**values: Any) -> RunRequest:
    """The :class:`RunRequest` of ``values``; a wrong one is an :class:`InvalidRunSetting` whose
    line names the keyword (:func:`in_python_terms`), not the flag."""
    try:
        return checked(RunRequest, **values)
    except InvalidRunSetting as error:
        raise InvalidRunSetting(in_python_terms(str(error))) from None


def as_model(
    model: Any,
    *,
    processor: Any = None,
    concurrency: int = DEFAULTS.concurrency,
    model_args: Mapping[str, str] | None = None,
    name: str | None = None,
) -> Model:
    """The backend the object ``model`` stands for (see :func:`evaluate`; a spec string is the
    run request's); TypeError for anything else."""
    args = dict(model_args or {})
    if isinstance(model, Model):
        return model
    if _is_transformers_model(model):
        if processor is None:
            raise TypeError("a transformers model needs its tokenizer or processor: "
                            "evaluate(task, model, processor=tokenizer)")
        unknown = sorted(set(args) - set(IN_MEMORY_MODEL_ARGS))
        if unknown:
            raise InvalidModelSetting(
                f"model_args {unknown[0]!r} applies to a checkpoint svgeval loads; a "
                f"loaded model takes {', '.join(IN_MEMORY_MODEL_ARGS)}")
        from svgeval.models.checkpoint_options import HFOptions
        from svgeval.models.hf import HFModel
        from svgeval.tasks.options import parse_options

        parsed = parse_options(HFOptions, args, "a loaded model", "model_args")
        label = name or str(getattr(model, "name_or_path", "") or type(model).__name__)
        return HFModel(model, processor, spec=f"transformers:{label}",
                       batch_size=parsed.batch_size or concurrency,
                       max_new_tokens=parsed.max_new_tokens)
    if callable(model):
        from svgeval.models.callable_model import CallableModel

        return CallableModel(model, spec=f"callable:{name}" if name else None)
    raise TypeError(f"cannot evaluate a {type(model).__name__}: give a model spec string, a "
                    "transformers model with its processor, a svgeval Model or a function from "
                    "messages to text")


def _is_transformers_model(model: Any) -> bool:
    """A torch module that generates (a transformers model, or a PEFT model around one)."""
    torch = sys.modules.get("torch")
    return (torch is not None and isinstance(model, torch.nn.Module)
            and callable(getattr(model, "generate", None)) and hasattr(model, "config"))


def _as_strings(values: Mapping[str, object]) -> dict[str, str]:
    """Python option values as the command line writes them (``True`` -> ``true``)."""
    def text(value: object) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        return "none" if value is None else str(value)

    return {key: text(value) for key, value in values.items()}


def fresh_run_folder(task: str, parent: Path = Path("runs")) -> Path:
    """``runs/<task>-<local time to the second>``, with ``-2``, ``-3``... if it exists."""
    stamp = datetime.now().astimezone().strftime("%Y%m%d-%H%M%S")
    base = parent / f"{task}-{stamp}"
    candidate, number = base, 1
    while candidate.exists():
        number += 1
        candidate = base.with_name(f"{base.name}-{number}")
    return candidate


def run_coroutine(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``asyncio.run(make())``, or, when this thread already runs an event loop (a notebook),
    the same in a new thread, waited for."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    outcome: list[T] = []
    failure: list[BaseException] = []

    def work() -> None:
        try:
            outcome.append(asyncio.run(make()))
        except BaseException as error:  # noqa: BLE001 - raised again in the caller's thread
            failure.append(error)

    thread = threading.Thread(target=work, name="svgeval-evaluate")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return outcome[0]
