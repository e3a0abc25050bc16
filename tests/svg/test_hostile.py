"""The hostile corpus: every SVG ends as a recorded failure or a safe render, within the limit."""

from __future__ import annotations

import base64
import contextlib
import http.server
import io
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from bombs import ELSEWHERE, use_bomb
from lxml import etree
from PIL import Image

from svgeval.render.cairo import RenderSpec, _refuse_url
from svgeval.render.isolated import Renderer
from svgeval.svg.refusals import SvgRejected

NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
SPEC = RenderSpec.square(72)

BILLION_LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "lol">'
    + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(9))
    + f"]><svg {NS}><text>&j;</text></svg>"
)
XXE = (
    '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    f"<svg {NS}><text>&x;</text></svg>"
)
DEEP = f"<svg {NS}>" + "<g>" * 10_000 + "</g>" * 10_000 + "</svg>"


def red_png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), (255, 0, 0)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture()
def counting_server() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on 127.0.0.1 that records every request made to it."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(red_png())

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()
    server.server_close()


def hostile_corpus(tmp_path: Path, base_url: str) -> dict[str, tuple[str | bytes, str]]:
    """Name -> (SVG code, expected failure tag)."""
    secret = tmp_path / "secret.png"
    secret.write_bytes(red_png())
    image = '<image {ref}="{url}" x="0" y="0" width="36" height="36"/>'
    bomb_uri = "data:image/svg+xml;base64," + base64.b64encode(use_bomb().encode()).decode()
    other_xlink = f'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="{ELSEWHERE}"'
    namespaced = (f'<s:svg xmlns:s="http://www.w3.org/2000/svg" width="9" height="9">'
                  f'<s:image href="{base_url}/i.png" width="9" height="9"/></s:svg>')
    namespaced_uri = "data:image/svg+xml;base64," + base64.b64encode(namespaced.encode()).decode()
    return {
        "billion_laughs": (BILLION_LAUGHS, "rejected:entity"),
        "xxe_passwd": (XXE, "rejected:entity"),
        "image_file_url": (
            f"<svg {NS}>{image.format(ref='href', url=secret.as_uri())}</svg>",
            "rejected:external_reference",
        ),
        "image_absolute_path": (
            f"<svg {NS}>{image.format(ref='xlink:href', url=secret)}</svg>",
            "rejected:external_reference",
        ),
        "image_relative_path": (
            f"<svg {NS}>{image.format(ref='href', url='secret.png')}</svg>",
            "rejected:external_reference",
        ),
        "image_http": (
            f"<svg {NS}>{image.format(ref='href', url=base_url + '/a.png')}</svg>",
            "rejected:external_reference",
        ),
        "use_external": (
            f'<svg {NS}><use href="{base_url}/b.svg#x"/></svg>',
            "rejected:external_reference",
        ),
        "css_import": (
            f"<svg {NS}><style>@import url({base_url}/c.css);</style></svg>",
            "rejected:external_reference",
        ),
        "css_url_fill": (
            f'<svg {NS}><rect width="9" height="9" style="fill:url({base_url}/d#g)"/></svg>',
            "rejected:external_reference",
        ),
        "script": (f"<svg {NS}><script>alert(1)</script></svg>", "rejected:script"),
        "deep_nesting": (DEEP, "rejected:malformed_xml"),
        "truncated": (f'<svg {NS}><path d="M0 0L10 10"', "rejected:malformed_xml"),
        "non_utf8": (f"<svg {NS}><text>caf\xe9</text></svg>".encode("latin-1"), "rejected:encoding"),
        "not_svg": ("<html><body>hi</body></html>", "rejected:not_svg"),
        "use_bomb": (use_bomb(levels=10, fan=10), "rejected:use_budget"),
        "use_bomb_embedded": (f'<svg {NS}><image href="{bomb_uri}"/></svg>', "rejected:use_budget"),
        "use_cycle": (f'<svg {NS}><g id="a"><use href="#a"/></g></svg>', "rejected:use_cycle"),
        # spelled so that a check by prefix or of the raw text misses them (issue 25)
        "css_import_escaped": (f'<svg {NS}><style>@\\69mport "{base_url}/e.css";</style></svg>',
                               "rejected:external_reference"),
        "css_url_escaped": (
            f'<svg {NS}><rect width="9" height="9" style="fill:\\75rl({base_url}/f#g)"/></svg>',
            "rejected:external_reference",
        ),
        "xml_base": (
            f'<svg {NS}><g xml:base="{base_url}/"><image href="#x" width="9"/></g></svg>',
            "rejected:external_reference",
        ),
        "xlink_prefix_elsewhere": (
            f'<svg {other_xlink}>{image.format(ref="xlink:href", url=base_url + "/h.png")}</svg>',
            "rejected:external_reference",
        ),
        "use_bomb_xlink_prefix_elsewhere": (use_bomb(href="xlink:href", ns=other_xlink),
                                            "rejected:use_budget"),
        "data_svg_namespaced_root": (
            f'<svg {NS}><image width="9" height="9" href="{namespaced_uri}"/></svg>',
            "rejected:external_reference",
        ),
        "use_cycle_indirect": (
            f'<svg {NS}><g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g></svg>',
            "rejected:use_cycle",
        ),
    }


def test_hostile_svgs_become_recorded_failures(
    tmp_path: Path, counting_server: tuple[str, list[str]], renderer: Renderer
) -> None:
    base_url, hits = counting_server
    for name, (svg, expected) in hostile_corpus(tmp_path, base_url).items():
        started = time.monotonic()
        outcome = renderer.render(svg, SPEC)
        assert outcome.image is None, name
        assert outcome.failure is not None and outcome.failure.tag == expected, name
        assert time.monotonic() - started < renderer.timeout_s + 2, name
    assert hits == [], "a renderer touched the network"


def test_giant_canvas_renders_safely(renderer: Renderer) -> None:
    svg = f'<svg {NS} width="1e9" height="1e9"><rect width="5e8" height="1e9" fill="#000"/></svg>'
    outcome = renderer.render(svg, SPEC)
    assert outcome.image is not None
    left, right = outcome.image[:, :30].mean(), outcome.image[:, 42:].mean()
    assert left == pytest.approx(0.0) and right == pytest.approx(1.0)


def test_data_uri_images_still_render(renderer: Renderer) -> None:
    uri = "data:image/png;base64," + base64.b64encode(red_png()).decode()
    svg = f'<svg {NS} viewBox="0 0 4 4"><image href="{uri}" width="4" height="4"/></svg>'
    outcome = renderer.render(svg, SPEC)
    assert outcome.image is not None
    assert np.allclose(outcome.image[36, 36], [1.0, 0.0, 0.0])


def test_url_fetcher_refuses_anything_but_data_uris() -> None:
    for url in ("file:///etc/passwd", "http://127.0.0.1:9/x", "secret.png"):
        with pytest.raises(SvgRejected):
            _refuse_url(url, "image/png")


def test_crash_and_hang_lose_only_their_sample() -> None:
    from crashers import segfault_on_marker

    with Renderer(workers=1, timeout_s=1.0, render_function=segfault_on_marker) as pool:
        fine = f'<svg {NS} width="4" height="4"><rect width="4" height="4"/></svg>'
        crash = pool.render(fine.replace("<rect", "<!--CRASH--><rect"), SPEC)
        assert crash.failure is not None and crash.failure.kind == "crash"
        hang = pool.render(fine.replace("<rect", "<desc>HANG</desc><rect"), SPEC)
        assert hang.failure is not None and hang.failure.kind == "timeout"
        after = pool.render(fine, SPEC)
        assert after.image is not None and after.image.mean() == pytest.approx(0.0)


def test_the_attribute_walk_is_skipped_only_where_it_cannot_refuse(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A document whose bytes hold none of what a refusal needs (``script``, ``href``,
    ``base``, ``url(``, ``@import``, a backslash, a character reference) is counted by lxml
    without the walk; every other document, and any with more nodes than the depth limit,
    still gets the walk, so each hostile document is refused as before."""
    from svgeval.svg import refusals, sanitize
    from svgeval.svg.demo_corpus import DEMO_ICONS, demo_svg

    icons = [demo_svg(name) for name in DEMO_ICONS]
    plain = [svg for svg in icons
             if not any(t in svg.lower().encode() for t in sanitize._WALK_TRIGGERS)]
    assert plain, "no demo SVG takes the short path"
    hostile = [svg for svg, _ in hostile_corpus(tmp_path, "http://127.0.0.1:9").values()]
    for svg in [*icons, *hostile]:
        data = svg.encode() if isinstance(svg, str) else svg
        try:
            root = etree.fromstring(data, refusals.safe_parser())
        except etree.XMLSyntaxError:
            continue
        walked = None
        with contextlib.suppress(SvgRejected):
            walked = refusals.check_nodes(root, refusals.DEFAULT_LIMITS)
        trigger = any(t in data.lower() for t in sanitize._WALK_TRIGGERS)
        if walked is not None and not trigger:  # the short path counts the same nodes
            assert sanitize._counted_nodes(root, refusals.DEFAULT_LIMITS) == walked
    nested = f"<svg {NS}>" + "<g>" * 200 + "</g>" * 200 + "</svg>"  # no trigger, too deep
    with pytest.raises(SvgRejected, match="nesting deeper"):
        sanitize.check_svg(nested)

    def no_walk(*args: object) -> int:
        raise AssertionError("walked")

    monkeypatch.setattr(sanitize, "check_nodes", no_walk)
    for svg in plain:
        sanitize.check_svg(svg)
    with pytest.raises(AssertionError, match="walked"):
        sanitize.check_svg(hostile_corpus(tmp_path, "http://127.0.0.1:9")["script"][0])
