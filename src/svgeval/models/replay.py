"""A backend that answers from a file of recorded responses, for re-scoring without a model.

A file named ``.xlsx``, ``.tsv`` or ``.csv`` is a VLMEvalKit prediction file (the dataset's
columns and ``prediction``, :mod:`svgeval.models.prediction_files`): the task names the sample
each row answers (:meth:`Task.vlmevalkit_sample_id`) when the run checks its ids, and the rows
that answer no sample of the run are counted in :meth:`ReplayModel.report`. Any other file is
JSON Lines, one ``{"id": ..., "response": ...}`` object a line (other keys are
ignored, blank lines skipped). ``id`` is a string or an integer and is compared with
``GenerationRequest.sample_id`` as a string; ``response`` must be a string. A sample whose id
the file lacks gets no record (the run stays incomplete), not a failed answer. The whole file is
read and checked when the backend is created, so a malformed file stops the run before any
request; each problem is reported as ``FILE line N: ...``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from svgeval.models.base import (
    AnswerMissing,
    Generation,
    GenerationRequest,
    Model,
    ModelUnavailable,
)
from svgeval.models.prediction_files import (
    MatchedRows,
    is_prediction_file,
    match_rows,
    read_prediction_file,
)

if TYPE_CHECKING:
    from svgeval.tasks.base import Task


class ReplayModel(Model):
    """Returns the recorded response for each sample id, and tracks which ids were missing."""

    answers_are_free = True

    def __init__(self, path: str | Path, spec: str | None = None) -> None:
        self.path = Path(path)
        self.spec = spec if spec is not None else f"replay:{path}"
        self._rows = read_prediction_file(self.path) if is_prediction_file(self.path) else None
        self._responses = read_replay_file(self.path) if self._rows is None else {}
        self._matched: MatchedRows | None = None
        self._requested: set[str] = set()
        self._missing: dict[str, None] = {}  # an ordered set

    async def generate(self, request: GenerationRequest) -> Generation:
        """The recorded response; AnswerMissing when the file has none for this sample."""
        sample_id = request.sample_id
        self._requested.add(sample_id)
        if sample_id not in self._responses:
            self._missing[sample_id] = None
            raise AnswerMissing(f"no response for id {sample_id} in {self.path}")
        return Generation(self._responses[sample_id])

    def check_ids(self, task: Task[Any], sample_ids: Sequence[str]) -> None:
        """Read a VLMEvalKit file's rows as ``task``'s samples; then refuse a file that answers
        fewer than half of the samples: its ids are almost certainly in another format (the
        message shows one of each)."""
        if self._rows is not None:
            self._matched = match_rows(self._rows, task, sample_ids, self.path)
            self._responses = self._matched.responses
            if not self._responses and sample_ids:
                raise ModelUnavailable(
                    f"no row of {self.path} answers a sample of {task.name} (e.g. "
                    f"{self._matched.example}); the task expects ids like {sample_ids[0]!r}")
        if not sample_ids:
            return
        matched = sum(1 for sample_id in sample_ids if sample_id in self._responses)
        if matched * 2 >= len(sample_ids):
            return
        theirs = next(iter(self._responses), None)
        example = f"the file has ids like {theirs!r}" if theirs is not None else "the file is empty"
        raise ModelUnavailable(
            f"replay file {self.path} answers {matched} of {len(sample_ids)} samples: "
            f"expected ids like {sample_ids[0]!r}, {example} "
            "(`svgeval export TASK` writes the ids a task expects)"
        )

    @property
    def missing_ids(self) -> list[str]:
        """Ids that were requested but have no line in the file, in request order."""
        return list(self._missing)

    @property
    def unrequested_ids(self) -> list[str]:
        """Ids in the file that no request asked for (so far), in file order."""
        return [sample_id for sample_id in self._responses if sample_id not in self._requested]

    def report(self) -> dict[str, Any]:
        """The ids the file lacked and the ids it had that no sample asked for; for a VLMEvalKit
        file also its rows that answer no sample of the run (count and the first)."""
        report: dict[str, Any] = {"missing_ids": self.missing_ids,
                                  "unrequested_ids": self.unrequested_ids}
        if self._rows is not None and self._matched is not None:
            report.update(rows=len(self._rows), unmatched_rows=self._matched.unmatched,
                          unmatched_example=self._matched.example)
        return report


def read_replay_file(path: Path) -> dict[str, str]:
    """Responses by sample id; ModelUnavailable naming the file and line on any problem."""
    try:
        # JSON Lines ends lines with "\n" only; splitlines() would also cut at U+2028 and
        # friends, which JSON strings may hold unescaped.
        lines = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelUnavailable(f"cannot read replay file {path}: {exc}") from exc
    responses: dict[str, str] = {}
    first_line: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            sample_id, response = _parse_line(line)
        except (ValueError, TypeError) as exc:
            raise ModelUnavailable(f"replay file {path} line {number}: {exc}") from None
        if sample_id in responses:
            raise ModelUnavailable(
                f"replay file {path} line {number}: duplicate id {sample_id} "
                f"(first on line {first_line[sample_id]})"
            )
        responses[sample_id] = response
        first_line[sample_id] = number
    return responses


def _parse_line(line: str) -> tuple[str, str]:
    """The id (as a string) and response of one line; ValueError/TypeError say what is wrong."""
    try:
        record: Any = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(record, dict):
        raise TypeError(f"expected a JSON object, got {_excerpt(record)}")
    if "id" not in record or "response" not in record:
        raise ValueError('expected keys "id" and "response"')
    sample_id, response = record["id"], record["response"]
    if isinstance(sample_id, bool) or not isinstance(sample_id, (str, int)):
        raise TypeError(f'"id" must be a string or an integer, got {_excerpt(sample_id)}')
    if not isinstance(response, str):
        raise TypeError(f'"response" must be a string, got {_excerpt(response)}')
    return str(sample_id), response


def _excerpt(value: Any, limit: int = 40) -> str:
    """A short JSON rendering of ``value`` for error messages."""
    text = json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
