"""Reference bombs shared by the hostile corpus and the reference tests."""

from __future__ import annotations

NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
ELSEWHERE = "http://example.com/not-xlink"
"""A namespace URI other than XLink's, to bind the ``xlink`` prefix to."""


def use_bomb(levels: int = 10, fan: int = 10, href: str = "href", ns: str = NS) -> str:
    """``levels`` groups of ``fan`` ``<use>`` of the group below: fan**levels rectangles."""
    groups = "".join(
        f'<g id="l{level}">' + f'<use {href}="#l{level - 1}"/>' * fan + "</g>"
        for level in range(1, levels + 1)
    )
    rect = '<rect id="l0" width="1" height="1"/>'
    return f'<svg {ns}><defs>{rect}{groups}</defs><use href="#l{levels}"/></svg>'
