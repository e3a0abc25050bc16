"""Half a character in an answer (a lone UTF-16 surrogate, which UTF-8 cannot store) is stored
as U+FFFD and counted on the record; writing it never raises, and run, --resume and score go
on."""

from __future__ import annotations

import json
import random
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict
from typer.testing import CliRunner

from svgeval.cli import app
from svgeval.runner.records import ResponseRecord, SampleRecord
from svgeval.runner.safe_text import has_lone_surrogates
from svgeval.svg.demo_corpus import demo_svg
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.outcome import Failure, FailureKind
from svgeval.tasks.svgeditbench import SvgEditBench

HALF_EMOJI = "\ud83d"
"""The first half of 😀 (U+1F600), as a server that cut a character in two sends it."""


def test_a_record_stores_lone_surrogates_as_replacement_characters() -> None:
    record = ResponseRecord(id="a", prompt_hash="h", response=f"x{HALF_EMOJI}y\ud800\udc00z\udfff")
    line = record.model_dump_json()  # raised UnicodeEncodeError
    assert line.encode("utf-8")
    back = ResponseRecord.model_validate_json(line)
    # a lone half each becomes U+FFFD; two halves written apart make their character again
    assert back.response == "x\ufffdy\U00010000z\ufffd"
    assert back.replaced_surrogates == 2
    failure = Failure(kind=FailureKind.MODEL_ERROR, detail=f"server said {HALF_EMOJI}")
    sample = SampleRecord(id="a", group="g", prompt=[{"role": "user", "content": "\ud800"}],
                          prompt_hash="h", failure=failure)
    assert json.loads(sample.model_dump_json())["replaced_surrogates"] == 2
    assert sample.failure is not None and sample.failure.detail == "server said \ufffd"


class _Open(BaseModel):
    """A model that keeps unknown keys (its extras are text too)."""

    model_config = ConfigDict(extra="allow")
    text: str = ""


class _Kind(str, Enum):
    """A str subclass."""

    HALF = HALF_EMOJI
    WHOLE = "😀"


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    """Text, numbers and None, nested in lists, tuples, dicts (text keys too) and models, now
    and then holding half a character."""
    def text() -> str:
        return rng.choice(["svg", "😀", "café", f"a{HALF_EMOJI}", "\udfff", "\ud800\udc00"])
    if depth >= 3 or rng.random() < 0.3:
        return rng.choice([text, lambda: rng.randint(0, 9), lambda: rng.random(),
                           lambda: None, lambda: True, lambda: rng.choice(list(_Kind))])()
    kind = rng.randrange(4)
    items = [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if kind == 0:
        return items
    if kind == 1:
        return tuple(items)
    if kind == 2:
        return {text(): item for item in items}
    return _Open(text=text(), **{f"extra{i}": item for i, item in enumerate(items)})


def _stores_as_utf8(value: Any) -> bool:
    def plain(item: Any) -> Any:
        return item.model_dump() if isinstance(item, BaseModel) else str(item)
    try:
        json.dumps(value, ensure_ascii=False, default=plain).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def test_the_surrogate_scan_finds_every_half_character_and_only_those() -> None:
    rng = random.Random(7)
    values = [_random_value(rng) for _ in range(2_000)]
    found = [has_lone_surrogates(value) for value in values]
    assert found == [not _stores_as_utf8(value) for value in values]
    assert 200 < sum(found) < 1_800  # both kinds are well represented


def test_a_clean_record_is_written_as_before() -> None:
    assert "replaced_surrogates" not in ResponseRecord(id="a", prompt_hash="h",
                                                       response="😀").model_dump_json()


def test_a_replay_answer_with_a_lone_surrogate_is_recorded_and_resumed(
    tmp_path: Path, demo_data: Path
) -> None:
    samples = SvgEditBench(CommonOptions(data=demo_data)).load()
    broken = samples[0].id
    answer = demo_svg("sun").replace("</svg>", f"<text>caf{HALF_EMOJI}</text></svg>")
    lines = [json.dumps({"id": s.id,
                         "response": f"```svg\n{answer if s.id == broken else s.input_svg}\n```"})
             for s in samples]  # json.dumps writes the half as the escape "\ud83d"
    replay = tmp_path / "answers.jsonl"
    replay.write_text("\n".join(lines) + "\n")
    assert "\\ud83d" in replay.read_text()
    out = tmp_path / "run"
    command = ["run", "svgeditbench", "--data", str(demo_data), "--out", str(out),
               "--model", f"replay:{replay}"]
    done = CliRunner().invoke(app, command)
    assert done.exit_code == 0, done.output
    records = {r["id"]: r for r in map(json.loads, (out / "samples.jsonl").read_text(
        encoding="utf-8").splitlines())}
    assert len(records) == len(samples)
    assert records[broken]["replaced_surrogates"] == 1
    assert "caf\ufffd" in records[broken]["response"] and records[broken].get("failure") is None
    assert sum("replaced_surrogates" in r for r in records.values()) == 1
    response = json.loads((out / "responses.jsonl").read_text().splitlines()[0])
    assert response["replaced_surrogates"] == 1
    assert CliRunner().invoke(app, [*command, "--resume"]).exit_code == 0
    assert CliRunner().invoke(app, ["score", str(out)]).exit_code == 0
    again = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(again) == len(samples) and sum(r.get("replaced_surrogates", 0) for r in again) == 1
