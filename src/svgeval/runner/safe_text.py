"""Record text that UTF-8 can store: lone surrogates become U+FFFD, and the record says so.

A model's answer can hold half a character: a replay line with ``"\\ud800"``, a server whose JSON
carries half an emoji (``"\\ud83d"``). JSON decoding gives Python a lone UTF-16 surrogate,
which no UTF-8 file can hold, so writing the record raised and the run died, again on every
``--resume``. Every record (:class:`StorableText`) replaces each lone surrogate in its text
with U+FFFD (the Unicode replacement character) as it is built, joins the two halves of a pair
written apart into their character, and counts the replacements in
``replaced_surrogates``.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ValidationInfo, model_validator

_SURROGATE = re.compile("[\ud800-\udfff]")
_ATOMS = frozenset({int, float, bool, type(None)})
"""Types that hold no text."""


def storable(text: str) -> tuple[str, int]:
    """``text`` with each lone surrogate replaced by U+FFFD (a pair's halves joined), and the
    number replaced."""
    if text.isascii() or not _SURROGATE.search(text):  # isascii: a flag, read at no cost
        return text, 0
    joined = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return joined, joined.count("\ufffd") - text.count("\ufffd")


def has_lone_surrogates(value: Any) -> bool:
    """True when a string in ``value`` (text, or lists, tuples, dicts and models of it) holds a
    surrogate: one look at each string, nothing built (almost every record has none). The
    exact built-in types are told apart by ``type`` before ``isinstance``, and a model's values
    are read from its ``__dict__``, which is quicker (``bench/RESULTS.md``)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in _ATOMS:
            continue
        if kind is str or isinstance(item, str):
            if not item.isascii() and _SURROGATE.search(item):
                return True
        elif kind is dict or isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif kind is list or kind is tuple or isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, BaseModel):
            stack.extend(item.__dict__.values())
            stack.extend((item.__pydantic_extra__ or {}).values())
    return False


def storable_values(value: Any) -> tuple[Any, int]:
    """``value`` (text, or lists, tuples, dicts and models of it) with every string made
    :func:`storable`, and the number of surrogates replaced; ``value`` itself when none was."""
    if not has_lone_surrogates(value):
        return value, 0
    return _repaired(value)


def _repaired(value: Any) -> tuple[Any, int]:
    """:func:`storable_values` of a value that holds a surrogate somewhere."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        pairs = [(_repaired(key), _repaired(item)) for key, item in value.items()]
        count = sum(a + b for (_, a), (_, b) in pairs)
        return ({key: item for (key, _), (item, _) in pairs} if count else value), count
    if isinstance(value, (list, tuple)):
        items = [_repaired(item) for item in value]
        count = sum(n for _, n in items)
        return (type(value)(item for item, _ in items) if count else value), count
    if isinstance(value, BaseModel):
        fields, count = _repaired(dict(value))
        return (value.model_copy(update=fields) if count else value), count
    return value, 0


STORED = {"stored": True}
"""Validation context for JSON that svgeval itself dumped from a record: its text is storable
already, so the walk over every string is skipped (``model_validate_json(text, context=STORED)``;
the finished records a run re-reads for its results, :mod:`svgeval.runner.finished`)."""


class StorableText(BaseModel):
    """A record whose text is always storable as UTF-8 (see the module doc)."""

    replaced_surrogates: int = 0
    """Lone UTF-16 surrogates (half characters, which UTF-8 cannot store) in this record's
    text, each stored as U+FFFD; left out of the file when 0."""

    @model_validator(mode="before")
    @classmethod
    def _replace_lone_surrogates(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict) or info.context == STORED:
            return data
        repaired, count = storable_values(data)
        if count:
            repaired["replaced_surrogates"] = int(repaired.get("replaced_surrogates", 0)) + count
        return repaired
