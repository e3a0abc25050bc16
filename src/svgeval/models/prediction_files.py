"""VLMEvalKit's prediction files, read as rows of text for ``replay:``.

VLMEvalKit's inference step (``infer_data_job`` in ``vlmeval/inference.py``,
open-compass/VLMEvalKit at ``e8e78f05``) writes ``<model>_<dataset>.xlsx`` (``.tsv`` under
``PRED_FORMAT=tsv``): the rows of the dataset's TSV less its ``image`` column, with the model's
answer in a ``prediction`` column, through ``dump`` of ``vlmeval/smp/file.py`` (pandas
``to_excel`` with xlsxwriter; ``to_csv`` with every field quoted, tab-separated for ``.tsv``);
the files its evaluation writes beside it are ``.csv`` in the same way. Every one of them is read
here, and the task decides which sample a row answers (:meth:`Task.vlmevalkit_sample_id`).

A row is ``{column: text}``: an empty cell is ``""`` (VLMEvalKit reads it as NaN), a whole
number in a spreadsheet cell is written without a fraction (``index`` 12 is ``"12"``, as the
TSV had it). Excel keeps at most 32,767 characters in a cell; VLMEvalKit's writer cuts a longer
answer there, and its own evaluation reads the same cut answer that svgeval reads.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from svgeval.models.base import ModelUnavailable

if TYPE_CHECKING:
    from svgeval.tasks.base import Task

SUFFIXES = (".xlsx", ".tsv", ".csv")
"""The file names read as VLMEvalKit prediction files (anything else is a JSONL replay file)."""
PREDICTION = "prediction"


def is_prediction_file(path: Path) -> bool:
    """Whether ``path`` is read as a VLMEvalKit prediction file (by its suffix)."""
    return path.suffix.lower() in SUFFIXES


def read_prediction_file(path: Path) -> list[dict[str, str]]:
    """The rows of a VLMEvalKit prediction file; ModelUnavailable when it cannot be read or
    has no ``prediction`` column."""
    try:
        header, rows = _xlsx(path) if path.suffix.lower() == ".xlsx" else _delimited(path)
    except (OSError, UnicodeDecodeError, csv.Error, ValueError, KeyError) as exc:
        raise ModelUnavailable(f"cannot read VLMEvalKit prediction file {path}: {exc}") from exc
    if PREDICTION not in header:
        shown = ", ".join(header[:8]) + (", ..." if len(header) > 8 else "")
        raise ModelUnavailable(f"{path} has no {PREDICTION!r} column (its columns: {shown}): "
                               "expected the file VLMEvalKit's inference step writes")
    return [dict(zip(header, row)) for row in rows]


def _delimited(path: Path) -> tuple[list[str], list[list[str]]]:
    csv.field_size_limit(sys.maxsize)  # an answer can be a long SVG
    with path.open(encoding="utf-8-sig", newline="") as handle:
        lines = list(csv.reader(handle, delimiter="\t" if path.suffix.lower() == ".tsv" else ","))
    if not lines:
        return [], []
    return [name.strip() for name in lines[0]], [line for line in lines[1:] if line]


def _xlsx(path: Path) -> tuple[list[str], list[list[str]]]:
    try:
        from openpyxl import load_workbook
    except ImportError:
        raise ModelUnavailable(f"reading {path} needs openpyxl: pip install "
                               "'svgeval[vlmevalkit]' (or save the file as .tsv)") from None
    book = load_workbook(path, read_only=True, data_only=True)
    try:
        cells = [[_text(value) for value in row]
                 for row in book.worksheets[0].iter_rows(values_only=True)]
    finally:
        book.close()
    if not cells:
        return [], []
    return [name.strip() for name in cells[0]], [row for row in cells[1:] if any(row)]


def _text(value: Any) -> str:
    """A spreadsheet cell as the text a TSV would hold."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@dataclass(frozen=True)
class MatchedRows:
    """A prediction file's answers by sample id, and the rows that answer none of the run."""

    responses: dict[str, str]
    unmatched: int
    """Rows that answer no sample of the run (another task's, or an id the data lacks)."""
    example: str
    """The first of them, as ``row N (column value, ...)``; empty when there is none."""


def match_rows(rows: Sequence[Mapping[str, str]], task: Task[Any], sample_ids: Sequence[str],
               path: Path) -> MatchedRows:
    """The answer of each sample ``task`` names for a row; ModelUnavailable for a task
    VLMEvalKit does not run, or for two rows that answer one sample differently."""
    if not task.vlmevalkit_dataset:
        raise ModelUnavailable(f"{path} is a VLMEvalKit prediction file, and {task.name} is not "
                               "a task VLMEvalKit runs: replay a JSONL file of "
                               '{"id": ..., "response": ...} lines instead')
    wanted = set(sample_ids)
    responses: dict[str, str] = {}
    first_row: dict[str, int] = {}
    unmatched: list[int] = []
    for number, row in enumerate(rows, start=1):
        sample_id = task.vlmevalkit_sample_id(row)
        if sample_id is None or sample_id not in wanted:
            unmatched.append(number)
            continue
        answer = row.get(PREDICTION, "")
        if sample_id in responses and responses[sample_id] != answer:
            raise ModelUnavailable(f"{path}: rows {first_row[sample_id]} and {number} both "
                                   f"answer sample {sample_id} of {task.name}, differently")
        responses[sample_id] = answer
        first_row.setdefault(sample_id, number)
    example = f"row {unmatched[0]} ({_identity(rows[unmatched[0] - 1])})" if unmatched else ""
    return MatchedRows(responses, len(unmatched), example)


def _identity(row: Mapping[str, str]) -> str:
    """The columns that say which question a row is."""
    shown = [f"{key} {row[key]!r}" for key in ("index", "id", "category", "l2-category",
                                                 "dataset") if row.get(key)]
    return ", ".join(shown)[:160] or "no index or category"
