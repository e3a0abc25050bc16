"""How many samples a batch of the model metrics holds: sized from the memory free, and halved
when a batch runs out of it.

The model metrics' memory grows with the batch: ``starvector-img2svg`` (LPIPS' VGG on two
512 px renders a sample, DINO) peaked at 13.6 GB of RSS at 32 samples a batch on a CPU and 4.3
GB at 8, about :data:`BYTES_PER_SAMPLE` a sample over 1.2 GB of models (100 samples; 8 was
also faster: ``bench/RESULTS.md``). ``--metric-batch-size`` left out (``auto``) is
:func:`auto_batch_size`: at most :data:`CPU_BATCH` on a CPU and :data:`GPU_BATCH` on a GPU, and
no more than a quarter of the memory free when the stage starts holds at that rate, so a run
beside other work neither swaps nor meets the OOM killer. A batch that still runs out of memory
(:func:`ran_out_of_memory`) is computed again in halves
(:func:`svgeval.runner.metric_stage.fill_batched_metrics`); one sample that does not fit stops
the stage with :class:`MetricsOutOfMemory`, every batch before it stored.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from svgeval.errors import UserError

BYTES_PER_SAMPLE = 400 * 1024 * 1024
"""Memory a sample of a batch takes in the heaviest metric measured (module doc)."""

CPU_BATCH = 8
"""The largest automatic batch on a CPU."""

GPU_BATCH = 32
"""The largest automatic batch on a GPU."""

SHARE_OF_FREE = 4
"""A batch may take one part in this many of the memory free."""


class MetricsOutOfMemory(UserError):
    """One sample of a model metric needs more memory than there is: the user's to fix."""


def free_bytes(device: str | None) -> int | None:
    """The memory free for the metrics on ``device``: a CUDA device's own when torch is loaded
    and the device is one; else this machine's available memory, within its cgroup's limit
    (a container's or a job scheduler's); None where it cannot be read."""
    if device is not None and device.startswith("cuda") and "torch" in sys.modules:
        import torch

        if torch.cuda.is_available():
            free, _ = torch.cuda.mem_get_info(torch.device(device))
            return int(free)
    available = _meminfo_available()
    limited = _cgroup_room()
    if available is None:
        return limited
    return available if limited is None else min(available, limited)


def _meminfo_available() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo``, or the free pages elsewhere."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _cgroup_room() -> int | None:
    """What this process's cgroup (v2) may still take: ``memory.max`` less
    ``memory.current``; None without a limit."""
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = int(Path("/sys/fs/cgroup/memory.current").read_text())
    except (OSError, ValueError):
        return None
    return None if limit == "max" else max(0, int(limit) - used)


def auto_batch_size(device: str | None, free: int | None = None) -> int:
    """The automatic batch on ``device`` (module doc); ``free`` defaults to
    :func:`free_bytes`."""
    on_gpu = device is not None and device.startswith("cuda")
    largest = GPU_BATCH if on_gpu else CPU_BATCH
    free = free_bytes(device) if free is None else free
    if free is None:
        return largest
    return max(1, min(largest, free // SHARE_OF_FREE // BYTES_PER_SAMPLE))


def batch_size(asked: int | None, device: str | None) -> int:
    """``--metric-batch-size`` as given, or :func:`auto_batch_size` when it was left out, on
    ``device`` (None: a CUDA device when torch sees one, as the metrics choose)."""
    if asked is not None:
        return asked
    if device is None and importlib.util.find_spec("torch") is not None:
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    return auto_batch_size(device)


def ran_out_of_memory(error: BaseException) -> bool:
    """True for Python's ``MemoryError``, torch's ``OutOfMemoryError`` (a GPU's) and the
    ``RuntimeError`` of torch's CPU allocator (``DefaultCPUAllocator: can't allocate
    memory``)."""
    return (isinstance(error, MemoryError) or type(error).__name__ == "OutOfMemoryError"
            or (isinstance(error, RuntimeError) and "can't allocate memory" in str(error)))
