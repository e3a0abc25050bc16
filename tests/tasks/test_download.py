"""Release download into the cache, from an archive host on 127.0.0.1."""

from __future__ import annotations

import http.server
import io
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from svgeval.tasks.download import DataUnavailable, GithubRelease, resolve_data

RELEASE = GithubRelease("owner/bench", "abc1234", marker="1_Task/query")


def archive() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        content = b"hello"
        info = tarfile.TarInfo("bench-abc1234/1_Task/query/a.txt")
        info.size = len(content)
        tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


@pytest.fixture()
def archive_host(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[str]]:
    hits: list[str] = []
    body = archive()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            found = self.path == "/owner/bench/tar.gz/abc1234"
            self.send_response(200 if found else 404)
            self.end_headers()
            self.wfile.write(body if found else b"")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("SVGEVAL_ARCHIVE_HOST", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.setenv("SVGEVAL_CACHE", str(tmp_path / "cache"))
    yield hits
    server.shutdown()
    server.server_close()


def test_download_once_then_reuse_the_cache(archive_host: list[str], tmp_path: Path) -> None:
    root = resolve_data(RELEASE, None)
    assert (root / "1_Task/query/a.txt").read_bytes() == b"hello"
    assert root.is_relative_to(tmp_path / "cache")
    assert resolve_data(RELEASE, None) == root
    assert archive_host == ["/owner/bench/tar.gz/abc1234"]


def test_failed_download_and_bad_data_path_say_what_to_do(
    archive_host: list[str], tmp_path: Path
) -> None:
    with pytest.raises(DataUnavailable, match="--data PATH"):
        resolve_data(GithubRelease("owner/other", "abc1234", marker="x"), None)
    with pytest.raises(DataUnavailable, match="pass the folder"):
        resolve_data(RELEASE, tmp_path)


@pytest.mark.parametrize(("task", "repo"), [
    ("unisvg", "UniSVG"), ("vgbench-vgqa", "vgbench/VGQA"), ("sarena-icon-understanding", "SArena"),
    ("mmsvgbench-text2svg", "MMSVGBench"), ("sgp-genbench-object", "SGP"),
    ("lica-svg-1", "lica"),
])
def test_a_hub_release_without_huggingface_hub_names_the_extra(
    task: str, repo: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each suite downloaded from the hub, run without ``--data`` and without the package:
    one line naming the extra, exit 1, nothing scored."""
    import sys

    from typer.testing import CliRunner

    from svgeval.cli import app

    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # as if not installed
    result = CliRunner().invoke(app, ["run", task, "--model", "oracle", "--out",
                                      str(tmp_path / "r")])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 1 and len(lines) == 1, result.output
    assert "needs huggingface_hub: pip install 'svgeval[hub]'" in lines[0]
    assert repo.lower() in lines[0].lower()


def test_a_hub_download_that_fails_says_why_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("huggingface_hub")
    from svgeval.tasks.download import hub_download

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DataUnavailable) as raised:
        hub_download("nobody/no-such-dataset", "data.tsv")
    line = str(raised.value)
    assert "\n" not in line and line.startswith("could not download data.tsv of "
                                                "nobody/no-such-dataset from the hub (")
    assert line.endswith("; pass --data PATH")
