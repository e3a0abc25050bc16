"""The model kinds that run a checkpoint in this process: ``hf:`` (transformers) and ``vllm:``.

Both take a hub id or a local folder and typed ``--model-arg KEY=VALUE`` options (the
dataclasses of :mod:`svgeval.models.checkpoint_options`, checked like a task's ``--set`` options: :mod:`svgeval.tasks.options`).
Each kind checks its options and where the checkpoint is (:func:`checkpoint_source`: a folder,
or a hub id that the hub or the local cache can give, in seconds) when it is asked for, and
returns a :class:`PendingModel` whose :meth:`~PendingModel.load` imports torch, transformers or
vLLM and loads the weights: the runner calls it after the run's cheap checks (the data, the run
directory). A checkpoint that cannot load stops the run before any sample with one line
(:class:`ModelUnavailable`).
"""

from __future__ import annotations

from pathlib import Path

from svgeval.metrics._models import check_hub
from svgeval.models.base import Model, ModelUnavailable, PendingModel
from svgeval.models.checkpoint_options import HFOptions, VLLMOptions
from svgeval.models.registry import EndpointOptions, model_kind
from svgeval.tasks.options import InvalidOption, parse_options


def checkpoint_source(spec: str, argument: str) -> str:
    """The folder (when it exists) or hub id ``argument`` names, in seconds at most.

    ModelUnavailable for a path that names no folder, and for a hub id when the hub does not
    answer (:func:`~svgeval.metrics._models.check_hub`, which asks it once per process, as the
    model-based metrics do, and then works offline) and the local Hugging Face cache lacks it.
    A hub id the cache holds is then given as its folder there: the processes a checkpoint
    starts (vLLM's workers) would otherwise ask the hub again, as nothing of this process's
    offline state is put in their environment.
    """
    path = Path(argument).expanduser()
    if path.exists():
        if not path.is_dir():
            raise ModelUnavailable(f"{spec}: {argument} is a file; give the checkpoint's folder")
        return str(path.resolve())
    if argument.startswith(("/", ".", "~")) or argument.count("/") > 1:
        raise ModelUnavailable(f"{spec}: no such folder: {argument}")
    unreachable = check_hub()
    if not unreachable:
        return argument
    cached = hub_cache_folder(argument)
    if cached is None:
        kind = spec.partition(":")[0]
        raise ModelUnavailable(f"{spec}: not in the local Hugging Face cache, and {unreachable}; "
                               f"download it where the hub answers and give its folder "
                               f"({kind}:FOLDER)")
    return str(cached)


def hub_cache_folder(repo: str) -> Path | None:
    """The folder of the local Hugging Face cache that holds the checkpoint ``repo`` (the
    snapshot with its config.json); None when the cache has none."""
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(repo, "config.json")
    except (ImportError, ValueError):  # no huggingface_hub (so no transformers); not a hub id
        return None
    return Path(found).parent if isinstance(found, str) else None


def positive(**values: float | None) -> None:
    """Each option given must be above 0; :class:`InvalidOption` naming the first that is not."""
    for name, value in values.items():
        if value is not None and value <= 0:
            raise InvalidOption(f"--model-arg {name}={value}: must be more than 0")


@model_kind(
    "hf",
    "a transformers checkpoint (hub id or folder) run in this process; text or vision-language",
    "<hub id or folder>",
    options=HFOptions,
)
def _hf(spec: str, argument: str, options: EndpointOptions) -> Model:
    hf = parse_options(HFOptions, options.model_args, "hf", "--model-arg")
    positive(batch_size=hf.batch_size, max_new_tokens=hf.max_new_tokens)
    source = checkpoint_source(spec, argument)

    def load() -> Model:
        try:
            from svgeval.models.hf_loading import load_hf_model  # imports torch and transformers
        except ImportError as error:
            raise ModelUnavailable(
                f"{spec} needs torch and transformers ({error.name} is missing): "
                "pip install 'svgeval[models]'"
            ) from None
        return load_hf_model(spec, source, hf, default_batch_size=options.concurrency)

    return PendingModel(spec, load)


@model_kind(
    "vllm",
    "a checkpoint (hub id or folder) in vLLM's offline engine in this process; needs a GPU",
    "<hub id or folder>",
    options=VLLMOptions,
)
def _vllm(spec: str, argument: str, options: EndpointOptions) -> Model:
    args = parse_options(VLLMOptions, options.model_args, "vllm", "--model-arg")
    positive(tensor_parallel_size=args.tensor_parallel_size, batch_size=args.batch_size,
             gpu_memory_utilization=args.gpu_memory_utilization,
             max_model_len=args.max_model_len, max_new_tokens=args.max_new_tokens)
    if args.gpu_memory_utilization > 1:
        raise InvalidOption("--model-arg gpu_memory_utilization must be at most 1")
    source = checkpoint_source(spec, argument)

    def load() -> Model:
        from svgeval.models.vllm_backend import load_vllm_model

        return load_vllm_model(spec, source, args, default_batch_size=options.concurrency)

    return PendingModel(spec, load)
