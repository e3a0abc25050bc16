"""Typed ``--set KEY=VALUE`` options of a task (and ``--model-arg KEY=VALUE`` ones of a model kind).

A task declares its options as a dataclass whose fields have defaults and a ``help`` text in
their metadata::

    @dataclass(frozen=True)
    class Options:
        extract: Literal["svgeditbench", "auto"] = field(
            default="svgeditbench", metadata={"help": "answer extraction rule"})

:func:`parse_options` turns the command line's strings into that dataclass, and
:func:`recorded_options` turns the JSON values a run recorded (``config.json``) back into it,
typed as they were, without going through strings. A key the task does
not have, or a value of the wrong type or outside a ``Literal``'s choices, raises ValueError
with one line that lists the valid keys or values. Supported field types: ``str``, ``int``,
``float``, ``bool``, ``Path``, a ``Literal`` of strings, and any of these ``| None``.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar, Union

from svgeval.errors import UserError

T = TypeVar("T")

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


class InvalidOption(UserError, ValueError):
    """A task's option the user gave (``--set KEY=VALUE``, ``--tier``, ``--model-arg``) that
    the task cannot take. A ValueError as well, the error these raised before: callers of
    :func:`parse_options` (and tests) catch that."""


@dataclass(frozen=True)
class NoOptions:
    """The options of a task that takes none."""


@dataclass(frozen=True)
class OptionInfo:
    """One option for help texts: name, type as written, default, help, choices."""

    name: str
    type_text: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()

    def describe(self) -> str:
        """E.g. ``extract=svgeditbench|auto (default svgeditbench): answer extraction rule``."""
        values = "|".join(self.choices) if self.choices else self.type_text
        return f"{self.name}={values} (default {self.default}): {self.help}"


def _unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    """``X | None`` -> (X, True); anything else -> (annotation, False)."""
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(members) == 1:
            return members[0], True
    return annotation, False


def _type_text(annotation: Any) -> str:
    base, optional = _unwrap_optional(annotation)
    name = getattr(base, "__name__", str(base))
    return f"{name} or none" if optional else name


def option_infos(options_class: type[Any]) -> list[OptionInfo]:
    """The options of a task's ``Options`` dataclass, in declaration order."""
    hints = typing.get_type_hints(options_class)
    infos = []
    for option in dataclasses.fields(options_class):
        base, _ = _unwrap_optional(hints[option.name])
        choices = typing.get_args(base) if typing.get_origin(base) is Literal else ()
        infos.append(
            OptionInfo(
                name=option.name,
                type_text=_type_text(hints[option.name]),
                default=option.default,
                help=str(option.metadata.get("help", "")),
                choices=tuple(str(choice) for choice in choices),
            )
        )
    return infos


def _convert(key: str, text: str, annotation: Any, flag: str) -> Any:
    base, optional = _unwrap_optional(annotation)
    if optional and text.lower() in ("", "none"):
        return None
    if typing.get_origin(base) is Literal:
        choices = [str(choice) for choice in typing.get_args(base)]
        if text not in choices:
            raise InvalidOption(f"{flag} {key}={text}: choose one of {', '.join(choices)}")
        return text
    if base is bool:
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise InvalidOption(f"{flag} {key}={text}: expected true or false")
    if base in (int, float):
        try:
            return base(text)
        except ValueError:
            raise InvalidOption(f"{flag} {key}={text}: expected {base.__name__}") from None
    if base is Path:  # absolute, so that the run's record works from any directory
        return Path(text).expanduser().resolve()
    return text


def parse_options(
    options_class: type[T], values: Mapping[str, str], task: str, flag: str = "--set"
) -> T:
    """``values`` (from ``flag``: ``--set``, or ``--model-arg`` for a model's options) as an
    instance of ``options_class``; ValueError on a bad key or value, naming the valid ones."""
    hints = typing.get_type_hints(options_class)
    known = {option.name for option in dataclasses.fields(options_class)}  # type: ignore[arg-type]
    unknown = sorted(set(values) - known)
    if unknown:
        valid = "; ".join(info.describe() for info in option_infos(options_class)) or "none"
        raise InvalidOption(f"unknown option {unknown[0]!r} for {task}; valid options: {valid}")
    converted = {key: _convert(key, text, hints[key], flag) for key, text in values.items()}
    return options_class(**converted)


def recorded_options(options_class: type[T], values: Mapping[str, Any]) -> T:
    """The options a run recorded as JSON values (``task_options.set`` of ``config.json``) as an
    instance of ``options_class``, each value validated against its field's type (a path
    recorded as text is a Path again, None stays None)."""
    from pydantic import TypeAdapter

    return TypeAdapter(options_class).validate_python(dict(values))
