"""One headless Chromium for the browser tests of this folder, started once per session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from svgeval.render.animation import BrowserRenderer, BrowserUnavailable, check_browser


@pytest.fixture(scope="session")
def chromium() -> None:
    """Skips the test, with the reason, where Chromium, chromedriver or selenium is missing."""
    try:
        check_browser()
    except BrowserUnavailable as error:
        pytest.skip(str(error))


@pytest.fixture(scope="session")
def browser_renderer(chromium: None) -> Iterator[BrowserRenderer]:
    """A :class:`BrowserRenderer` with one worker, shared by the tests of a session."""
    with BrowserRenderer(workers=1, timeout_s=30.0) as renderer:
        yield renderer
