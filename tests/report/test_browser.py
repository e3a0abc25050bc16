"""The report page in headless Chromium: cards, filters, sorting, pages, details loaded on
demand, hostile SVG shown only as text, no console errors, and a screenshot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from report_runs import SmallRun, invoke

WAIT_S = 10.0


@pytest.fixture(scope="module")
def page(small_run: SmallRun, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("page")
    code, output = invoke(["report", str(small_run.root), "--out", str(out)])
    assert code == 0, output
    return out / "index.html"


def open_page(browser: Any, page: Path) -> None:
    browser.get_log("browser")  # drop what earlier pages logged
    browser.get(page.as_uri())


def card_ids(browser: Any) -> list[str]:
    from selenium.webdriver.common.by import By

    return [card.get_attribute("data-id")
            for card in browser.find_elements(By.CSS_SELECTOR, "#cards .card")]


def choose(browser: Any, select: str, value: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element(By.ID, select)).select_by_value(value)


def console_errors(browser: Any) -> list[str]:
    return [entry["message"] for entry in browser.get_log("browser")
            if entry["level"] == "SEVERE"]


def test_cards_filters_console_and_screenshot(
    browser: Any, small_run: SmallRun, page: Path, tmp_path: Path
) -> None:
    open_page(browser, page)
    assert sorted(card_ids(browser)) == sorted(small_run.expected)
    for kind in ("extract", "render"):
        choose(browser, "f-outcome", f"kind:{kind}")
        wanted = {i for i, outcome in small_run.expected.items() if outcome == kind}
        assert set(card_ids(browser)) == wanted and len(card_ids(browser)) == len(wanted)
    choose(browser, "f-outcome", "valid")
    assert set(card_ids(browser)) == {i for i, o in small_run.expected.items() if o == "valid"}
    choose(browser, "f-outcome", "")
    screenshot = tmp_path / "report.png"
    assert browser.save_screenshot(str(screenshot))
    assert Image.open(screenshot).size[0] > 0
    assert console_errors(browser) == []


def test_opened_details_show_hostile_svg_as_text_only(
    browser: Any, small_run: SmallRun, page: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    open_page(browser, page)
    for summary in browser.find_elements(By.CSS_SELECTOR, "#cards details summary"):
        summary.click()
    WebDriverWait(browser, WAIT_S).until(
        lambda driver: all(box.text != "loading…"
                           for box in driver.find_elements(By.CSS_SELECTOR, ".texts"))
    )
    live = "return document.querySelectorAll('svg, iframe, object, embed, image').length"
    assert browser.execute_script(live) == 0
    assert browser.execute_script("return typeof window.pwned") == "undefined"
    sources = browser.execute_script(
        "return Array.from(document.scripts).map(s => s.getAttribute('src'))")
    assert all(src in ("data/samples.js", "report.js", "data/details-0000.js")
               for src in sources), sources
    for sample_id in small_run.hostile:
        card = browser.find_element(By.CSS_SELECTOR, f'.card[data-id="{sample_id}"]')
        texts = [pre.get_attribute("textContent") for pre in card.find_elements(By.TAG_NAME, "pre")]
        assert any("<svg" in text for text in texts)
    assert "window.pwned = 1;" in browser.find_element(By.ID, "cards").text
    assert small_run.server.requests == []
    assert console_errors(browser) == []


def mse_values(small_run: SmallRun) -> dict[str, float]:
    """Sample id -> mse, for the samples that have one."""
    lines = (small_run.root / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    return {row["id"]: row["metrics"]["mse"] for row in rows
            if row["metrics"].get("mse") is not None}


def test_sort_worst_first_with_a_limit(browser: Any, small_run: SmallRun, page: Path) -> None:
    from selenium.webdriver.common.by import By

    mse = mse_values(small_run)
    worst_first = sorted(mse.values(), reverse=True)
    open_page(browser, page)
    choose(browser, "f-sort", "mse:worst")
    browser.find_element(By.ID, "f-limit").send_keys("3")
    assert [mse[i] for i in card_ids(browser)] == worst_first[:3]
    browser.find_element(By.ID, "f-limit").clear()
    browser.find_element(By.ID, "f-worst").click()
    shown = card_ids(browser)
    # samples with an mse come first, worst first; the failed ones (no mse) after them
    assert [mse[i] for i in shown[: len(mse)]] == worst_first
    assert set(shown[len(mse):]) == set(small_run.expected) - set(mse)


def test_pages(browser: Any, small_run: SmallRun, page: Path) -> None:
    from selenium.webdriver.common.by import By

    open_page(browser, page)
    choose(browser, "f-page-size", "10")
    first = card_ids(browser)
    assert len(first) == 10
    assert browser.find_element(By.ID, "g-status").text == "showing 1–10 of 12"
    browser.find_element(By.CSS_SELECTOR, "#pager-top button:nth-of-type(3)").click()
    second = card_ids(browser)
    assert len(second) == 2 and set(first) | set(second) == set(small_run.expected)
