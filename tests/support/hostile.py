"""The hostile corpus of the render tests: SVGs that try to read files, reach the network or blow
up, each with the failure it must end as, and a server that counts the requests made to it."""

from __future__ import annotations

import base64
import http.server
import io
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from support.bombs import ELSEWHERE, NS, use_bomb
from svgeval.render.cairo import RenderSpec

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
