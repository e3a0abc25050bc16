"""The seven SVGenius error types: where each can strike in an SVG and what it changes.

Each injector picks one random target in the scanned tags and returns an :class:`Injection`
(text replacements plus a description in the spirit of the released ``error_details``), or
None when the SVG offers no target. See :mod:`svgeval.builders.svgenius.bug_injector`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from svgeval.builders.svgenius.svg_text import Tag

ERROR_CATEGORIES: Mapping[str, str] = {
    "misspell_tag_name": "tag_error",
    "remove_closing_tag": "tag_error",
    "add_strange_chars": "tag_error",
    "invalid_path_command": "path_command_error",
    "path_data_format_error": "path_command_error",
    "attribute_value_error": "attribute_error",
    "attribute_name_error": "attribute_error",
}
ERROR_TYPES = tuple(ERROR_CATEGORIES)

_STRANGE_CHARS = "$#@%&!~^*"
_NOT_COMMANDS = "BDFGIJKNOPRUWXYbdfgijknopruwxy"
_COMMAND = re.compile(r"[MmLlHhVvCcSsQqTtAaZz]")
_SEPARATOR = re.compile(r"(?<=[\d.])(?:\s*,\s*|\s+)(?=[-+\d.])")
_LARGE_NUMBER = re.compile(r"(?<![\d.eE])-?\d{2,}(?:\.\d+)?(?![\d.eE])")
_COLOR_ATTRIBUTES = ("fill", "stroke", "stop-color", "color", "flood-color")
_NUMERIC_ATTRIBUTES = (
    "width",
    "height",
    "x",
    "y",
    "cx",
    "cy",
    "r",
    "rx",
    "ry",
    "stroke-width",
    "opacity",
)
_NAMED_ATTRIBUTES = (
    *_COLOR_ATTRIBUTES,
    *_NUMERIC_ATTRIBUTES,
    "d",
    "points",
    "transform",
    "viewBox",
)


@dataclass(frozen=True)
class Injection:
    """One error instance: text replacements ``(start, end, new text)`` and what was done."""

    edits: tuple[tuple[int, int, str], ...]
    detail: dict[str, Any]


Injector = Callable[[list[Tag], random.Random], Injection | None]


def misspell(word: str, rng: random.Random) -> str:
    """``word`` with one letter dropped, two neighbours swapped or one letter doubled."""
    changes = [word[:i] + word[i + 1 :] for i in range(1, len(word)) if len(word) > 2]
    changes += [
        word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        for i in range(len(word) - 1)
        if word[i] != word[i + 1]
    ]
    changes += [word[: i + 1] + word[i:] for i in range(len(word))]
    return rng.choice([change for change in changes if change != word])


def _misspell_tag(tags: list[Tag], rng: random.Random) -> Injection | None:
    tag = rng.choice(tags[1:]) if len(tags) > 1 else None
    if tag is None:
        return None
    wrong = misspell(tag.name, rng)
    edits = [(tag.start + 1, tag.name_end, wrong)]
    if tag.closing:
        edits.append((tag.closing[0] + 2, tag.closing[0] + 2 + len(tag.name), wrong))
    detail = {
        "original_tag": tag.name,
        "misspelled_tag": wrong,
        "has_closing_tag": bool(tag.closing),
    }
    return Injection(tuple(edits), detail)


def _remove_closing(tags: list[Tag], rng: random.Random) -> Injection | None:
    tag = rng.choice(tags)
    options: list[tuple[str, int, int]] = [
        ("tag_bracket", tag.start, tag.start + 1),
        ("tag_bracket", tag.end - 1, tag.end),
    ]
    if tag.closing:
        options.append(("end_tag", *tag.closing))
    if tag.self_closing:
        options.append(("self_closing_slash", tag.bracket_end, tag.bracket_end + 1))
    options += [("attribute_quote", item.value_end, item.value_end + 1) for item in tag.attributes]
    kind, start, end = rng.choice(options)
    return Injection(((start, end, ""),), {"tag": tag.name, "removed": kind})


def _add_strange_chars(tags: list[Tag], rng: random.Random) -> Injection | None:
    tag = rng.choice(tags)
    char = rng.choice(_STRANGE_CHARS)
    where, position = rng.choice(
        [("after_tag_name", tag.name_end), ("before_tag_end", tag.bracket_end)]
    )
    return Injection(
        ((position, position, char),), {"tag": tag.name, "added_chars": char, "position": where}
    )


def _path_data(tags: list[Tag], rng: random.Random) -> tuple[int, str] | None:
    paths = [item for tag in tags if tag.name == "path" and (item := tag.attribute("d"))]
    if not paths:
        return None
    chosen = rng.choice(paths)
    return chosen.value_start, chosen.value


def _invalid_command(tags: list[Tag], rng: random.Random) -> Injection | None:
    found = _path_data(tags, rng)
    commands = list(_COMMAND.finditer(found[1])) if found else []
    if not found or not commands:
        return None
    command = rng.choice(commands)
    wrong = rng.choice(_NOT_COMMANDS)
    start = found[0] + command.start()
    return Injection(
        ((start, start + 1, wrong),),
        {"original_command": command.group(), "invalid_command": wrong},
    )


def _format_error(tags: list[Tag], rng: random.Random) -> Injection | None:
    found = _path_data(tags, rng)
    if not found:
        return None
    offset, data = found
    separators = list(_SEPARATOR.finditer(data))
    numbers = list(_LARGE_NUMBER.finditer(data))
    kinds = [
        kind
        for kind, targets in (
            ("wrong_separator", separators),
            ("extra_comma", separators),
            ("scientific_notation", numbers),
        )
        if targets
    ]
    if not kinds:
        return None
    kind = rng.choice(kinds)
    target = rng.choice(numbers if kind == "scientific_notation" else separators)
    replacement = {"wrong_separator": ";", "extra_comma": ",,"}.get(kind) or (
        f"{float(target.group()):.1e}"
    )
    return Injection(
        ((offset + target.start(), offset + target.end(), replacement),),
        {"error_type": kind, "original": target.group(), "modified": replacement},
    )


def _attribute_value(tags: list[Tag], rng: random.Random) -> Injection | None:
    candidates = [
        (tag, item)
        for tag in tags
        for item in tag.attributes
        if (item.name in _COLOR_ATTRIBUTES and item.value.startswith("#"))
        or (item.name in _NUMERIC_ATTRIBUTES and item.value[:1].isdigit())
    ]
    if not candidates:
        return None
    tag, item = rng.choice(candidates)
    if item.name in _COLOR_ATTRIBUTES:
        digits = item.value[1:]
        wrong = rng.choice([digits, "0x" + digits, "#" + rng.choice("GHXZ") + digits[1:]])
    else:
        wrong = item.value + rng.choice(["px;", "..", "%%", "O"])
    return Injection(
        ((item.value_start, item.value_end, wrong),),
        {
            "element": tag.name,
            "attribute": item.name,
            "original_value": item.value,
            "error_value": wrong,
        },
    )


def _attribute_name(tags: list[Tag], rng: random.Random) -> Injection | None:
    candidates = [
        (tag, item) for tag in tags for item in tag.attributes if item.name in _NAMED_ATTRIBUTES
    ]
    if not candidates:
        return None
    tag, item = rng.choice(candidates)
    wrong = misspell(item.name, rng)
    return Injection(
        ((item.start, item.start + len(item.name), wrong),),
        {"element": tag.name, "original_attribute": item.name, "wrong_attribute": wrong},
    )


INJECTORS: Mapping[str, Injector] = {
    "misspell_tag_name": _misspell_tag,
    "remove_closing_tag": _remove_closing,
    "add_strange_chars": _add_strange_chars,
    "invalid_path_command": _invalid_command,
    "path_data_format_error": _format_error,
    "attribute_value_error": _attribute_value,
    "attribute_name_error": _attribute_name,
}
