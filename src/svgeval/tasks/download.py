"""Find a benchmark's official release: a ``--data PATH`` the user gives, or a cached download.

Releases are GitHub archives pinned to a commit. They are downloaded once into the cache
directory (``$SVGEVAL_CACHE`` or the platform's user cache dir, e.g. ``~/.cache/svgeval``) and
unpacked there; later runs reuse the copy. Nothing is downloaded when ``--data`` is given.
``$SVGEVAL_ARCHIVE_HOST`` replaces ``https://codeload.github.com`` (a mirror or a proxy).
Releases on the Hugging Face hub are fetched with ``huggingface_hub`` (:func:`hub_download`,
the ``hub`` extra) into the hub's own cache, once the hub has answered the quick probe of
:func:`~svgeval.metrics._models.check_hub`: when it does not, only the local cache is read and
a download fails at once, with one line saying the hub is out of reach.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from svgeval.errors import UserError
from svgeval.metrics._models import check_hub


class DataUnavailable(UserError):
    """The data could not be found or downloaded; the message says what to do."""


@dataclass(frozen=True)
class GithubRelease:
    """A repository snapshot: ``owner/name`` at ``commit``; ``marker`` is a path it must hold."""

    repo: str
    commit: str
    marker: str

    @property
    def url(self) -> str:
        host = os.environ.get("SVGEVAL_ARCHIVE_HOST", "https://codeload.github.com")
        return f"{host.rstrip('/')}/{self.repo}/tar.gz/{self.commit}"


def cache_dir() -> Path:
    """Root of svgeval's download cache."""
    import platformdirs  # here, as httpx and tarfile below: off the start-up of every run

    return Path(os.environ.get("SVGEVAL_CACHE") or platformdirs.user_cache_dir("svgeval"))


def hub_download(repo: str, filename: str | None = None, patterns: Sequence[str] | None = None,
                 advice: str = "pass --data PATH") -> Path:
    """A file (``filename``) of the hub dataset ``repo``, or its snapshot (the files matching
    ``patterns``, all without), downloaded once into the hub's cache. Raises
    :class:`DataUnavailable` with one line: without ``huggingface_hub`` it names the extra to
    install, otherwise why the download failed; both end with ``advice``."""
    try:
        import huggingface_hub
    except ImportError:
        raise DataUnavailable(f"downloading {repo} from the hub needs huggingface_hub: pip "
                              f"install 'svgeval[hub]'; or {advice}") from None
    unreachable = check_hub()
    try:
        if filename is not None:
            return Path(huggingface_hub.hf_hub_download(repo, filename, repo_type="dataset"))
        return Path(huggingface_hub.snapshot_download(
            repo, repo_type="dataset", allow_patterns=list(patterns) if patterns else None))
    except Exception as error:  # noqa: BLE001 (network, offline mode, gated repo, ...)
        what = f"{filename} of {repo}" if filename is not None else repo
        raise hub_failure(f"download {what}", error, unreachable, advice) from None


def hub_failure(action: str, error: Exception, unreachable: str | None,
                advice: str = "pass --data PATH") -> DataUnavailable:
    """``could not <action> from the hub (<why>); <advice>`` in one line, where why is that the
    local cache lacks the data while the hub is out of reach (``unreachable``, as
    :func:`~svgeval.metrics._models.check_hub` says), else ``error``'s type and first line."""
    if unreachable:
        why = f"not in the local cache, and {unreachable}"
    else:
        why = f"{type(error).__name__}: {(str(error).strip().splitlines() or [''])[0][:160]}"
    return DataUnavailable(f"could not {action} from the hub ({why}); {advice}")


def resolve_data(release: GithubRelease, data: Path | None) -> Path:
    """Return the root of the release: ``data`` if given (checked), else the cached download."""
    if data is not None:
        root = Path(data).expanduser()
        if not (root / release.marker).exists():
            raise DataUnavailable(
                f"{root} does not look like the {release.repo} release (no {release.marker}); "
                "pass the folder that holds it with --data"
            )
        return root
    target = cache_dir() / release.repo.replace("/", "+") / release.commit
    if not (target / release.marker).exists():
        _download(release, target)
    return target


def _download(release: GithubRelease, target: Path) -> None:
    import tarfile

    import httpx  # here: most runs read data already on disk and need not import it

    try:
        response = httpx.get(release.url, follow_redirects=True, timeout=120.0)
        response.raise_for_status()
    except httpx.HTTPError as err:
        raise DataUnavailable(
            f"could not download {release.repo}@{release.commit} ({err}); "
            "download it yourself and pass its folder with --data PATH"
        ) from None
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        with tarfile.open(fileobj=io.BytesIO(response.content), mode="r:gz") as archive:
            archive.extractall(scratch, filter="data")
        (top,) = Path(scratch).iterdir()
        if target.exists():
            shutil.rmtree(target)
        top.rename(target)
    if not (target / release.marker).exists():
        raise DataUnavailable(f"the download of {release.repo} has no {release.marker}")
