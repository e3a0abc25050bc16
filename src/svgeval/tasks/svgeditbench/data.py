"""Read SVGEditBench in its official release layout: ``<n>_<Task>/{query,answer}/<id>``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from svgeval.tasks.base import Sample, Target
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import DataUnavailable, GithubRelease
from svgeval.tasks.lazy import Header, LazySamples
from svgeval.tasks.svgeditbench.prompts import SUBTASKS

RELEASE = GithubRelease("mti-lab/SVGEditBench", "5744bd4", marker="1_ChangeColor/query")
"""The official release the paper's numbers come from (data only; CC BY 4.0 images)."""

_OPENING, _CLOSING = "```svg\n", "\n```"


class EditTarget(Target):
    """What an SVGEditBench answer is scored against."""

    answer_svg: str
    """The reference edit (the release's ``answer/<id>.svg``)."""
    input_length: int
    """Characters of the input SVG (the compression ratio's denominator)."""


class _Case(NamedTuple):
    subtask: str
    folder: str
    """The subtask's folder (one string shared by its cases; plain strings, not ``Path``s:
    joining paths was a tenth of a millisecond a sample on the run's busy main thread)."""
    stem: str

    @property
    def sample_id(self) -> str:
        return f"{self.subtask}/{self.stem}"

    @property
    def query(self) -> str:
        return os.path.join(self.folder, "query", f"{self.stem}.txt")

    @property
    def answer(self) -> str:
        return os.path.join(self.folder, "answer", f"{self.stem}.svg")


def load_release(root: Path) -> LazySamples[_Case]:
    """Every case under ``root``, ordered by subtask (paper order) then case id.

    The cases are listed now and read when used (:mod:`svgeval.tasks.lazy`): a run holds no
    prompt or answer it is not working on.
    """
    cases: list[_Case] = []
    for subtask, name in SUBTASKS.items():
        folder = root / name
        if not (folder / "query").is_dir():
            continue
        answers = {path.name for path in (folder / "answer").glob("*.svg")}
        shared = str(folder)
        for query_path in sorted((folder / "query").glob("*.txt")):
            case = _Case(subtask, shared, query_path.stem)
            if f"{case.stem}.svg" not in answers:
                raise MalformedData(f"{query_path} has no answer: {case.answer} is missing")
            cases.append(case)
    if not cases:
        raise DataUnavailable(
            f"no SVGEditBench cases under {root} (expected {'/'.join(SUBTASKS.values())})")
    headers = [Header(case.sample_id, case.subtask) for case in cases]
    return LazySamples(headers, cases, _read_case)


def fenced_svg(query: str) -> str | None:
    """The first ```svg block of ``query``, stripped: what the regular expression
    ``"```svg\n(.*?)\n```"`` (dot matching newlines) finds, found with two ``str.find``
    (a tenth of the time on the run's busy main thread)."""
    start = query.find(_OPENING)
    end = query.find(_CLOSING, start + len(_OPENING)) if start >= 0 else -1
    return query[start + len(_OPENING):end].strip() if end >= 0 else None


def _read_case(case: _Case) -> Sample[EditTarget]:
    """The sample of one case, read from its query and answer files."""
    try:
        with open(case.query, encoding="utf-8") as query_file, \
                open(case.answer, encoding="utf-8") as answer_file:
            query, answer = query_file.read(), answer_file.read().strip()
    except UnicodeDecodeError as error:
        raise MalformedData(f"{case.query} or its answer is not UTF-8 ({error.reason})") from None
    input_svg = fenced_svg(query)
    if input_svg is None:
        raise MalformedData(f"{case.query} has no ```svg block holding the input SVG")
    return Sample(
        id=case.sample_id,
        group=case.subtask,
        messages=[{"role": "user", "content": query}],
        reference=f"```svg\n{answer}\n```",
        input_svg=input_svg,
        target=EditTarget(answer_svg=answer, input_length=len(input_svg)),
    )
