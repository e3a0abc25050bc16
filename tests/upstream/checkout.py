"""The released code of a benchmark at a pinned commit, fetched once into svgeval's cache.

Every script of ``tests/upstream`` runs a release as its authors published it: this module
clones the repository (``git clone``, then ``git checkout`` of the commit) into
``<cache>/upstream/<owner>__<name>@<commit>``, ``<cache>`` being svgeval's download cache
(``SVGEVAL_CACHE``, else the user cache folder of ``platformdirs``), and later runs reuse that
folder. ``--source`` clones from another place instead of GitHub (a mirror, a bare
copy: anything ``git clone`` reads); ``--checkout`` names a folder already holding the release
at that commit (a machine without git access), used as is.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import shutil
import subprocess
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svgeval.tasks.download import cache_dir


@dataclass(frozen=True)
class Release:
    """A released repository (``owner/name`` on GitHub) at one commit (40 hex digits)."""

    repository: str
    commit: str

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repository}.git"

    @property
    def cache_folder(self) -> Path:
        owner, name = self.repository.split("/")
        return cache_dir() / "upstream" / f"{owner}__{name}@{self.commit}"


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], check=False, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def _head(folder: Path) -> str | None:
    if not (folder / ".git").exists():
        return None
    return _git("-C", str(folder), "rev-parse", "HEAD")


def fetch(release: Release, source: str | None = None) -> Path:
    """The cache folder holding ``release``, cloned from ``source`` (GitHub when ``None``) and
    checked out at its commit the first time."""
    folder = release.cache_folder
    if _head(folder) == release.commit:
        return folder
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    _git("clone", "--quiet", "--no-checkout", source or release.url, str(partial))
    _git("-C", str(partial), "-c", "advice.detachedHead=false", "checkout", "--quiet",
         release.commit)
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    return folder


def parser(description: str | None, *names: str) -> argparse.ArgumentParser:
    """The command line every script shares: where each release comes from. With ``names``
    (a script that runs several releases) the options are ``--<name>-source`` and
    ``--<name>-checkout``."""
    arguments = argparse.ArgumentParser(description=description)
    for name in names or ("",):
        prefix = f"--{name}-" if name else "--"
        where = arguments.add_mutually_exclusive_group()
        where.add_argument(f"{prefix}source", help="git repository to clone the release from "
                           "(default: GitHub); the clone is cached")
        where.add_argument(f"{prefix}checkout", type=Path, help="folder already holding the "
                           "release at the pinned commit, used as is")
    return arguments


def released_code(release: Release, arguments: argparse.Namespace, name: str = "") -> Path:
    """The folder of ``release`` the command line asks for (the options of ``name``, see
    :func:`parser`): ``--checkout`` (whose HEAD, when it is a git work tree, must be the pinned
    commit) or the cached clone."""
    prefix = f"{name.replace('-', '_')}_" if name else ""
    checkout: Path | None = getattr(arguments, f"{prefix}checkout")
    if checkout is None:
        return fetch(release, getattr(arguments, f"{prefix}source"))
    folder = checkout.resolve()
    if not folder.is_dir():
        sys.exit(f"{folder} is not a folder: pass the release's work tree with --checkout")
    if (folder / "HEAD").is_file() and (folder / "objects").is_dir():
        sys.exit(f"{folder} is a bare git repository: pass it with --source instead")
    head = _head(folder)
    if head is not None and head != release.commit:
        sys.exit(f"{folder} is at {head}, not {release.commit}: check out that commit")
    return folder


@contextlib.contextmanager
def running_in(folder: Path, argv: list[str] | None = None) -> Iterator[None]:
    """Released code run with ``folder`` as the working folder (and ``argv`` as the command line,
    when given), its progress lines sent to stderr: a script's stdout is its JSON."""
    before, saved_argv = Path.cwd(), sys.argv
    os.chdir(folder)
    sys.argv = argv if argv is not None else saved_argv
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        os.chdir(before)
        sys.argv = saved_argv


def from_command_line(release: Release, docstring: str | None) -> Path:
    """The folder of ``release`` the command line of a script running one release asks for (its
    help: the first line of the script's ``docstring``)."""
    description = docstring.splitlines()[0] if docstring else None
    return released_code(release, parser(description).parse_args())


def stand_in_modules(modules: dict[str, dict[str, Any]]) -> None:
    """Put empty modules (with the given attributes) in ``sys.modules`` for imports the released
    code makes at its top but that the values a script prints never reach (API clients, metrics
    it does not compute). A module that is installed is still replaced: the stand-in is what the
    script's docstring says."""
    for name, attributes in modules.items():
        module = types.ModuleType(name)
        module.__dict__.update(attributes)
        sys.modules[name] = module


CLIP_METRIC_STAND_INS: dict[str, dict[str, Any]] = {
    "omegaconf": {"OmegaConf": None},
    "clip": {},
    "torchmetrics": {}, "torchmetrics.multimodal": {},
    "torchmetrics.multimodal.clip_score": {"CLIPScore": None},
    "torchmetrics.functional": {}, "torchmetrics.functional.multimodal": {},
    "torchmetrics.functional.multimodal.clip_score": {"_clip_score_update": None},
}
"""Stand-ins for what StarVector's and VectorGym's metric and validator modules import at their
top but L2 and SSIM never reach: ``omegaconf`` (the validator's configuration), ``clip`` and
``torchmetrics`` (CLIP-FID, CLIPScore)."""


def reference_packages() -> types.ModuleType:
    """Make the upstream packages the metric tests use importable (torchvision, lpips...: ``make
    test`` installs them into ``.venv/ref-packages``, ``SVGEVAL_REF_PACKAGES`` names another
    folder) and import torchvision the way ``tests/metrics/upstream_reference.py`` does (its
    CUDA wheel beside the CPU torch: pure-Python transforms and models only); returns that
    module."""
    folder = Path(os.environ.get("SVGEVAL_REF_PACKAGES", Path(sys.prefix) / "ref-packages"))
    if not folder.is_dir():
        sys.exit(f"no upstream packages at {folder}: run `make test` once, or set "
                 "SVGEVAL_REF_PACKAGES")
    sys.path.append(str(folder))
    # read by its path: importing it as ``metrics.upstream_reference`` would bind the name
    # ``metrics``, which some releases use for their own package
    spec = importlib.util.spec_from_file_location(
        "upstream_reference", Path(__file__).parents[1] / "metrics" / "upstream_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.import_torchvision()
    return module
