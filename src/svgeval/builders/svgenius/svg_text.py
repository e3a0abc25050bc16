"""Positions of tags, attributes and path data in well-formed SVG text.

The bug injector edits the text itself (so the ground truth stays byte for byte the original),
which needs to know where each tag, attribute and number sits. Comments and CDATA sections are
skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TAG = re.compile(
    r"<(/?)([A-Za-z_][\w:.-]*)((?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>"
)
_ATTRIBUTE = re.compile(r"([^\s=/>]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_OPAQUE = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>", re.DOTALL)


@dataclass(frozen=True)
class Attribute:
    """``name="value"``: ``start`` is where the name begins; ``value_start``/``value_end``
    delimit the value without its quotes."""

    name: str
    start: int
    value: str
    value_start: int

    @property
    def value_end(self) -> int:
        return self.value_start + len(self.value)


@dataclass
class Tag:
    """A start tag (``<name ...>`` or ``<name .../>``) and, if any, its end tag's span."""

    name: str
    start: int
    end: int
    self_closing: bool
    attributes: list[Attribute]
    closing: tuple[int, int] | None = field(default=None)

    @property
    def name_end(self) -> int:
        return self.start + 1 + len(self.name)

    @property
    def bracket_end(self) -> int:
        """Index of the ``/>`` or ``>`` that ends the start tag."""
        return self.end - (2 if self.self_closing else 1)

    def attribute(self, name: str) -> Attribute | None:
        return next((item for item in self.attributes if item.name == name), None)


def scan_tags(svg: str) -> list[Tag]:
    """Every start tag in document order, each paired with its end tag when it has one."""
    opaque = [match.span() for match in _OPAQUE.finditer(svg)]
    tags: list[Tag] = []
    open_tags: list[Tag] = []
    for match in _TAG.finditer(svg):
        if any(start <= match.start() < end for start, end in opaque):
            continue
        slash, name, attributes_text, self_closing = match.groups()
        if slash:
            if open_tags and open_tags[-1].name == name:
                open_tags.pop().closing = match.span()
            continue
        offset = match.start(3)
        attributes = [
            Attribute(
                name=item.group(1),
                start=offset + item.start(1),
                value=item.group(2) if item.group(2) is not None else item.group(3),
                value_start=offset
                + (item.start(2) if item.group(2) is not None else item.start(3)),
            )
            for item in _ATTRIBUTE.finditer(attributes_text)
        ]
        tag = Tag(name, match.start(), match.end(), bool(self_closing), attributes)
        tags.append(tag)
        if not self_closing:
            open_tags.append(tag)
    return tags
