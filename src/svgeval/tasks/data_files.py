"""Read a dataset's JSON files with a declared schema, so malformed data stops with one line.

A task declares the fields it reads from each item as a pydantic model;
:func:`read_json_items` checks a whole file against it before any sample is built. Truncated
JSON, a record that is not an object, a missing field or a field of the wrong type (``bug_svg:
null``) raises :class:`MalformedData` naming the file, the record and the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from svgeval.tasks.download import DataUnavailable

T = TypeVar("T")


class MalformedData(DataUnavailable):
    """A data file does not have the layout the task reads; the message names the place."""


def _where(location: tuple[int | str, ...]) -> str:
    if not location:
        return "the file"
    record, *fields = location
    place = f"record {record}"
    return place + (f", field {'.'.join(str(part) for part in fields)!r}" if fields else "")


def read_json_items(path: Path, item_type: type[T]) -> list[T]:
    """The JSON list in ``path`` with each record validated as ``item_type``."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MalformedData(f"{path} does not exist; check --data or --set file") from None
    except UnicodeDecodeError as error:
        raise MalformedData(f"{path} is not UTF-8 text ({error.reason})") from None
    except json.JSONDecodeError as error:
        raise MalformedData(
            f"{path} is not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})"
        ) from None
    if not isinstance(data, list):
        raise MalformedData(f"{path} should hold a JSON list of records, not {type(data).__name__}")
    try:
        return TypeAdapter(list[item_type]).validate_python(data)  # type: ignore[valid-type]
    except ValidationError as error:
        first = error.errors()[0]
        raise MalformedData(
            f"{path}: {_where(tuple(first['loc']))}: {first['msg']} "
            f"({error.error_count()} problem(s) in the file)"
        ) from None


def read_jsonl_items(path: Path, item_type: type[T]) -> list[T]:
    """The JSON Lines records of ``path`` (blank lines skipped), each validated as ``item_type``."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise MalformedData(f"{path} does not exist; check --data") from None
    except UnicodeDecodeError as error:
        raise MalformedData(f"{path} is not UTF-8 text ({error.reason})") from None
    adapter = TypeAdapter(item_type)
    items: list[T] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            items.append(adapter.validate_json(line))
        except ValidationError as error:
            first = error.errors()[0]
            place = ".".join(str(part) for part in first["loc"]) or "the line"
            raise MalformedData(f"{path}: line {number}: {place}: {first['msg']}") from None
    return items
