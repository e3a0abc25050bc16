"""One headless Chromium that draws SVG pages frame by frame, through chromedriver and DevTools.

The browser is Debian's ``chromium`` driven by its ``chromedriver`` through Selenium; every page
step is a DevTools (CDP) command. :class:`BrowserSession` runs inside a render worker
(:mod:`svgeval.render.browser_worker`), never in the svgeval process, and trusts its input: the
parent has already refused what :func:`~svgeval.render.browser_policy.browser_document` refuses.
The session still keeps the browser off the network and the disk on its own:

* the network: every host name resolves to nothing (``--host-resolver-rules``), every request
  goes to a proxy on a closed port of 127.0.0.1 (``--proxy-server``, loopback included), and
  ``Network.setBlockedURLs`` refuses ``http``, ``https``, ``ws``, ``wss``, ``ftp`` and ``file``;
* the disk: the page is never a URL: its HTML is set with ``Page.setDocumentContent`` into
  ``about:blank``, whose origin may not read ``file://``; the profile is a fresh folder;
* code: ``Emulation.setScriptExecutionDisabled``; our own seeking runs through
  ``Runtime.evaluate``, which DevTools allows while page scripts are off;
* time: frame *i* is drawn after pausing and seeking every SMIL animation of the document
  (``pauseAnimations``, ``setCurrentTime(t)``) and every CSS or Web Animation (``pause``,
  ``currentTime = 1000 t``), so the frames do not depend on the wall clock and two loads give the
  same bytes. Every animation is paused at 0 as soon as the page is set: one left running while
  the page was normalised drew its frame at 1/30 s one of two ways from load to load.
  Animations inside an embedded image (an ``<image>`` whose ``data:`` URI is an animated SVG or
  GIF) cannot be seeked and are drawn as they are at capture. Chromium's
  virtual time is left alone: paused (``Emulation.setVirtualTimePolicy``), it stops
  ``setCurrentTime`` from taking effect in every document that holds an image, even a ``data:``
  PNG, and in every document loaded after one.

The page is InternSVG's (``utils/svg_animate.py`` at 77a891e): a white page whose only content is
the SVG at 100 % of the viewport, and, when ``normalize`` is on, the same changes to the first
``<svg>``: a viewBox from its width and height (or the page size) when it has none, no ``x``/``y``,
width and height 100 %, ``xMidYMid meet``, and a background rectangle first. InternSVG seeks SMIL
only and lets CSS animations run on the wall clock; here both are seeked.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svgeval.errors import UserError

INSTALL_HINT = (
    "install them with `apt-get install chromium chromium-driver` (Debian) and "
    "`pip install 'svgeval[browser]'`"
)
CHROMIUM_NAMES = ("chromium", "chromium-browser")

LAUNCH_FLAGS = (
    "--headless=new", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
    "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-default-apps", "--mute-audio",
    "--hide-scrollbars", "--block-new-web-contents", "--force-device-scale-factor=1",
    "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>", "--disable-threaded-animation",
    "--run-all-compositor-stages-before-draw",
)
"""Chromium's command line, besides the profile folder, the window size and ``--no-sandbox``.
Not ``--disable-frame-rate-limit`` (with ``--disable-gpu-vsync``): a screenshot is then quicker, but
an idle browser draws frames without end, busying a core between renders."""

BLOCKED_URLS = ("http://*", "https://*", "ws://*", "wss://*", "ftp://*", "file://*")

_PAGE = (
    "<!doctype html><html><head><meta charset=\"utf-8\"><style>"
    "html,body{{margin:0;padding:0;width:100%;height:100%;background:{background};overflow:hidden}}"
    "#stage{{width:100vw;height:100vh;display:block}}"
    "#stage>svg{{width:100%;height:100%;display:block}}"
    "</style></head><body><div id=\"stage\">{svg}</div></body></html>"
)
_NORMALIZE = """((pageWidth, pageHeight, fill) => {
  const svg = document.querySelector('svg');
  if (!svg) return false;
  if (!svg.hasAttribute('viewBox')) {
    const size = (name, fallback) =>
      parseFloat((svg.getAttribute(name) || '').replace('px', '')) || fallback;
    svg.setAttribute('viewBox', `0 0 ${size('width', pageWidth)} ${size('height', pageHeight)}`);
  }
  for (const name of ['x', 'y']) svg.removeAttribute(name);
  svg.setAttribute('width', '100%');
  svg.setAttribute('height', '100%');
  svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');
  const box = svg.viewBox && svg.viewBox.baseVal;
  const [x, y, w, h] = box && box.width && box.height
    ? [box.x, box.y, box.width, box.height] : [0, 0, pageWidth, pageHeight];
  if (fill !== null && !svg.querySelector("rect[data-bg='1']")) {
    const rect = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
    const attributes = {x: x, y: y, width: w, height: h, fill: fill, 'data-bg': '1'};
    for (const [name, value] of Object.entries(attributes)) rect.setAttribute(name, value);
    svg.insertBefore(rect, svg.firstChild);
  }
  return true;
})"""
_SEEK = """((t) => {
  const svg = document.querySelector('svg');
  if (svg && typeof svg.pauseAnimations === 'function') {
    svg.pauseAnimations();
    svg.setCurrentTime(t);
  }
  for (const animation of document.getAnimations()) {
    animation.pause();
    animation.currentTime = t * 1000;
  }
  return location.href === 'about:blank' && document.getElementById('stage') !== null;
})"""
_COLOUR = re.compile(r"^[#a-zA-Z0-9(),.%\s]+$")


class BrowserUnavailable(UserError):
    """Chromium, chromedriver or selenium is missing, or the browser did not start."""


@dataclass(frozen=True)
class BrowserPaths:
    """Where the browser and its driver are."""

    chromium: str
    chromedriver: str


@dataclass(frozen=True)
class PageSpec:
    """The page an SVG is drawn on: its size in pixels, background and layout.

    ``background`` is a CSS colour, or None for a transparent page (RGBA frames). ``normalize``
    applies InternSVG's changes to the ``<svg>`` (see the module docstring); without it the SVG
    keeps its own attributes and is only sized to the page by CSS.
    """

    width: int = 448
    height: int = 448
    background: str | None = "white"
    normalize: bool = True

    def __post_init__(self) -> None:
        if self.width <= 0 or self.height <= 0:
            raise ValueError(f"page size must be positive, not {self.width}x{self.height}")
        if self.background is not None and not _COLOUR.match(self.background):
            raise ValueError(f"background {self.background!r} is not a CSS colour")


def find_browser() -> BrowserPaths:
    """Chromium (``$SVGEVAL_CHROMIUM`` or on the PATH) and chromedriver
    (``$SVGEVAL_CHROMEDRIVER`` or on the PATH), with selenium importable.

    Raises :class:`BrowserUnavailable` with one line saying what to install.
    """
    chromium = os.environ.get("SVGEVAL_CHROMIUM") or next(
        (found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None
    )
    chromedriver = os.environ.get("SVGEVAL_CHROMEDRIVER") or shutil.which("chromedriver")
    missing = [name for name, path in (("Chromium", chromium), ("chromedriver", chromedriver))
               if path is None or not os.access(path, os.X_OK)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium")
    if missing or chromium is None or chromedriver is None:
        raise BrowserUnavailable(f"{' and '.join(missing)} not found: {INSTALL_HINT}")
    return BrowserPaths(chromium, chromedriver)


def launch_arguments(profile: Path, sandbox: bool) -> list[str]:
    """:data:`LAUNCH_FLAGS` with the profile folder, and ``--no-sandbox`` unless ``sandbox``."""
    return [*LAUNCH_FLAGS, "--window-size=448,448", f"--user-data-dir={profile}",
            *(() if sandbox else ("--no-sandbox",))]


class BrowserSession:
    """A started Chromium with one page set up as the module docstring says."""

    def __init__(self, paths: BrowserPaths, profile: Path, sandbox: bool) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = paths.chromium
        for argument in launch_arguments(profile, sandbox):
            options.add_argument(argument)
        self._driver = webdriver.Chrome(service=Service(paths.chromedriver), options=options)
        self._page: PageSpec | None = None
        # the first tab shows chrome://new-tab-page-third-party/, a WebUI page that itself
        # refuses http loads: draw in a plain about:blank, so the blocks below are what holds
        self._driver.get("about:blank")
        if self._driver.current_url != "about:blank":
            raise RuntimeError(f"the first page is {self._driver.current_url}, not about:blank")
        self._cdp("Network.enable")
        self._cdp("Network.setBlockedURLs", urls=list(BLOCKED_URLS))
        self._cdp("Emulation.setScriptExecutionDisabled", value=True)
        self._frame_id = str(self._cdp("Page.getFrameTree")["frameTree"]["frame"]["id"])

    def _cdp(self, command: str, **parameters: Any) -> dict[str, Any]:
        result: dict[str, Any] = self._driver.execute_cdp_cmd(command, parameters)
        return result

    def _evaluate(self, expression: str) -> Any:
        # no time limit of its own: only our code runs (page scripts are off), and the parent's
        # budget bounds the whole render; a 1 s limit failed renders on a loaded machine
        result = self._cdp("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page evaluation failed: {result['exceptionDetails']}"[:300])
        return result["result"].get("value")

    def _set_page(self, page: PageSpec) -> None:
        if self._page == page:
            return
        self._cdp("Emulation.setDeviceMetricsOverride", width=page.width, height=page.height,
                  deviceScaleFactor=1, mobile=False)
        alpha = 0 if page.background is None else 1
        self._cdp("Emulation.setDefaultBackgroundColorOverride",
                  color={"r": 255, "g": 255, "b": 255, "a": alpha})
        self._page = page

    def frames(self, svg: str, page: PageSpec, times: Sequence[float]) -> NDArray[np.uint8]:
        """Frames of ``svg`` at each of ``times`` (seconds): ``uint8`` (T, H, W, 3), or
        (T, H, W, 4) on a transparent page."""
        from PIL import Image

        self._set_page(page)
        html = _PAGE.format(background=page.background or "transparent", svg=svg)
        self._cdp("Page.setDocumentContent", frameId=self._frame_id, html=html)
        # paused at 0 before anything else: an animation left running while the page is
        # normalised drew its second frame one way or another from one load to the next
        self._evaluate(f"{_SEEK}(0.0)")
        if page.normalize:
            arguments = json.dumps([page.width, page.height, page.background])[1:-1]
            self._evaluate(f"{_NORMALIZE}({arguments})")
        mode = "RGB" if page.background is not None else "RGBA"
        out = np.empty((len(times), page.height, page.width, len(mode)), dtype=np.uint8)
        for index, t in enumerate(times):
            if self._evaluate(f"{_SEEK}({float(t)!r})") is not True:
                raise RuntimeError("the page is no longer the SVG's page")
            shot = self._cdp("Page.captureScreenshot", format="png", optimizeForSpeed=True)
            with Image.open(io.BytesIO(base64.b64decode(shot["data"]))) as image:
                out[index] = np.asarray(image.convert(mode))
        return out

    def close(self) -> None:
        self._driver.quit()
