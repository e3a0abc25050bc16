"""What the browser renderer refuses beyond the sanitiser, and the text it puts in the page."""

from __future__ import annotations

import pytest
from lxml import etree

from svgeval.render.browser_policy import browser_document
from svgeval.svg.refusals import SvgRejected

NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
XHTML = 'xmlns="http://www.w3.org/1999/xhtml"'


def reason(svg: str) -> str:
    with pytest.raises(SvgRejected) as error:
        browser_document(svg)
    return error.value.reason


@pytest.mark.parametrize(("svg", "expected"), [
    (f"<svg {NS}><script>1</script></svg>", "script"),  # the sanitiser's own rule
    (f"<svg {NS}><Script>1</Script></svg>", "script"),  # HTML lowercases it
    (f'<svg {NS} onload="1"/>', "script"),
    (f'<svg {NS}><rect ONCLICK="1"/></svg>', "script"),
    (f'<svg {NS}><set attributeName="onmouseover" to="1"/></svg>', "script"),
    (f'<svg {NS}><rect class=" javascript:x"/></svg>', "script"),
    (f'<svg {NS}><foreignObject><iframe {XHTML} srcdoc="x"/></foreignObject></svg>',
     "embedded_content"),
    (f'<svg {NS}><foreignObject><object {XHTML}/></foreignObject></svg>', "embedded_content"),
    (f'<svg {NS}><meta http-equiv="refresh" content="0"/></svg>', "embedded_content"),
    (f'<svg {NS}><foreignObject><img {XHTML} src="a.png"/></foreignObject></svg>',
     "external_reference"),
    (f'<svg {NS}><foreignObject><video {XHTML} poster="//x/p"/></foreignObject></svg>',
     "external_reference"),
    (f'<svg {NS}><foreignObject><img {XHTML} srcset="data:,a 1x"/></foreignObject></svg>',
     "external_reference"),
    (f'<svg {NS}><a ping="#x"/></svg>', "external_reference"),
    (f'<svg {NS}><image HREF="http://x/a.png"/></svg>', "external_reference"),
    (f'<svg {NS} xml:base="http://x/"/>', "external_reference"),
    (f'<svg {NS}><image><animate attributeName="xlink:href" values="#a;http://x/b"/></image></svg>',
     "external_reference"),
    (f"<svg {NS}><style>rect {{ fill: \\75 rl(http://x/a) }}</style></svg>", "external_reference"),
    (f"<svg {NS}><style>@\\69mport 'x.css';</style></svg>", "external_reference"),
    (f'<svg {NS}><rect style="fill: URL(  \'http://x/a\'  )"/></svg>', "external_reference"),
    (f"<svg {NS}><style>p {{ background: -webkit-image-set('a.png' 1x) }}</style></svg>",
     "external_reference"),
    (f'<svg {NS}><text style="mask-image: image(\'a.png\')">x</text></svg>', "external_reference"),
])
def test_what_only_a_browser_would_run_or_load_is_refused(svg: str, expected: str) -> None:
    assert reason(svg) == expected


def test_local_references_and_data_uris_pass() -> None:
    svg = (f'<svg {NS}><defs><rect id="a" width="1" height="1"/><rect id="b"/></defs>'
           '<use href="#a"><set attributeName="href" to="#b" begin="1s"/></use>'
           '<animate attributeName="xlink:href" values="#a; #b"/>'
           f'<foreignObject><img {XHTML} src="data:image/png;base64,AAAA"/></foreignObject>'
           '<rect style="fill: url(#a); transition: opacity 1s" class="myimage(1)"/></svg>')
    assert etree.fromstring(browser_document(svg)) is not None


def test_the_page_text_has_no_comment_processing_instruction_or_cdata() -> None:
    svg = (f'<?xml version="1.0"?><svg {NS}><!--><img src="http://x/a"/>--><?x ><img/> ?>'
           "<style><![CDATA[rect { fill: #f00 }]]></style><rect/></svg>")
    text = browser_document(svg)
    assert "<!--" not in text and "<?" not in text and "CDATA" not in text and "img" not in text
    assert "rect { fill: #f00 }" in text and text.startswith("<svg")
