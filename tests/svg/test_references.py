"""Reference bombs and cycles are refused before rendering; what references expand to is counted.

Expected sizes are counted by hand from the rule in :func:`svgeval.svg.sanitize.expanded_size`:
each element once, plus a copy of what it draws by reference each time it draws it.
"""

from __future__ import annotations

import base64
import gzip
import time
from urllib.parse import quote

import pytest
from lxml import etree
from released import SVGENIUS_ANSWERS, SVGENIUS_INPUTS, svgenius_icons, svgenius_task_svgs
from support.bombs import NS, use_bomb
from support.shared_paths import shared_release

from svgeval.svg.refusals import SvgLimits, SvgRejected
from svgeval.svg.sanitize import check_svg, expanded_size
from svgeval.tasks.svgeditbench.data import load_release


def svg(body: str) -> str:
    return f"<svg {NS}>{body}</svg>"


def nested_defs(kind: str, levels: int, where: str) -> str:
    """``levels`` patterns/markers/masks, each drawing the one below 10 times."""
    tag, prop = {"pattern": ("pattern", "fill"), "marker": ("marker", "marker-end")}.get(
        kind, ("mask", "mask")
    )
    styles = "".join(f".c{i} {{ {prop}: url(#d{i - 1}) }}" for i in range(1, levels + 1))
    definitions = [f'<{tag} id="d0"><path d="M0 0L1 1"/></{tag}>']
    for i in range(1, levels + 1):
        if where == "attribute":
            body = f'<path d="M0 0L1 1" {prop}="url(#d{i - 1})"/>' * 10
        elif where == "style":
            body = f'<path d="M0 0L1 1" style="{prop}:url(#d{i - 1})"/>' * 10
        elif where == "sheet":
            body = f'<path d="M0 0L1 1" class="c{i}"/>' * 10
        else:  # inherited from a group, if the property is inherited
            body = f'<g {prop}="url(#d{i - 1})">' + '<path d="M0 0L1 1"/>' * 10 + "</g>"
        definitions.append(f'<{tag} id="d{i}">{body}</{tag}>')
    top = f'<path d="M0 0L9 9" {prop}="url(#d{levels})"/>'
    return svg(f"<style>{styles}</style><defs>{''.join(definitions)}</defs>{top}")


def size(code: str, budget: int = 10**9) -> int:
    return expanded_size(etree.fromstring(code.encode()), SvgLimits(max_expanded_nodes=budget))


def data_uri(document: bytes, gzipped: bool = False) -> str:
    payload = gzip.compress(document, mtime=0) if gzipped else document
    return "data:image/svg+xml;base64," + base64.b64encode(payload).decode()


def refusal(code: str) -> str:
    with pytest.raises(SvgRejected) as caught:
        check_svg(code)
    return caught.value.reason


@pytest.mark.parametrize("href", ["href", "xlink:href"])
def test_use_bomb_is_refused(href: str) -> None:
    assert refusal(use_bomb(href=href)) == "use_budget"


def test_use_bomb_size_is_counted_exactly_below_the_budget() -> None:
    # level k is a group of 10 (use + level k-1): s(0) = 1, s(k) = 1 + 10 (1 + s(k-1)),
    # so 21, 221, 2221; then svg, defs and the top <use> of level 3
    assert size(use_bomb(levels=3)) == 1 + 1 + (1 + 21 + 221 + 2221) + (1 + 2221)


@pytest.mark.parametrize(
    "body",
    [
        '<use id="a" href="#a"/>',  # itself
        '<g id="a"><rect/><use href="#a"/></g>',  # its ancestor
        '<g id="a"><g><use xlink:href="#a"/></g></g>',
        '<defs><g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g></defs><use href="#a"/>',
        '<g id="a"><use href="#c"/></g><use id="b" href="#a"/><g id="c"><use href="#b"/></g>',
    ],
)
def test_use_cycles_are_refused(body: str) -> None:
    assert refusal(svg(body)) == "use_cycle"


@pytest.mark.parametrize(
    "body",
    [
        '<pattern id="p"><rect fill="url(#p)"/></pattern><rect fill="url(#p)"/>',
        '<g fill="url(#p)"><pattern id="p"><rect/></pattern></g>',  # inherited
        '<marker id="m"><path d="M0 0L1 1" marker-start="url(#m)"/></marker>',
        '<mask id="m"><rect style="mask: url(#m)"/></mask>',
        '<pattern id="p" href="#q"/><pattern id="q" href="#p"/>',
    ],
)
def test_other_reference_cycles_are_refused(body: str) -> None:
    assert refusal(svg(body)) == "use_cycle"


@pytest.mark.parametrize("kind", ["pattern", "marker", "mask"])
@pytest.mark.parametrize("where", ["attribute", "style", "sheet", "group"])
def test_nested_patterns_markers_and_masks_are_counted(kind: str, where: str) -> None:
    code = nested_defs(kind, 5, where)
    if kind == "mask" and where == "group":  # mask is not inherited: drawn once per level
        assert check_svg(code)
    else:
        assert refusal(code) == "use_budget"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('<rect id="r"/><use href="#r"/><use href="#r"/>', 1 + 1 + 2 * (1 + 1)),
        # the <use> paints p (3) and its group's three rects inherit fill p: 1 + 3 * (1 + 3)
        (
            '<defs><pattern id="p"><rect/><rect/></pattern><g id="g"><rect/><rect/><rect/></g>'
            + '</defs><use href="#g" fill="url(#p)"/>',
            1 + 1 + 3 + 4 + (1 + 3 + 13),
        ),
        # a gradient counts its own elements only, per painted element
        (
            '<defs><linearGradient id="g"><stop/><stop/></linearGradient></defs>'
            + '<rect fill="url(#g)"/><rect style="stroke: url(\'#g\')"/>',
            1 + 1 + 3 + 2 * (1 + 3),
        ),
        # six numbers in points: at most 8 vertices carry the marker (2 elements)
        (
            '<marker id="m"><circle/></marker><polyline points="0,0 1,1 2,0" marker-mid="url(#m)"/>',
            1 + 2 + (1 + 8 * 2),
        ),
        (
            '<style>.a{fill:url(#p)}</style><pattern id="p"><rect/></pattern>'
            + '<rect class="a"/><circle class="a"/>',
            1 + 1 + 2 + 2 * (1 + 2),
        ),
        # an own fill overrides the inherited one; a <g> is not painted
        (
            '<g fill="url(#p)"><rect fill="red"/></g><pattern id="p"><rect/></pattern>',
            1 + 1 + 1 + 2,
        ),
        (
            '<g fill="url(#p)"><rect fill="inherit"/></g><pattern id="p"><rect/></pattern>',
            1 + 1 + 3 + 2,
        ),
        ('<use href="#missing"/><rect fill="url(#nothing)"/>', 3),
    ],
)
def test_expanded_size(body: str, expected: int) -> None:
    assert size(svg(body)) == expected


@pytest.mark.parametrize("gzipped", [False, True])
@pytest.mark.parametrize("tag", ["image", "use"])
def test_embedded_bomb_is_refused(tag: str, gzipped: bool) -> None:
    uri = data_uri(use_bomb().encode(), gzipped)
    assert refusal(svg(f'<{tag} href="{uri}" width="9" height="9"/>')) == "use_budget"


def test_embedded_documents_are_checked_and_counted() -> None:
    three = svg("<rect/><circle/>").encode()
    assert size(svg(f'<image href="{data_uri(three)}"/>')) == 1 + 1 + 3
    assert size(svg(f'<use xlink:href="{data_uri(three, gzipped=True)}#x"/>')) == 1 + 1 + 3
    cycle = svg('<g id="a"><use href="#a"/></g>')
    assert refusal(svg(f'<image href="data:image/svg+xml,{quote(cycle)}"/>')) == "use_cycle"
    external = svg('<image href="file:///etc/passwd"/>').encode()
    assert refusal(svg(f'<image href="{data_uri(external)}"/>')) == "external_reference"
    inflating = b"<svg " + b" " * 5_000_000 + b"/>"
    assert refusal(svg(f'<image href="{data_uri(inflating, gzipped=True)}"/>')) == "too_large"


def test_inherited_gradient_is_no_cycle() -> None:
    code = (
        f'<svg {NS} fill="url(#g)"><defs><linearGradient id="g"><stop/></linearGradient></defs>'
        '<rect width="1" height="1"/></svg>'
    )
    assert check_svg(code)


def test_budget_is_inclusive_and_configurable() -> None:
    code = svg('<rect id="r"/><use href="#r"/><use href="#r"/>')
    assert size(code, budget=6) == 6
    with pytest.raises(SvgRejected, match="use_budget"):
        check_svg(code, SvgLimits(max_expanded_nodes=5))


def test_the_default_budget_also_caps_plain_documents() -> None:
    assert check_svg(svg("<rect/>" * 9_998))
    assert refusal(svg("<rect/>" * 10_000)) == "use_budget"


@pytest.mark.shared_data
def test_no_released_svg_is_refused() -> None:
    """All SVGEditBench inputs and answers and all SVGenius icons, inputs and answers pass."""
    editbench = load_release(shared_release("svgeditbench"))
    svgenius = shared_release("svgenius")
    codes = [sample.input_svg or "" for sample in editbench]
    codes += [sample.target.answer_svg for sample in editbench]
    codes += list(svgenius_icons(svgenius))
    codes += list(svgenius_task_svgs(svgenius, SVGENIUS_ANSWERS | SVGENIUS_INPUTS))
    assert len(codes) == 600 + 600 + 300 + 1513 + 299 + 236
    started = time.perf_counter()
    for code in codes:
        root = etree.fromstring(check_svg(code))
        assert expanded_size(root) == sum(1 for _ in root.iter())  # none uses a reference
    print(f"{len(codes)} released SVGs checked in {time.perf_counter() - started:.2f} s")
