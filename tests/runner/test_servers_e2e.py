"""``svgeval run`` against servers as they really behave, each a process of its own.

llama-cpp-python's interrupt-on-new-request (its server's own code path, reimplemented; the real
server in a slow test), ``python -m http.server`` answering 501, a gateway that ignores
``"stream": true`` and fails a fifth of its calls (killed with SIGKILL and resumed), a server
that refuses most prompts, half an emoji in a server's answer, and a base URL that carries
credentials. See ``tests/support/local_servers.py``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.local_servers import Server, http_server, read_log, running
from support.shared_paths import shared_release
from typer.testing import CliRunner

from svgeval.cli import app

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

NO_EDIT = {  # SVGEditBench paper, Table 1, "No Edit" (the input returned unchanged)
    "change_color/mse": 0.0702, "set_contour/mse": 0.0286, "compression/mse": 0.0,
    "compression/ratio": 1.0, "upside_down/mse": 0.0878, "transparency/mse": 0.0402,
    "crop_to_half/mse": 0.1174,
}


def run_args(data: Path, out: Path, server: Server, *extra: str) -> list[str]:
    return ["run", "svgeditbench", "--data", str(data), "--out", str(out),
            "--model", "openai-compatible:local", "--base-url", server.base_url, *extra]


def listening(url: str) -> bool:
    try:
        return httpx.get(url, timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def results_of(out: Path) -> dict[str, Any]:
    results: dict[str, Any] = json.loads((out / "results.json").read_text())
    return results


def record_ids(out: Path) -> Counter[str]:
    """Ids in samples.jsonl (a last line cut short by SIGKILL is left out, as readers do)."""
    complete = (out / "samples.jsonl").read_text().split("\n")[:-1]
    return Counter(json.loads(line)["id"] for line in complete)


def check_one_completed_generation_each(log: Path, samples: int) -> list[dict[str, Any]]:
    calls = read_log(log)
    completed = Counter(call["prompt"] for call in calls if call["outcome"] == "completed")
    assert len(completed) == samples and set(completed.values()) == {1}, completed
    return calls


def test_llama_cpp_python_interrupts_and_default_flags_answer_every_sample(
    demo_data: Path, tmp_path: Path
) -> None:
    """Today's main: 35 interrupted generations, 4 completed, 2 samples model_error, exit 0."""
    log = tmp_path / "calls.jsonl"
    with running("interrupting", "--token-delay", "0.02", "--log", str(log)) as server:
        result = CliRunner().invoke(app, run_args(demo_data, tmp_path / "r", server, "--limit", "1"))
    assert result.exit_code == 0, result.output
    results = results_of(tmp_path / "r")
    assert results["complete"] and results["n"] == results["n_answered"] == 6
    calls = check_one_completed_generation_each(log, 6)
    interrupted = sum(call["outcome"] == "interrupted" for call in calls)
    assert 0 < interrupted <= 15  # the first requests, sent together, before the limit fell
    assert result.output.count("cut answers short or refused them under load") == 1
    assert results["model_report"]["concurrency"]["asked"] == 8


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_real_llama_cpp_python_server_answers_every_sample_with_default_flags(
    tmp_path: Path,
) -> None:
    """``python -m llama_cpp.server`` (llama-cpp-python 0.3.36 built from its PyPI sdist, with
    ``pip install "llama-cpp-python[server]" gguf``), default settings, on a tiny GGUF model
    the test writes (tests/support/tiny_gguf.py). Seen: 6 samples in 44 s, 11 interrupted streams, each
    sample answered once; today's main retried 22 times on "connection dropped"."""
    pytest.importorskip("llama_cpp.server.app")
    pytest.importorskip("gguf")
    from support.local_servers import free_port
    from support.tiny_gguf import write_tiny_llama

    data = shared_release("svgeditbench")
    model = write_tiny_llama(tmp_path / "tiny.gguf")
    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model),
               "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        server = Server(process, f"http://127.0.0.1:{port}/v1")
        deadline = time.monotonic() + 120
        while not listening(f"{server.base_url}/models") and time.monotonic() < deadline:
            time.sleep(0.5)  # the model loads
        out = tmp_path / "r"
        result = CliRunner().invoke(app, run_args(data, out, server, "--limit", "1"))
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert result.exit_code == 0, result.output
    results = results_of(out)
    assert results["complete"] and results["n"] == results["n_answered"] == 6
    responses = [json.loads(line) for line in (out / "responses.jsonl").read_text().splitlines()]
    assert {r["response"] for r in responses} == {"<svg/>"}  # the tiny model's whole answer
    assert {r["finish_reason"] for r in responses} == {"stop"}
    assert result.output.count("cut answers short or refused them under load") == 1
    assert results["model_report"]["concurrency"]["lowest"] < 8
    assert results["usage"]["attempts"] <= 6 + 15, results["usage"]


def test_an_endpoint_answering_501_stops_within_30_s_with_one_line(
    demo_data: Path, tmp_path: Path
) -> None:
    """``python -m http.server`` answers 501 to every POST. Today's main: 7 attempts a sample,
    55 s for 6 samples, exit 0."""
    with http_server(tmp_path) as server:
        started = time.monotonic()
        finished = subprocess.run(
            [sys.executable, "-m", "svgeval.cli", *run_args(demo_data, tmp_path / "r", server)],
            capture_output=True, text=True, timeout=120, check=False,
        )
        elapsed = time.monotonic() - started
    assert finished.returncode == 1 and elapsed < 30
    lines = [line for line in (finished.stdout + finished.stderr).splitlines()
             if line.strip() and not line.startswith("0/72 samples · ")]  # the progress line
    assert lines == [(
        f"error: openai-compatible:local: HTTP 501 from {server.base_url}/chat/completions: "
        "Unsupported method ('POST'); the server takes no chat requests there: check that "
        "--base-url is the API root of a Chat Completions server (often ending in /v1)"
    )]


def kill_and_resume(data: Path, out: Path, server: Server, after_records: int) -> int:
    """Run, SIGKILL the run once ``after_records`` samples are written, resume; the number
    finished before the kill."""
    command = [sys.executable, "-m", "svgeval.cli", *run_args(data, out, server)]
    process = subprocess.Popen(
        command, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 300
    samples = out / "samples.jsonl"
    while time.monotonic() < deadline and process.poll() is None:
        if samples.exists() and samples.read_text().count("\n") >= after_records:
            break
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    finished_before = len(record_ids(out))
    resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True,
                             timeout=1200, check=False)
    assert resumed.returncode == 0, resumed.stderr
    return finished_before


def check_gateway_run(data: Path, tmp_path: Path, samples: int, kill_after: int) -> dict[str, Any]:
    """A gateway that ignores ``stream`` and fails every fifth call (500, an HTML 502, a
    dropped connection in turn), a run killed and resumed: each sample recorded once."""
    log, out = tmp_path / "calls.jsonl", tmp_path / "r"
    options = ("--fail-every", "5", "--delay", "0.02", "--log", str(log))
    with running("gateway", *options) as server:
        finished_before = kill_and_resume(data, out, server, kill_after)
    assert kill_after <= finished_before < samples
    counts = record_ids(out)
    assert len(counts) == samples and set(counts.values()) == {1}
    calls = read_log(log)
    assert {call["outcome"] for call in calls} == {"answered", "http-500", "http-502", "drop"}
    answered = Counter(call["prompt"] for call in calls if call["outcome"] == "answered")
    assert len(answered) == samples and max(answered.values()) <= 2  # asked again: in flight
    results = results_of(out)
    assert results["complete"] and results["n"] == results["n_answered"] == samples
    assert results["n_valid"] == samples
    return results


def test_a_gateway_that_ignores_stream_and_fails_a_fifth_of_calls_killed_and_resumed(
    demo_data: Path, tmp_path: Path
) -> None:
    """Today's main: every request "stream cut off", every sample model_error, exit 0."""
    results = check_gateway_run(demo_data, tmp_path, 72, 10)
    identity = tmp_path / "identity"
    assert CliRunner().invoke(app, ["run", "svgeditbench", "--data", str(demo_data), "--out",
                                    str(identity), "--model", "identity"]).exit_code == 0
    assert results["metrics"] == results_of(identity)["metrics"]  # the echo is a No Edit


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.timeout(1800)
def test_600_samples_against_that_gateway_killed_and_resumed_give_the_no_edit_row(
    tmp_path: Path,
) -> None:
    results = check_gateway_run(shared_release("svgeditbench"), tmp_path, 600, 150)
    assert {key: round(results["metrics"][key], 4) for key in NO_EDIT} == NO_EDIT


def test_a_run_whose_samples_mostly_got_no_answer_exits_non_zero_and_says_so(
    demo_data: Path, tmp_path: Path
) -> None:
    """A server whose context holds none of the prompts (llama.cpp answers 400). Today's main:
    exit 0, ``complete: true``."""
    with running("gateway", "--max-prompt-chars", "100") as server:
        result = CliRunner().invoke(app, run_args(demo_data, tmp_path / "r", server, "--limit", "2"))
    assert result.exit_code == 1
    assert ("error: 12 of 12 samples got no answer from the model (model_error in samples.jsonl; "
            "their numbers are failure values, not the model's): the run is incomplete; fix the "
            "cause and run again with --resume to ask again") in " ".join(result.output.split())
    results = results_of(tmp_path / "r")
    assert (results["n"], results["n_missing"], results["n_answered"]) == (12, 0, 0)
    assert results["complete"] is False


@pytest.mark.parametrize("kind", ["gateway", "interrupting"], ids=["json", "sse"])
def test_half_an_emoji_from_a_server_becomes_a_recorded_answer(
    kind: str, demo_data: Path, tmp_path: Path
) -> None:
    """The server's JSON (a whole answer, or streamed events) carries ``"\\ud83d"``; today's
    main died writing the record ("surrogates not allowed")."""
    with running(kind, "--reply", "half-emoji") as server:
        result = CliRunner().invoke(app, run_args(demo_data, tmp_path / "r", server, "--limit", "1"))
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (tmp_path / "r" / "samples.jsonl").read_text(
        encoding="utf-8").splitlines()]
    assert len(records) == 6
    assert all(r["replaced_surrogates"] == 1 and "<text>\ufffd</text>" in r["response"]
               for r in records)


def test_credentials_in_the_base_url_are_used_but_never_written(
    demo_data: Path, tmp_path: Path
) -> None:
    """Today's main posts to ``/v1?key=.../chat/completions`` (a 404) and writes the URL, with
    its password, to config.json."""
    log, out = tmp_path / "calls.jsonl", tmp_path / "r"
    with running("gateway", "--log", str(log)) as server:
        url = server.base_url.replace("http://", "http://alice:pa55word@") + "?key=q-secret-77"
        args = ["run", "svgeditbench", "--data", str(demo_data), "--out", str(out),
                "--model", "openai-compatible:local", "--base-url", url, "--limit", "1"]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        report = CliRunner().invoke(app, ["report", str(out)])
        assert report.exit_code == 0, report.output
    calls = read_log(log)
    assert {call["path"] for call in calls} == {"/v1/chat/completions?key=q-secret-77"}
    assert {call["authorization"] for call in calls} == {"Basic YWxpY2U6cGE1NXdvcmQ="}
    config = json.loads((out / "config.json").read_text())
    assert config["base_url"] == server.base_url.replace("http://", "http://***@") + "?key=***"
    written = [path for path in out.rglob("*") if path.is_file()]
    assert len(written) > 5
    for path in written:
        content = path.read_bytes()
        assert b"pa55word" not in content and b"q-secret-77" not in content, path
    assert "pa55word" not in result.output + report.output


def test_a_resumed_run_starts_from_what_the_first_learned_of_the_server(
    demo_data: Path, tmp_path: Path
) -> None:
    """Run 1 (6 samples) learns that llama-cpp-python's server takes one request at a time;
    run 2 (``--resume``, 6 more) starts there and no stream is cut. Main of 2026-12-02 started
    each run at 8 again and relearned (issue 43, defect 8: 11 cut prompts a run)."""
    log, out = tmp_path / "calls.jsonl", tmp_path / "r"
    with running("interrupting", "--token-delay", "0.02", "--log", str(log)) as server:
        first = CliRunner().invoke(app, run_args(demo_data, out, server, "--limit", "1"))
        assert first.exit_code == 0, first.output
        calls_before = len(read_log(log))
        servers = json.loads((out / "servers.json").read_text())["servers"]
        second = CliRunner().invoke(app, run_args(demo_data, out, server, "--limit", "2",
                                                  "--resume"))
    assert second.exit_code == 0, second.output
    assert servers == {server.base_url: {"limit": 1, "patience": 8}}
    calls = read_log(log)[calls_before:]
    assert [call["outcome"] for call in calls] == ["completed"] * 6
    assert (f"note: model: {server.base_url} took 1 request at a time when this run directory "
            "last asked it (servers.json): starting there") in " ".join(second.output.split())
    report = results_of(out)["model_report"]["concurrency"]
    assert (report["started"], report["cuts"]) == (1, 0)


def test_credentials_in_the_judge_url_and_a_judge_key_are_refused_in_one_line(
    demo_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_KEY", "sk-judge")
    args = ["run", "svgenius-style-transfer", "--out", str(tmp_path / "r"), "--model",
            "identity", "--judge", "openai-compatible:critic", "--judge-base-url",
            "http://alice:pw@127.0.0.1:9/v1", "--judge-api-key-env", "JUDGE_KEY"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    assert " ".join(result.output.split()) == (
        "error: --judge: openai-compatible:critic: --judge-base-url carries a user name and "
        "password (sent as basic authentication) and $JUDGE_KEY holds an API key (sent as a "
        "bearer token), but a request has one Authorization header and httpx sends only the "
        "basic one: take the credentials out of --judge-base-url or leave out "
        "--judge-api-key-env")
