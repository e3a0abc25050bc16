"""End to end with two local servers: the model answers style transfers, a judge scores them.

The judge server receives the original and the stylised render as PNG data URLs and answers in
the paper's format; the run records its scores; a SIGKILL and ``--resume`` ask neither server
again for what it answered; replies without a verdict are counted; a run without ``--judge``
records the judged metrics as not computed; endpoints declared text-only are refused first.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from support.fake_openai_server import (
    FakeOpenAIServer,
    Fault,
    RecordedRequest,
    message_images,
    message_text,
)
from support.style_transfer_data import cairo_render, style_transfer_items, write_items
from typer.testing import CliRunner

from svgeval.cli import app
from svgeval.messages import png_bytes, user_message
from svgeval.render.isolated import Renderer
from svgeval.tasks.base import Sample, Task
from svgeval.tasks.outcome import Outcome

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

CRITERIA = {
    "Content Preservation": ("cp", 5),
    "Detail Fidelity": ("df", 4),
    "Style Consistency": ("sc", 3),
    "Color Harmony": ("ch", 2),
    "Composition Balance": ("cb", 1),
}


def stylised(body: dict[str, Any]) -> str:
    """The model: a square whose colour depends on the prompt, after ``Answer:``."""
    colour = hashlib.sha256(message_text(body["messages"][-1]).encode()).hexdigest()[:6]
    return f"Answer:{square(colour)}"


def square(colour: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36">'
        f'<rect x="6" y="6" width="24" height="24" fill="#{colour}"/></svg>'
    )


def criterion(body: dict[str, Any]) -> str:
    found = re.search(r"Score Rubrics:\n\[([A-Za-z ]+):", message_text(body["messages"][-1]))
    assert found is not None, "not a rubric prompt"
    return found.group(1)


def judge_reply(body: dict[str, Any]) -> str:
    """The judge: a fixed score per criterion, in the paper's format."""
    return f"Feedback: Image 2 is a flat square. [RESULT] {CRITERIA[criterion(body)][1]}"


def decode(url: str) -> np.ndarray:
    png = base64.b64decode(url.removeprefix("data:image/png;base64,"))
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def run_args(file: Path, out: Path, model: FakeOpenAIServer, *extra: str) -> list[str]:
    return [
        "run",
        "svgenius-style-transfer",
        "--set",
        f"file={file}",
        "--tier",
        "easy",
        "--out",
        str(out),
        "--model",
        "openai-compatible:painter",
        "--base-url",
        model.base_url,
        "--render-workers",
        "2",
        *extra,
    ]


def judge_args(judge: FakeOpenAIServer, concurrency: int = 4) -> list[str]:
    return [
        "--judge",
        "openai-compatible:critic",
        "--judge-base-url",
        judge.base_url,
        "--judge-concurrency",
        str(concurrency),
    ]


def invoke(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.output


def lines(path: Path) -> list[dict[str, Any]]:
    """The complete records of ``path``: a last line without its newline is a write that
    SIGKILL cut short, which the run's readers drop too."""
    return [json.loads(line) for line in path.read_text().split("\n")[:-1] if line.strip()]


def repeats(server: FakeOpenAIServer) -> int:
    """Chat requests whose messages the server had been sent before."""
    return sum(1 for request in server.chat_requests if request.attempt > 0)


def test_judge_sees_both_renders_and_a_killed_run_resumes_without_asking_again(
    tmp_path: Path,
) -> None:
    items = style_transfer_items()
    file = write_items(tmp_path / "st.json", items)
    out = tmp_path / "run"
    with (
        FakeOpenAIServer(reply=stylised, delay_s=0.05) as model,
        FakeOpenAIServer(reply=judge_reply, delay_s=0.08) as judge,
    ):
        command = [
            sys.executable,
            "-m",
            "svgeval.cli",
            *run_args(file, out, model, "--concurrency", "2"),
            *judge_args(judge, 2),
        ]
        process = subprocess.Popen(
            command, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        samples = out / "samples.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if samples.exists() and samples.read_text().count("\n") >= 3:
                break
            time.sleep(0.02)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        finished = len(lines(samples))
        assert 3 <= finished < len(items)
        judged_before = len(judge.chat_requests)
        resumed = subprocess.run(
            [*command, "--resume"], capture_output=True, text=True, timeout=120, check=False
        )
        assert resumed.returncode == 0, resumed.stderr
        # svgeval score re-scores from the caches: neither server hears from it
        asked = len(model.chat_requests), len(judge.chat_requests)
        code, output = invoke(["score", str(out)])
        assert code == 0, output
        assert (len(model.chat_requests), len(judge.chat_requests)) == asked
        model_requests, judge_requests = model.chat_requests, judge.chat_requests

    assert judged_before < 5 * len(items)  # the kill came before the judge was done
    assert len({r.body["messages"][-1]["content"] for r in model_requests}) == len(items)
    assert repeats(model) <= 2  # only answers in flight at the kill were asked again
    assert len(judge_requests) - repeats(judge) == 5 * len(items)
    assert repeats(judge) <= 2  # only verdicts in flight at the kill were asked again
    ids = Counter(record["id"] for record in lines(samples))
    assert len(ids) == len(items) and set(ids.values()) == {1}

    # what the judge was shown: the original render, then the stylised one, at temperature 0.05
    answers = {json.dumps(r.body["messages"]): stylised(r.body) for r in model_requests}
    originals = [cairo_render(item["code"]) for item in items]
    by_sample = {record["id"]: record for record in lines(samples)}
    for request in judge_requests:
        body = request.body or {}
        assert body["temperature"] == 0.05 and body["model"] == "critic"
        first, second = (decode(url) for url in message_images(body["messages"][-1]))
        index = next(i for i, image in enumerate(originals) if np.array_equal(image, first))
        record = by_sample[f"easy/{index:03d}"]
        answer = answers[json.dumps(record["prompt"])].removeprefix("Answer:")
        assert record["extracted"] == answer
        assert np.array_equal(second, cairo_render(answer))

    results = json.loads((out / "results.json").read_text())
    assert results["judge"] == "openai-compatible:critic" and results["complete"]
    metrics = results["metrics"]
    assert [metrics[f"easy/{key}"] for key, _ in CRITERIA.values()] == [5.0, 4.0, 3.0, 2.0, 1.0]
    assert metrics["easy/judge_score"] == 3.0
    assert {metrics[f"easy/{style}"] for style in ("cartoon", "pixel", "line", "3d")} == {3.0}
    assert results["counts"]["easy"]["judge_failures"] == dict.fromkeys(
        ["cp", "df", "sc", "ch", "cb"], 0
    )
    judgments = lines(out / "judgments.jsonl")
    assert len({j["key"] for j in judgments}) == len(judgments) == 5 * len(items)
    assert all(j["reply"].startswith("Feedback:") and j["score"] for j in judgments)
    config = json.loads((out / "config.json").read_text())
    assert config["judge"] == "openai-compatible:critic"
    assert config["judge_base_url"] == judge.base_url


def test_a_reply_without_a_verdict_is_counted_as_a_judge_failure(tmp_path: Path) -> None:
    def vague_on_detail(body: dict[str, Any]) -> str:
        if criterion(body) == "Detail Fidelity":
            return "Feedback: 3 of the 4 shapes are kept, so I would give it 4 out of 5."
        return judge_reply(body)

    file = write_items(tmp_path / "st.json", style_transfer_items(4))
    out = tmp_path / "run"
    with (
        FakeOpenAIServer(reply=stylised) as model,
        FakeOpenAIServer(reply=vague_on_detail) as judge,
    ):
        code, output = invoke([*run_args(file, out, model), *judge_args(judge)])
        assert code == 0, output
        asked = len(judge.chat_requests)
        code, output = invoke([*run_args(file, out, model), *judge_args(judge), "--resume"])
        assert code == 0 and len(judge.chat_requests) == asked  # never asked again
    results = json.loads((out / "results.json").read_text())
    assert results["counts"]["easy"]["judge_failures"] == {
        "cp": 0,
        "df": 4,
        "sc": 0,
        "ch": 0,
        "cb": 0,
    }
    assert results["metrics"]["easy/df"] is None and results["metrics"]["easy/cp"] == 5.0
    assert results["metrics"]["easy/judge_score"] is None  # never a mean of four criteria
    assert results["judge_failure_kinds"] == {"unparsed": 4, "error": 0}
    assert "4 judged metrics have no verdict (4 whose reply from the judge held no verdict)" in (
        " ".join(output.split()))
    failure = lines(out / "samples.jsonl")[0]["judge_failures"]["df"]
    assert failure["kind"] == "unparsed" and "4 out of 5" in failure["detail"]


def test_without_judge_the_judged_metrics_are_not_computed(tmp_path: Path) -> None:
    def half_broken(body: dict[str, Any]) -> str:
        return (
            "I cannot draw."
            if "sun icon" in message_text(body["messages"][-1])
            else (stylised(body))
        )

    file = write_items(tmp_path / "st.json", style_transfer_items(4))
    out = tmp_path / "run"
    with FakeOpenAIServer(reply=half_broken) as model, FakeOpenAIServer() as judge:
        code, output = invoke(run_args(file, out, model))
        assert code == 0, output
        # resuming with a judge would mix judged and unjudged samples: refused, use score
        refused, message = invoke([*run_args(file, out, model), *judge_args(judge), "--resume"])
        assert refused == 1 and "holds a run with a different judge null in the directory" in message
        assert len(judge.requests) == 0 and len(model.chat_requests) == 4
    results = json.loads((out / "results.json").read_text())
    assert results["judge"] is None and results["n_valid"] == 3
    assert all(value is None for value in results["metrics"].values())
    for key in ("cp", "df", "sc", "ch", "cb"):
        assert results["not_computed"][key] == (
            "needs a judge model: pass --judge MODEL (see docs/judges.md)"
        )
    assert "judge_failures" not in results["counts"]["easy"]
    assert "judge_failure_kinds" not in results
    records = lines(out / "samples.jsonl")
    assert all(set(r["metrics"].values()) == {None} for r in records)  # invalid ones too
    assert "warning: not computed: " in output and "needs a judge model" in output


def test_judge_later_with_score_then_resume_asks_nothing(tmp_path: Path) -> None:
    file = write_items(tmp_path / "st.json", style_transfer_items(4))
    out = tmp_path / "run"
    with FakeOpenAIServer(reply=stylised) as model, FakeOpenAIServer(reply=judge_reply) as judge:
        assert invoke(run_args(file, out, model))[0] == 0
        code, output = invoke(["score", str(out), *judge_args(judge)])
        assert code == 0, output
        assert len(judge.chat_requests) == 20 and len(model.chat_requests) == 4
        code, output = invoke([*run_args(file, out, model), *judge_args(judge), "--resume"])
        assert code == 0, output
        assert len(judge.chat_requests) == 20 and len(model.chat_requests) == 4
    results = json.loads((out / "results.json").read_text())
    assert results["metrics"]["easy/judge_score"] == 3.0 and results["not_computed"] == {}
    assert json.loads((out / "config.json").read_text())["judge"] == "openai-compatible:critic"


def test_pairwise_in_both_orders_cancels_a_judge_that_always_says_a(tmp_path: Path) -> None:
    def first_is_better(body: dict[str, Any]) -> str:
        text = message_text(body["messages"][-1])
        return "Feedback: A. [RESULT] A" if "Response B:" in text else judge_reply(body)

    file = write_items(tmp_path / "st.json", style_transfer_items(4))
    with (
        FakeOpenAIServer(reply=stylised) as model,
        FakeOpenAIServer(reply=first_is_better) as judge,
    ):
        reference = tmp_path / "reference"  # the "No Edit" answers: other images than ours
        code, output = invoke(
            [
                "run",
                "svgenius-style-transfer",
                "--set",
                f"file={file}",
                "--tier",
                "easy",
                "--out",
                str(reference),
                "--model",
                "identity",
            ]
        )
        assert code == 0, output
        out = tmp_path / "run"
        code, output = invoke(
            [*run_args(file, out, model), *judge_args(judge), "--set", f"reference_run={reference}"]
        )
        assert code == 0, output
        pairwise = [
            r
            for r in judge.chat_requests
            if len(message_images((r.body or {})["messages"][-1])) == 3
        ]
    assert len(pairwise) == 8  # 4 samples, both orders
    results = json.loads((out / "results.json").read_text())
    assert results["metrics"]["easy/win_rate"] == 50.0  # position bias cancels: all ties
    assert results["counts"]["easy"]["judge_failures"]["win_rate"] == 0


class VisionTask(Task):
    """A task that shows the model a picture."""

    name = "vision-check"
    description = "asks about an image"

    def load(self) -> list[Sample]:
        png = png_bytes(np.zeros((4, 4, 3), dtype=np.uint8))
        return [
            Sample(
                id="one",
                group="g",
                messages=user_message("What is this?", [png]),
                reference="black", target={}
            )
        ]

    def score(self, sample: Sample, response: str, renderer: Renderer) -> Outcome:
        return Outcome.of(sample, {"right": float(response == "black")})


def test_a_text_only_model_is_refused_before_any_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import svgeval.tasks

    known: Callable[[str], type[Task]] = svgeval.tasks.get_task
    monkeypatch.setattr(  # the command line looks the task up when it runs
        svgeval.tasks, "get_task", lambda name: VisionTask if name == "vision-check" else known(name)
    )
    with FakeOpenAIServer(reply=lambda body: "black") as model:
        args = [
            "run",
            "vision-check",
            "--out",
            str(tmp_path / "run"),
            "--model",
            "openai-compatible:reader",
            "--base-url",
            model.base_url,
        ]
        code, output = invoke([*args, "--text-only-model"])
        assert code == 1 and len(model.requests) == 0 and not (tmp_path / "run").exists()
        assert output.strip().count("\n") == 0
        assert "reads text only (a text-only checkpoint, or --text-only-model) but vision-check " \
            "sends images" in output
        code, output = invoke(args)  # a vision endpoint gets the image
        assert code == 0, output
        (request,) = model.chat_requests
        assert message_images(request.body["messages"][-1])[0].startswith("data:image/png;base64,")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--text-only-judge"], "shows the judge images; choose a judge that reads images"),
        (["--judge-concurrency", "0"], "--judge-concurrency must be at least 1, got 0"),
    ],
)
def test_judge_flags_are_checked_before_any_request(
    tmp_path: Path, flags: list[str], message: str
) -> None:
    file = write_items(tmp_path / "st.json", style_transfer_items(2))
    with FakeOpenAIServer(reply=stylised) as model, FakeOpenAIServer(reply=judge_reply) as judge:
        code, output = invoke([*run_args(file, tmp_path / "r", model), *judge_args(judge), *flags])
        assert len(model.requests) == len(judge.requests) == 0
    assert code == 1 and output.strip().count("\n") == 0 and message in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--judge-base-url", "http://127.0.0.1:9/v1"], "--judge-base-url needs --judge MODEL"),
        (
            ["--judge", "openai-compatible:critic"],
            "--judge: openai-compatible:critic needs --judge-base-url",
        ),
        (["--judge", "identity", "--text-only-judge"], "declare only HTTP models text-only"),
    ],
)
def test_judge_mistakes_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    file = write_items(tmp_path / "st.json", style_transfer_items(1))
    code, output = invoke(
        [
            "run",
            "svgenius-style-transfer",
            "--set",
            f"file={file}",
            "--out",
            str(tmp_path / "r"),
            *args,
        ]
    )
    assert code == 1 and output.strip().count("\n") == 0 and message in output, output


def test_a_judge_for_a_task_without_one_is_refused(tmp_path: Path, demo_data: Path) -> None:
    code, output = invoke(
        [
            "run",
            "svgeditbench",
            "--data",
            str(demo_data),
            "--out",
            str(tmp_path / "r"),
            "--judge",
            "identity",
        ]
    )
    assert code == 1 and "svgeditbench asks no judge; leave out --judge" in output


def is_judge_request(request: RecordedRequest) -> bool:
    return request.body is not None and "Score Rubrics" in message_text(
        request.body["messages"][-1])


def test_the_note_and_results_say_it_was_the_judge_that_was_refused(tmp_path: Path) -> None:
    """The judge's server refuses the first try of each question with 429 before it has
    answered any: the judge's requests in flight are lowered, and the note and results.json
    say it was the judge's. Main of 2026-12-02 said "note: URL cut answers short..." for
    either, and results.json kept the model's alone (issue 43, defect 8)."""
    file = write_items(tmp_path / "st.json", style_transfer_items(4))
    out = tmp_path / "run"
    first_refused = Fault.http_error(429)
    with (
        FakeOpenAIServer(reply=stylised) as model,
        FakeOpenAIServer(reply=judge_reply,
                         faults=lambda r: first_refused if r.attempt == 0 else None) as judge,
    ):
        code, output = invoke([*run_args(file, out, model), *judge_args(judge)])
    assert code == 0, output
    assert (f"note: judge: {judge.base_url} cut answers short or refused them under load"
            in " ".join(output.split()))
    assert "note: model:" not in output
    results = json.loads((out / "results.json").read_text())
    assert results["model_report"] == {}
    assert results["judge_report"]["concurrency"]["cuts"] >= 1


def test_score_with_a_judge_on_the_model_s_server_starts_from_what_the_run_learned(
    tmp_path: Path,
) -> None:
    """The model's server refused the run's first two requests (``--concurrency 2``) before
    answering any: the run learned one at a time (servers.json). ``svgeval score --judge`` on
    the same server starts its judge there instead of at ``--judge-concurrency`` 4."""
    file = write_items(tmp_path / "st.json", style_transfer_items(4))
    out = tmp_path / "run"
    refused = Fault.http_error(429)
    with FakeOpenAIServer(
        reply=lambda body: (judge_reply(body) if "Score Rubrics" in message_text(
            body["messages"][-1]) else stylised(body)),
        faults=lambda r: refused if r.attempt == 0 and not is_judge_request(r) else None,
    ) as server:
        code, output = invoke(run_args(file, out, server, "--concurrency", "2"))
        assert code == 0, output
        learned = json.loads((out / "servers.json").read_text())["servers"]
        code, output = invoke(["score", str(out), *judge_args(server, 4)])
    assert code == 0, output
    assert learned == {server.base_url: {"limit": 1, "patience": 8}}
    assert (f"note: judge: {server.base_url} took 1 request at a time when this run directory "
            "last asked it (servers.json)") in " ".join(output.split())
    results = json.loads((out / "results.json").read_text())
    assert results["judge_report"]["concurrency"]["started"] == 1
    assert results["metrics"]["easy/judge_score"] == 3.0
