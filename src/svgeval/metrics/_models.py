"""Loading model weights for model-based metrics: lazily, once per process, CUDA when present.

Nothing here imports torch or transformers at module level; :func:`require` imports them on
first use and turns a missing package into :class:`MetricUnavailable` with an install hint.

Where weights come from, first match wins:

1. the ``model_path=`` argument of the metric (a local directory or file; when given, nothing
   else is tried),
2. the metric's entry in the call's :class:`ModelSettings` (``model_paths``: a run's
   ``--model-path METRIC=PATH``), else the environment variable ``SVGEVAL_<METRIC>_MODEL``
   (e.g. ``SVGEVAL_CLIP_MODEL``), which svgeval reads and never writes,
3. ``$SVGEVAL_MODEL_DIR/<org>--<name>`` or ``$SVGEVAL_MODEL_DIR/<name>`` for a hub id,
4. the hub id itself (``model=`` argument or the preset's), from the local Hugging Face cache
   or the hub.

Before the first hub id is tried, :func:`check_hub` asks the hub (``$HF_ENDPOINT``, default
``https://huggingface.co``) once per process whether it answers at all, waiting at most
``HUB_PROBE_TIMEOUT_S`` (the ``hf:`` and ``vllm:`` models and the datasets on the hub ask it
too, before they are fetched). If it does not, the process works offline from then on
(:func:`go_offline`): weights in the local cache still load, the others fail at once instead
of after minutes of retries, and the message says the hub was out of reach.

When none loads, :class:`MetricUnavailable` names the weights, every place tried, and how to
provide them; runs record the metric as not computed (None), never as 0.

Every forward pass runs under :func:`inference`: ``torch.inference_mode`` and, when the
call's precision (:attr:`ModelSettings.precision`: a run's ``--precision``, carried by its
:class:`~svgeval.tasks.base.MetricContext`; a call without settings reads
``SVGEVAL_PRECISION``) is ``bf16`` or ``fp16``, ``torch.autocast`` to that type on the
metric's device (weights stay float32; matrix products and convolutions run in the lower
precision, as mixed precision does on a GPU). ``fp32``, the default, is what the papers'
numbers are reproduced with.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, get_args

from svgeval.metrics.model_settings import (
    InvalidMetricSetting,
    ModelSettings,
    chosen,
    model_variable,
)
from svgeval.metrics.registry import MetricUnavailable
from svgeval.run_request import Device

INSTALL_HINT = 'install the model extra: pip install -e ".[models]"'
HUB_PROBE_TIMEOUT_S = 3.0
"""The longest wait for the Hugging Face hub to answer the one probe of a process."""
DEFAULT_HUB = "https://huggingface.co"
T = TypeVar("T")
_CACHE: dict[tuple[object, ...], Any] = {}
_LOCK = threading.Lock()
_HUB: dict[str, str | None] = {}
"""The probe's outcome: ``"state"`` -> None (reachable or offline by choice) or why not."""


def require(module: str, hint: str = INSTALL_HINT) -> Any:
    """Import ``module`` or raise :class:`MetricUnavailable` naming it and ``hint``."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise MetricUnavailable(f"the Python package {module!r} is not installed ({err}); {hint}") from err


@contextmanager
def inference(device: str, precision: str) -> Iterator[None]:
    """A forward pass of a model metric on ``device``: ``torch.inference_mode``, under
    ``torch.autocast`` to bfloat16 or float16 when ``precision``
    (:attr:`ModelSettings.precision`) asks for it."""
    torch = require("torch")
    with torch.inference_mode():
        if precision == "fp32":
            yield
            return
        dtype = torch.bfloat16 if precision == "bf16" else torch.float16
        with torch.autocast(device_type=device.split(":", 1)[0], dtype=dtype):
            yield


def to_device(value: Any, device: str) -> Any:
    """``value`` (a tensor, or a mapping of them such as a tokenizer's or an image processor's
    output, which comes back as a dict) on ``device``.

    From the CPU to a GPU it is copied from pinned memory without waiting, so the CPU goes on
    to prepare the next batch while the GPU still computes the last: a copy from ordinary
    (pageable) memory would first wait for all the work queued on the GPU."""
    if isinstance(value, Mapping):
        return {key: to_device(item, device) for key, item in value.items()}
    if value.device.type != "cpu" or not device.startswith("cuda"):
        return value.to(device)
    return value.pin_memory().to(device, non_blocking=True)


def read_back(results: Iterable[Any]) -> Iterator[Any]:
    """Each tensor of ``results`` (one batch's output each, computed on a device) as a NumPy
    array, read back one batch late.

    Reading a batch back waits for the device to finish it. One batch late, the wait is for
    the batch before the one just queued: the device computes that one while the CPU goes
    on to prepare the next, instead of the two taking turns."""
    pending = None
    for result in results:
        if pending is not None:
            yield pending.cpu().numpy()
        pending = result
    if pending is not None:
        yield pending.cpu().numpy()


DEVICES: tuple[str, ...] = get_args(Device)
"""Values of ``device=`` (``cuda:N`` selects one GPU)."""


def pick_device(device: str | None = None) -> str:
    """The torch device to run on: ``auto`` (or None) is ``cuda`` when torch sees a GPU, else
    ``cpu``; ``cpu``, ``cuda``, ``cuda:N`` and ``mps`` are taken as given. An unknown value
    raises :class:`InvalidMetricSetting`; ``cuda``/``mps`` on a machine without one raise
    :class:`MetricUnavailable` (the run records the metric as not computed)."""
    name = (device or "auto").strip().lower()
    if name.split(":", 1)[0] not in DEVICES:
        raise InvalidMetricSetting(
            f"device must be one of {', '.join(DEVICES)} (or cuda:N), not {device!r}")
    torch = require("torch")
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise MetricUnavailable(f"device {device!r} asked for, but torch sees no CUDA GPU here "
                                f"(torch {torch.__version__}); use --device cpu or auto")
    if name == "mps" and not (hasattr(torch.backends, "mps") and torch.backends.mps.is_available()):
        raise MetricUnavailable(f"device 'mps' asked for, but torch {torch.__version__} has no "
                                "MPS backend here; use --device cpu or auto")
    return name


def candidates(metric: str, model: str, model_path: str | None,
               settings: ModelSettings | None = None) -> list[tuple[str, bool]]:
    """Places to load ``model`` from, in order, each with whether it must exist locally."""
    if model_path:  # an explicit local path is the only place tried
        return [(str(model_path), True)]
    out: list[tuple[str, bool]] = []
    given = chosen(settings).model_path(metric)
    if given:
        out.append((given, True))
    root = os.environ.get("SVGEVAL_MODEL_DIR")
    if root and not Path(model).expanduser().exists():
        out.append((str(Path(root) / model.replace("/", "--")), True))
        out.append((str(Path(root) / model.rsplit("/", 1)[-1]), True))
    out.append((model, False))
    return out


TURNED_OFF = "none"
"""The weights path that turns a metric off (``--model-path lpips=none``): it is recorded as
not computed, with this reason, and its weights are never looked for."""


def load_first(
    metric: str,
    what: str,
    model: str,
    model_path: str | None,
    loader: Callable[[str], T],
    cache_key: tuple[object, ...] = (),
    kind: str | None = None,
    settings: ModelSettings | None = None,
) -> T:
    """Load with ``loader`` from the first candidate that works (:func:`candidates`: the local
    weights ``settings`` give for ``metric`` come before the rest), once per process.

    The cache key is (``kind`` or ``metric``, the place loaded from, ``cache_key``): metrics
    that share a network (CLIP for ``clip_score``, ``aesthetic`` and ``clip_fid``) pass the
    same ``kind`` and the same device in ``cache_key``, so it is loaded once. If none loads,
    raise :class:`MetricUnavailable` saying which weights (``what``), where it looked, and how
    to provide them.
    """
    if (model_path or chosen(settings).model_path(metric)) == TURNED_OFF:
        raise MetricUnavailable(f"{metric}: turned off (--model-path {metric}={TURNED_OFF} or "
                                f"{model_variable(metric)}={TURNED_OFF})")
    errors: list[str] = []
    for place, must_exist in candidates(metric, model, model_path, settings):
        local = Path(place).expanduser()
        if must_exist and not local.exists():
            errors.append(f"{place}: no such file or directory")
            continue
        source = str(local) if local.exists() else place
        unreachable = None if local.exists() else check_hub()
        key = (kind or metric, source, *cache_key)
        with _LOCK:
            if key in _CACHE:
                return _CACHE[key]  # type: ignore[no-any-return]
        try:
            value = loader(source)
        except MetricUnavailable:
            raise
        except Exception as err:  # noqa: BLE001 - every loader failure is reported together
            first = (str(err).strip().splitlines() or [""])[0][:200]
            where = f" (not in the local cache, and {unreachable})" if unreachable else ""
            errors.append(f"{place}{where}: {type(err).__name__}: {first}")
            continue
        with _LOCK:
            _CACHE[key] = value
        return value
    raise MetricUnavailable(
        f"{metric}: cannot load {what}. Looked in: " + "; ".join(errors)
        + ". Provide the weights as a hub id (model=...) reachable from this machine, or "
        "download them and pass a local directory with model_path=... (CLI: --model-path), "
        f"set {model_variable(metric)}, or put them under $SVGEVAL_MODEL_DIR/"
        f"{model.replace('/', '--')}."
    )


def check_hub() -> str | None:
    """None when the Hugging Face hub answers (or offline mode was chosen); else why it is out
    of reach, after switching this process to offline mode. Probes once per process."""
    with _LOCK:
        if "state" in _HUB:
            return _HUB["state"]
        if os.environ.get("HF_HUB_OFFLINE", "").upper() in ("1", "ON", "YES", "TRUE"):
            _HUB["state"] = None
            return None
        endpoint = os.environ.get("HF_ENDPOINT", DEFAULT_HUB).rstrip("/")
        httpx = require("httpx")
        try:
            httpx.head(endpoint, timeout=HUB_PROBE_TIMEOUT_S)
            state = None
        except httpx.HTTPError as err:
            state = (f"the hub at {endpoint} did not answer within {HUB_PROBE_TIMEOUT_S:g} s "
                     f"({type(err).__name__}), so svgeval works offline")
            go_offline()
        _HUB["state"] = state
        return state


def go_offline() -> None:
    """Make the Hugging Face libraries of this process work offline, through their own switch:
    ``huggingface_hub.constants.HF_HUB_OFFLINE``, which ``huggingface_hub`` and ``transformers``
    read at each call (``is_offline_mode()``) and ``datasets`` reads once, when imported (and,
    already imported, its ``datasets.config.HF_HUB_OFFLINE``, set too).

    It is the state of this machine's network, probed once per process, not a setting, and
    nothing of it goes into ``os.environ``: another process probes for itself (a Ray worker,
    through :func:`check_hub`), and a checkpoint handed to another process is given as its
    folder in the local cache (:func:`svgeval.models.in_process.checkpoint_source`)."""
    try:
        from huggingface_hub import constants
    except ImportError:
        return
    constants.HF_HUB_OFFLINE = True
    if "datasets.config" in sys.modules:  # imported already: it read the switch then
        from datasets import config as datasets_config

        datasets_config.HF_HUB_OFFLINE = True


def resolve_file(source: str, filename: str) -> Path:
    """A local weights file from ``source``: the file itself, ``filename`` inside a directory,
    the torch hub cache (``$TORCH_HOME/hub/checkpoints/<name>``, where pytorch-fid and
    torchmetrics keep downloaded checkpoints), or a Hugging Face hub repo (``org/name``, the
    file ``filename`` in it; or ``org/name/<file>``). Raises FileNotFoundError when none has it."""
    path = Path(source).expanduser()
    if path.is_dir():
        path = path / filename
    if path.is_file():
        return path
    if path.is_absolute() or source.startswith("."):
        raise FileNotFoundError(f"no file {path}")
    torch = require("torch")
    cached = Path(torch.hub.get_dir()) / "checkpoints" / Path(source).name
    if cached.is_file():
        return cached
    parts = source.split("/")
    if len(parts) < 2:
        raise FileNotFoundError(f"no file {source} here nor in the torch hub cache ({cached.parent})")
    hub = require("huggingface_hub")
    repo, name = "/".join(parts[:2]), "/".join(parts[2:]) or filename
    return Path(hub.hf_hub_download(repo, name))


def clear_cache() -> None:
    """Forget every loaded model (tests use it)."""
    with _LOCK:
        _CACHE.clear()


def batches(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
