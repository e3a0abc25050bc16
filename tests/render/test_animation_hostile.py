"""Hostile animated SVG in the browser renderer: each one a recorded failure or a safe render,
in bounded time, with no connection to a local listener and no open of a marker FIFO."""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from support.witnesses import Witnesses, witnesses

from svgeval.render import browser_session
from svgeval.render.animation import AnimationSpec, BrowserRenderer, PageSpec, check_browser
from svgeval.render.browser_session import BrowserSession
from svgeval.render.picture import RenderFailure

NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
XHTML = 'xmlns="http://www.w3.org/1999/xhtml"'
SPEC = AnimationSpec(96, 96, fps=10, duration_s=0.3)
MOVING = ('<rect width="10" height="10" fill="red"><animate attributeName="x" from="0" to="90" '
          'dur="1s" repeatCount="indefinite"/></rect>')


def svg(*parts: str, attributes: str = "") -> str:
    return f"<svg {NS}{attributes}>" + "".join(parts) + "</svg>"


def foreign(html: str) -> str:
    return f'<foreignObject width="100" height="100"><div {XHTML}>{html}</div></foreignObject>'


def hostile_corpus(url: str, fifo: Path) -> dict[str, tuple[str, str]]:
    """Name -> (SVG, expected failure tag, or ``render`` for a safe render)."""
    file_url = fifo.as_uri()
    rejected_reference = "rejected:external_reference"
    image = '<image {}="{}" width="9" height="9"/>'
    return {
        "script_fetch_loop": (svg(f"<script>fetch('{url}/s'); while (true) {{}}</script>"),
                              "rejected:script"),
        "script_upper_case": (svg(f"<SCRIPT>fetch('{url}/s')</SCRIPT>"), "rejected:script"),
        "onload_handler": (svg(attributes=f" onload=\"fetch('{url}/o')\""), "rejected:script"),
        "animated_handler": (svg('<set attributeName="onclick" to="fetch(1)"/>'),
                             "rejected:script"),
        "javascript_href": (svg('<a href="javascript:fetch(1)"><rect/></a>'), rejected_reference),
        "image_http": (svg(image.format("href", f"{url}/i.png")), rejected_reference),
        "image_file": (svg(image.format("xlink:href", file_url)), rejected_reference),
        "image_href_upper_case": (svg(image.format("HREF", f"{url}/u.png")), rejected_reference),
        "use_file": (svg(f'<use href="{file_url}#x"/>'), rejected_reference),
        "animated_href": (svg('<image width="9" height="9"><set attributeName="href" ',
                              f'to="{url}/a.png"/></image>'), rejected_reference),
        "css_import": (svg(f"<style>@import url({url}/c.css);</style>"), rejected_reference),
        "css_url_fill": (svg(f'<rect width="9" height="9" style="fill:url({url}/f#p)"/>'),
                         rejected_reference),
        "css_escaped_url": (svg(f"<style>rect {{ fill: \\75 rl({url}/e#p) }}</style><rect/>"),
                            rejected_reference),
        "css_image_set": (svg(foreign(f"<p style=\"background: image-set('{url}/s.png' 1x)\">x</p>")),
                          rejected_reference),
        "iframe_http": (svg(foreign(f'<iframe src="{url}/f"/>')), "rejected:embedded_content"),
        "iframe_file": (svg(foreign(f'<iframe src="{file_url}"/>')), "rejected:embedded_content"),
        "img_src_http": (svg(foreign(f'<img src="{url}/img.png"/>')), rejected_reference),
        "img_srcset": (svg(foreign(f'<img srcset="data:image/png;base64,AAAA 1x, {url}/2x.png 2x"/>')),
                       rejected_reference),
        "meta_refresh": (svg(foreign(f'<meta http-equiv="refresh" content="0; url={file_url}"/>')),
                         "rejected:embedded_content"),
        "comment_hides_img": (svg(f'<!--><img src="{url}/c.png"/>-->', MOVING), "render"),
        "pi_hides_img": (svg(f'<?x ><img src="{url}/p.png"/> ?>', MOVING), "render"),
        "infinite_animation": (svg(MOVING, attributes=' viewBox="0 0 100 100"'), "render"),
        "giant_canvas": (svg(MOVING, attributes=' width="1e9" height="1e9" viewBox="0 0 100 100"'),
                         "render"),
    }


@pytest.fixture()
def seen(tmp_path: Path) -> Iterator[Witnesses]:
    with witnesses(tmp_path) as found:
        yield found


def test_hostile_animations_fail_or_render_safely_without_network_or_files(
    browser_renderer: BrowserRenderer, seen: Witnesses
) -> None:
    for name, (svg, expected) in hostile_corpus(seen.url, seen.fifo).items():
        started = time.monotonic()
        outcome = browser_renderer.animate(svg, SPEC)
        assert time.monotonic() - started < browser_renderer.timeout_s + 5, name
        if expected == "render":
            assert not isinstance(outcome, RenderFailure), (name, outcome)
            assert outcome.shape == (3, 96, 96, 3), name
            assert len({frame.tobytes() for frame in outcome}) == 3, name  # it moves
        else:
            assert isinstance(outcome, RenderFailure), name
            assert outcome.tag == expected, (name, outcome)
    assert seen.connections == [] and seen.opens == []


@pytest.mark.usefixtures("chromium")
def test_the_browser_alone_loads_nothing_and_runs_no_script(seen: Witnesses) -> None:
    """Defence in depth: raw hostile pages go straight to a browser session, with none of the
    checks of the parent; scripts must not run and nothing may be fetched or opened."""
    paths = check_browser()
    url, file_url = seen.url, seen.fifo.as_uri()
    raw = (
        f"<svg {NS} viewBox=\"0 0 10 10\" onload=\"fetch('{url}/onload')\">"
        f"<script>fetch('{url}/script'); new Image().src = '{url}/img';"
        "document.querySelector('rect').setAttribute('fill', 'red'); while (true) {}</script>"
        '<rect width="10" height="10" fill="blue"/>'
        f'<image href="{url}/image.png"/><image href="{file_url}"/><use href="{file_url}#x"/>'
        f"<style>@import url({url}/import.css); rect {{ stroke: url({url}/s#p) }}</style>"
        + '<foreignObject width="2" height="2"><div ' + XHTML + ">"
        f'<iframe src="{url}/frame"></iframe><iframe src="{file_url}"></iframe>'
        f'<img src="{file_url}"/><img src="{url}/img2.png"/>'
        f'<link rel="stylesheet" href="{url}/link.css"/></div></foreignObject></svg>'
    )
    with tempfile.TemporaryDirectory(prefix="svgeval-test-chromium-") as profile:
        session = BrowserSession(paths, Path(profile), sandbox=os.geteuid() != 0)
        try:
            started = time.monotonic()
            frames = session.frames(raw, PageSpec(32, 32), (0.0, 0.5))
            elapsed = time.monotonic() - started
        finally:
            session.close()
    assert elapsed < 10
    assert np.array_equal(frames[0, 16, 16], [0, 0, 255])  # the script did not repaint it
    assert seen.connections == [] and seen.opens == []


def test_the_witnesses_see_a_connection_and_an_open(seen: Witnesses) -> None:
    with pytest.raises(OSError):  # the listener accepts and closes at once
        urllib.request.urlopen(seen.url, timeout=5).read()
    with open(seen.fifo, "rb", buffering=0):  # blocks until the watcher opens it
        pass
    time.sleep(0.1)
    assert len(seen.connections) == 1 and len(seen.opens) >= 1


@pytest.mark.slow
@pytest.mark.usefixtures("chromium")
def test_the_witnesses_see_a_chromium_without_the_lock_down(seen: Witnesses) -> None:
    """The same Chromium without svgeval's flags and CDP settings is caught by both."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    paths = check_browser()
    options = webdriver.ChromeOptions()
    options.binary_location = paths.chromium
    with tempfile.TemporaryDirectory(prefix="svgeval-test-chromium-") as profile:
        for argument in ("--headless=new", f"--user-data-dir={profile}",
                         *(() if os.geteuid() else ("--no-sandbox",))):
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service(paths.chromedriver), options=options)
        try:
            driver.get(f"data:text/html,<img src='{seen.url}/x.png'>")
            driver.set_page_load_timeout(3)
            with contextlib.suppress(Exception):
                driver.get(seen.fifo.as_uri())
            time.sleep(0.5)
        finally:
            driver.quit()
    assert seen.connections and seen.opens


NETWORK_FLAGS = ("--host-resolver-rules", "--proxy-server", "--proxy-bypass-list")


def loads_seen(monkeypatch: pytest.MonkeyPatch, seen: Witnesses, *, flags: bool,
               blocked: bool) -> int:
    """Connections a raw page with three http images makes with the chosen network layers."""
    if not flags:
        monkeypatch.setattr(browser_session, "LAUNCH_FLAGS", tuple(
            flag for flag in browser_session.LAUNCH_FLAGS if not flag.startswith(NETWORK_FLAGS)))
    if not blocked:
        monkeypatch.setattr(browser_session, "BLOCKED_URLS", ())
    page = svg(f'<image href="{seen.url}/a.png" width="9" height="9"/>',
               foreign(f'<img src="{seen.url}/b.png"/><img src="{seen.url}/c.png"/>'))
    with tempfile.TemporaryDirectory(prefix="svgeval-test-chromium-") as profile:
        session = BrowserSession(check_browser(), Path(profile), sandbox=os.geteuid() != 0)
        try:
            session.frames(page, PageSpec(32, 32), (0.0,))
            time.sleep(1.0)
            session.frames(page, PageSpec(32, 32), (0.0,))
        finally:
            session.close()
    time.sleep(0.3)
    return len(seen.connections)


@pytest.mark.usefixtures("chromium")
def test_without_its_network_layers_the_same_browser_page_connects(
    monkeypatch: pytest.MonkeyPatch, seen: Witnesses
) -> None:
    """What makes the zero counts above mean something: the page really loads when let."""
    assert loads_seen(monkeypatch, seen, flags=False, blocked=False) > 0


@pytest.mark.slow
@pytest.mark.usefixtures("chromium")
@pytest.mark.parametrize(("flags", "blocked"), [(True, False), (False, True)],
                         ids=["launch-flags-only", "blocked-urls-only"])
def test_each_network_layer_alone_blocks_the_loads(
    monkeypatch: pytest.MonkeyPatch, seen: Witnesses, flags: bool, blocked: bool
) -> None:
    assert loads_seen(monkeypatch, seen, flags=flags, blocked=blocked) == 0
