"""The replay backend: answers from a JSONL file, reports missing and unused ids."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from svgeval.models import GenerationRequest, ModelError, ModelUnavailable, ReplayModel, load_model


def write_lines(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "responses.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def answer(model: ReplayModel, sample_id: str) -> str:
    return asyncio.run(model.generate(GenerationRequest(sample_id, []))).text


def test_returns_the_recorded_response(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path,
        '{"id": "a", "response": "<svg>A</svg>", "latency_s": 1.5}',
        "",
        '{"id": 7, "response": "seven"}',
    )
    model = load_model(f"replay:{path}")
    assert isinstance(model, ReplayModel)
    assert model.spec == f"replay:{path}"
    assert answer(model, "a") == "<svg>A</svg>"
    assert answer(model, "7") == "seven"  # integer ids match their decimal string
    assert model.missing_ids == []
    assert model.unrequested_ids == []


def test_lines_split_only_at_newlines(tmp_path: Path) -> None:
    path = tmp_path / "responses.jsonl"
    path.write_bytes('{"id": "a", "response": "x\u2028y\u0085z"}\r\n'.encode())
    assert answer(ReplayModel(path), "a") == "x\u2028y\u0085z"


def test_missing_and_unrequested_ids_are_reported(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path,
        '{"id": "a", "response": "x"}',
        '{"id": "b", "response": "y"}',
        '{"id": "c", "response": "z"}',
    )
    model = ReplayModel(path)
    assert answer(model, "b") == "y"
    for missing in ("q", "p", "q"):
        with pytest.raises(ModelError) as caught:
            answer(model, missing)
        assert str(caught.value) == f"no response for id {missing} in {path}"
    assert model.missing_ids == ["q", "p"]
    assert model.unrequested_ids == ["a", "c"]


@pytest.mark.parametrize(
    ("bad_line", "problem"),
    [
        ('{"id": "b", "response": ', "not valid JSON (Expecting value at column 25)"),
        ('["b", "y"]', 'expected a JSON object, got ["b", "y"]'),
        ('{"id": "b"}', 'expected keys "id" and "response"'),
        ('{"id": "b", "response": null}', '"response" must be a string, got null'),
        ('{"id": true, "response": "y"}', '"id" must be a string or an integer, got true'),
        ('{"id": "a", "response": "again"}', "duplicate id a (first on line 1)"),
    ],
)
def test_malformed_line_is_named_in_one_line(tmp_path: Path, bad_line: str, problem: str) -> None:
    path = write_lines(tmp_path, '{"id": "a", "response": "x"}', "", bad_line)
    with pytest.raises(ModelUnavailable) as caught:
        load_model(f"replay:{path}")
    assert str(caught.value) == f"replay file {path} line 3: {problem}"


def test_unreadable_file_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match=r"cannot read replay file .*absent\.jsonl"):
        load_model(f"replay:{tmp_path / 'absent.jsonl'}")
