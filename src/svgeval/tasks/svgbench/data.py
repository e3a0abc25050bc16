"""SVGBench questions: ``questions/questions.json`` of the repository (105 prompts, 926
requirements) or its 3-question ``test_questions.json``.

Each record is ``{"prompt": str, "requirements": [str, ...]}``; the id is the list index, as in
the release (``question_index``). ``--data PATH`` takes the JSON file itself or a folder holding
``questions/<file>`` (the repository's layout); without it the repository is downloaded once at
the pinned commit into svgeval's cache (:mod:`svgeval.tasks.download`).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from svgeval.tasks.data_files import read_json_items
from svgeval.tasks.download import DataUnavailable, GithubRelease, resolve_data

RELEASE = GithubRelease(
    repo="johnbean393/SVGBench",
    commit="55c1cde8bf03b63d385c931e95bd7f728cde8fde",
    marker="questions/questions.json",
)
FILES = {"full": "questions.json", "test": "test_questions.json"}


class Question(BaseModel):
    """One SVGBench question."""

    prompt: str
    requirements: list[str] = Field(min_length=1)


def questions_file(data: Path | None, subset: str) -> Path:
    """The questions file of ``subset`` (``full`` or ``test``) in ``data`` or the release."""
    if data is not None and data.is_file():
        return data
    if data is not None and not data.exists():
        raise DataUnavailable(f"--data {data}: no such file or folder")
    root = resolve_data(RELEASE, data) if data is None or (data / RELEASE.marker).exists() else data
    path = root / "questions" / FILES[subset]
    if not path.is_file():
        raise DataUnavailable(f"{root} has no questions/{FILES[subset]}; pass the file with --data")
    return path


def load_questions(data: Path | None, subset: str) -> list[Question]:
    """The questions, validated (:class:`MalformedData` names a bad record)."""
    return read_json_items(questions_file(data, subset), Question)
