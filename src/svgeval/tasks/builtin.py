"""A suite's built-in sample: a few samples in the release's own layout, written by svgeval.

Every task has one, so it runs offline before anything is downloaded: ``svgeval run TASK
--data builtin`` and ``svgeval demo TASK``. The sample is not a copy of the release: the suite's
``svgeval/builders/<suite>/builtin.py`` draws it from svgeval's own icons
(:mod:`svgeval.svg.demo_corpus`), with the suite's generators where it has them, in the files,
names and fields of the released data, so the task reads it with the code that reads the
release. It registers one :class:`BuiltinSample` per task in :data:`BUILTIN_SAMPLES` (found
through the ``svgeval.builtin_samples`` entry points, as tasks are), whose
:attr:`BuiltinSample.provenance` says what it was made from.

The files are written once into the cache (``$SVGEVAL_CACHE/builtin/<folder>-<digest>``); the
digest covers svgeval's version and the source of the writer's package, so a changed writer
writes a new folder. A folder is written by one process at a time (a file lock beside it; the
others wait and read it), beside its final name and renamed into place, so a killed writer
leaves no partial folder.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from svgeval.registry import Registry
from svgeval.tasks.download import cache_dir

BUILTIN = "builtin"
"""The ``--data`` value that names the built-in sample (a folder of that name in the working
directory is given by its absolute path, ``--data "$PWD/builtin"``)."""


@dataclass(frozen=True)
class BuiltinSample:
    """How to write a suite's built-in sample.

    ``write(folder)`` writes the release layout under ``folder``; ``data`` is the path under it
    that ``--data`` names for this task ("" the folder itself; a file for suites whose
    ``--data`` takes one). ``folder`` names the cache folder and is shared by the tasks of a
    suite that read one release. ``provenance`` is one line: what the samples were made from.
    """

    folder: str
    write: Callable[[Path], None]
    provenance: str
    data: str = ""


BUILTIN_SAMPLES: Registry[BuiltinSample] = Registry(
    "builtin sample", "svgeval.builtin_samples", name_of=lambda sample: sample.folder
)
"""Task name -> its built-in sample (registered with ``BUILTIN_SAMPLES.register(sample,
name=task)``)."""


def builtin_sample(task: str) -> BuiltinSample | None:
    """The built-in sample of ``task`` (None: it has none)."""
    return BUILTIN_SAMPLES.get(task) if task in BUILTIN_SAMPLES else None


def is_builtin(data: str | os.PathLike[str] | None) -> bool:
    """True when ``data`` names the built-in sample: exactly ``builtin``, as typed."""
    return data is not None and os.fspath(data) == BUILTIN


def _digest(sample: BuiltinSample) -> str:
    """svgeval's version and the source of the writer's package (its generators with it)."""
    from svgeval import __version__

    digest = hashlib.sha256(str(__version__).encode())
    module_file = sys.modules[sample.write.__module__].__file__
    for path in sorted(Path(module_file).parent.glob("*.py")) if module_file else []:
        digest.update(b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def builtin_root(sample: BuiltinSample) -> Path:
    """The folder holding ``sample``'s files, written first if the cache lacks it."""
    from filelock import FileLock

    parent = cache_dir() / BUILTIN
    final = parent / f"{sample.folder}-{_digest(sample)}"
    if final.is_dir():
        return final
    parent.mkdir(parents=True, exist_ok=True)
    # one writer at a time: another process waits for its folder rather than drawing it too
    # (the animation track's videos take a minute of browser time)
    with FileLock(parent / f".{final.name}.lock"):
        if final.is_dir():
            return final
        scratch = Path(tempfile.mkdtemp(prefix=f".{sample.folder}-", dir=parent))
        try:
            sample.write(scratch)
            os.rename(scratch, final)
        except OSError:
            if not final.is_dir():  # a rename refused for another reason than a finished twin
                raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return final


def builtin_data(sample: BuiltinSample) -> Path:
    """What ``--data builtin`` stands for: the written folder, or the path under it."""
    root = builtin_root(sample)
    return root / sample.data if sample.data else root
