"""A local server with one generation slot that answers slowly, through the whole CLI.

Every sample completes with exactly one generation (the wait in the server's queue is never
mistaken for a dead server), and an answer cut off by --max-tokens is its own failure kind.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.fake_openai_server import FakeOpenAIServer, message_text
from typer.testing import CliRunner

from svgeval.cli import app

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml


def padded_answer(filler_words: int) -> Any:
    """Answers with ``filler_words`` words of preamble, then the input SVG in a fence."""

    def reply(body: dict[str, Any]) -> str:
        found = re.search(r"<svg\b.*?</svg>", message_text(body["messages"][-1]), re.DOTALL)
        assert found is not None
        filler = " ".join(f"w{i}" for i in range(filler_words))
        return f"{filler}\n```svg\n{found.group(0)}\n```"

    return reply


def run_against_single_slot(
    demo_data: Path, out: Path, token_delay_s: float, filler_words: int, *extra: str
) -> tuple[dict[str, Any], FakeOpenAIServer]:
    with FakeOpenAIServer(
        reply=padded_answer(filler_words), slots=1, token_delay_s=token_delay_s
    ) as server:
        result = CliRunner().invoke(app, [
            "run", "svgeditbench", "--data", str(demo_data), "--out", str(out), "--limit", "1",
            "--model", "openai-compatible:slow", "--base-url", server.base_url,
            "--concurrency", "4", *extra,
        ])
    assert result.exit_code == 0, result.output
    return json.loads((out / "results.json").read_text()), server


def check_one_generation_each(demo_data: Path, out: Path, delay: float, words: int,
                              timeout: str) -> None:
    # the wait in the queue is bounded by --first-token-timeout (default 10 x --timeout); set
    # it far above the queue so that a heavily loaded machine, which stretches every answer,
    # cannot trip it: the check is that the idle timeout never counts the queue
    results, server = run_against_single_slot(
        demo_data, out, delay, words, "--timeout", timeout, "--first-token-timeout", "600"
    )
    assert results["complete"] and results["n"] == results["n_valid"] == 6
    assert len(server.chat_requests) == len(server.generations) == 6
    assert server.abandoned_generations == [] and results["usage"]["attempts"] == 6


def test_single_slot_server_every_sample_once(demo_data: Path, tmp_path: Path) -> None:
    # 40+ tokens at 0.02 s: >= 0.8 s an answer, >= 2.4 s queued behind 3 others, which is
    # more than the 1 s timeout; the gap between tokens (0.02 s) stays far below it even on a
    # busy machine
    check_one_generation_each(demo_data, tmp_path / "r", 0.02, 40, "1")


def test_truncation_by_max_tokens_is_its_own_failure(demo_data: Path, tmp_path: Path) -> None:
    results, _ = run_against_single_slot(demo_data, tmp_path / "r", 0.0, 20, "--max-tokens", "5")
    assert results["n_valid"] == 0
    assert {tag for count in results["counts"].values() for tag in count["failures"]} == {
        "truncated"}
    record = json.loads((tmp_path / "r" / "samples.jsonl").read_text().splitlines()[0])
    assert record["failure"]["kind"] == "truncated" and record["finish_reason"] == "length"
    assert "raise --max-tokens" in record["failure"]["detail"]


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_single_slot_server_at_full_scale(demo_data: Path, tmp_path: Path) -> None:
    """The by-hand check: a token every 0.2 s, ~30 s an answer, 4 requests in flight."""
    check_one_generation_each(demo_data, tmp_path / "r", 0.2, 110, "20")
