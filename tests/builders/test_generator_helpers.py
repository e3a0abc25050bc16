"""Helpers of the data generators: colours as colours, the viewBox, the skip log."""

from __future__ import annotations

import pytest
from lxml import etree

from svgeval.builders.skips import SkipLog
from svgeval.svg.colors import parse_color, same_color
from svgeval.svg.viewbox import ViewBox, view_box


@pytest.mark.parametrize(
    "spelling",
    ["#fff", "#FFF", "#ffffff", "white", " White ", "rgb(255, 255, 255)", "rgb(100%,100%,100%)"],
)
def test_spellings_of_white_are_one_colour(spelling: str) -> None:
    assert parse_color(spelling) == (255, 255, 255, 255)
    assert same_color(spelling, "#FFFFFF")


def test_colours_are_read_as_the_renderer_reads_them() -> None:
    assert same_color("#5c9e31", "#5C9E31") and not same_color("#5c9e31", "#5c9e30")
    assert parse_color("green") == (0, 128, 0, 255)  # CSS green, not #00FF00
    assert parse_color("rgba(255, 0, 0, 0.5)") == (255, 0, 0, 128)
    unread = ("none", "transparent", "rgba(1, 2, 3, 0)", "currentColor", "url(#g)", "#ffff")
    for nothing in (*unread, "hsl(0, 100%, 50%)", "", None):
        assert parse_color(nothing) is None, nothing
    assert not same_color("none", "none")  # no colour is not a colour


def _root(attributes: str) -> etree._Element:
    return etree.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg" {attributes}/>')


def test_view_box_from_the_attribute_or_the_size() -> None:
    box = view_box(_root('viewBox="-2,4 24 12"'))
    assert box == ViewBox(-2.0, 4.0, 24.0, 12.0)
    assert box.centre == (10.0, 10.0) and box.size == 24.0
    assert view_box(_root('width="48px" height="24"')) == ViewBox(0.0, 0.0, 48.0, 24.0)
    for missing in ('width="100%" height="50%"', 'viewBox="0 0 0 24"', 'viewBox="0 0 24"', ""):
        assert view_box(_root(missing)) is None, missing


def test_skip_log_counts_per_reason_and_names_examples() -> None:
    log = SkipLog()
    for name in ("a", "b", "c", "d"):
        log.add(name, "no fill colour", "change_color")
    log.add("e", "does not render")
    assert log.lines() == [
        "skipped 4 change_color cases: no fill colour (e.g. a, b, c, ...)",
        "skipped 1 source: does not render (e)",
    ]
