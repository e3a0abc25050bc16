"""The report of a judged run whose judge gave no verdict, and of answers without token counts.

The runs are SVGenius style transfers answered by a local OpenAI-compatible server and judged by
another that refuses every request (HTTP 400, as a server whose text-only chat template cannot
take the images does): every judged metric of every sample is a judge failure, which the page,
the cards, ``results.json`` and the console must show as the judge's, not the model's.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from report_runs import gallery_data, invoke, records
from support.fake_openai_server import FakeOpenAIServer, Fault, RecordedRequest, message_text
from support.style_transfer_data import style_transfer_items, write_items

CRITERIA = ["cp", "df", "sc", "ch", "cb"]
"""The five judged metrics of a style transfer, in the order the task asks them."""
N_SAMPLES = 4


def stylised(body: dict[str, Any]) -> str:
    """The model: a square whose colour depends on the prompt."""
    colour = hashlib.sha256(message_text(body["messages"][-1]).encode()).hexdigest()[:6]
    return (f'Answer:<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36">'
            f'<rect x="6" y="6" width="24" height="24" fill="#{colour}"/></svg>')


def run_args(file: Path, out: Path, model: FakeOpenAIServer, *extra: str) -> list[str]:
    return ["run", "svgenius-style-transfer", "--set", f"file={file}", "--tier", "easy",
            "--out", str(out), "--model", "openai-compatible:painter",
            "--base-url", model.base_url, "--render-workers", "2", *extra]


@dataclass(frozen=True)
class JudgedRun:
    """A run whose judge refused every request, its console output and its report."""

    root: Path
    output: str
    judge_url: str

    @property
    def page(self) -> str:
        return (self.root / "report" / "index.html").read_text(encoding="utf-8")

    @property
    def results(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads((self.root / "results.json").read_text())
        return loaded


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> JudgedRun:
    root = tmp_path_factory.mktemp("judged")
    file = write_items(root / "st.json", style_transfer_items(N_SAMPLES))
    out = root / "run"
    with (
        FakeOpenAIServer(reply=stylised, send_usage=False) as model,
        FakeOpenAIServer(faults=lambda request: Fault.http_error(400)) as judge,
    ):
        code, output = invoke([*run_args(file, out, model), "--judge",
                               "openai-compatible:critic", "--judge-base-url", judge.base_url])
        assert code == 0, output
    code, built = invoke(["report", str(out), "--render-workers", "2"])
    assert code == 0, built
    return JudgedRun(out, output, judge.base_url)


def summary_text(page: str) -> str:
    """The summary section of a report as text: tags dropped, white space collapsed."""
    summary = page[page.index('<section id="summary">'):page.index('<section id="gallery">')]
    return " ".join(re.sub(r"<[^>]+>", " ", summary).replace("&#x27;", "'").split())


def table_rows(page: str, css: str) -> list[list[str]]:
    """The body rows of the table of class ``css``, as cell texts."""
    found = re.search(rf'<table class="{css}">.*?<tbody>(.*?)</tbody>', page)
    assert found is not None, css
    return [re.findall(r"<td>(.*?)</td>", row) for row in found.group(1).split("</tr>") if row]


def test_a_run_whose_verdicts_all_failed_lists_them_as_the_judges_failures(
    judged: JudgedRun,
) -> None:
    error = f"HTTP 400 from {judged.judge_url}/chat/completions: injected fault: HTTP 400"
    for record in records(judged.root):
        assert record["failure"] is None  # the model's outputs were all used
        assert record["judge_failures"] == {
            metric: {"kind": "error", "detail": error} for metric in CRITERIA}
    page, text = judged.page, summary_text(judged.page)
    assert "No failures: every output was used" not in text
    assert "No failures of the model's outputs: every output was used." in text
    assert (f"The judge openai-compatible:critic gave no verdict for {N_SAMPLES * 5} judged "
            f"metrics of {N_SAMPLES} samples: these are the judge's failures, not the model's "
            "outputs failing") in text
    assert table_rows(page, "judge-failures") == [
        ["error", error, str(N_SAMPLES * 5), str(N_SAMPLES), "cb, ch, cp, df, sc"]]
    assert (f"judge openai-compatible:critic at {judged.judge_url}: {N_SAMPLES * 5} judged "
            f"metrics have no verdict ({N_SAMPLES * 5} whose request to the judge failed for "
            "good: --resume asks again)") in text


def test_results_and_the_console_count_the_failed_verdicts_by_kind(judged: JudgedRun) -> None:
    results = judged.results
    assert results["judge_failure_kinds"] == {"unparsed": 0, "error": N_SAMPLES * 5}
    assert results["counts"]["easy"]["judge_failures"] == dict.fromkeys(CRITERIA, N_SAMPLES)
    assert results["counts"]["easy"]["failures"] == {} and results["n_valid"] == N_SAMPLES
    output = " ".join(judged.output.split())  # the console wraps long lines
    assert (f"warning: {N_SAMPLES * 5} judged metrics have no verdict ({N_SAMPLES * 5} whose "
            "request to the judge failed for good: --resume asks again): the judge's failures, "
            "not the model's") in output


def test_each_card_says_which_verdicts_failed_and_why(judged: JudgedRun) -> None:
    error = f"HTTP 400 from {judged.judge_url}/chat/completions: injected fault: HTTP 400"
    samples = gallery_data(judged.root / "report")["samples"]
    assert len(samples) == N_SAMPLES
    for sample in samples:
        assert sample["kind"] is None  # the model's output is valid
        assert sample["judge"] == [{"kind": "error", "detail": error, "metrics": CRITERIA}]
        assert all(sample["m"][metric] is None for metric in CRITERIA)


def details(report: Path) -> dict[str, Any]:
    """The texts of the first details file of a report, by sample id."""
    text = (report / "data" / "details-0000.js").read_text(encoding="utf-8")
    parsed: dict[str, Any] = json.loads(text[text.index("{"): text.rindex("}") + 1])
    return parsed


def test_answers_without_token_counts_say_not_reported(judged: JudgedRun) -> None:
    assert all(record["usage"] is None for record in records(judged.root))
    usage = judged.results["usage"]
    assert usage["n_reported"] == 0
    page = judged.page
    assert "<dt>tokens</dt><dd>not reported (no answer came with token counts)</dd>" in page
    assert "0 prompt" not in page
    texts = details(judged.root / "report")
    assert len(texts) == N_SAMPLES
    assert {entry["usage"] for entry in texts.values()} == {"not reported"}


def test_token_counts_are_of_the_answers_that_came_with_them(tmp_path: Path) -> None:
    """Two samples answered by a server without usage, two (after a refusal, on --resume) by one
    that sends it: the totals are the second server's, said to be of 2 of 4 answers."""
    file = write_items(tmp_path / "st.json", style_transfer_items(N_SAMPLES))
    out = tmp_path / "run"

    def refuse_the_trees_and_hearts(request: RecordedRequest) -> Fault | None:
        text = message_text((request.body or {})["messages"][-1])
        return Fault.http_error(400) if "tree icon" in text or "heart icon" in text else None

    with FakeOpenAIServer(reply=stylised, send_usage=False,
                          faults=refuse_the_trees_and_hearts) as first:
        code, output = invoke(run_args(file, out, first))
        assert code == 1 and "2 of 4 samples got no answer" in output, output
    with FakeOpenAIServer(reply=stylised) as second:
        code, output = invoke([*run_args(file, out, second), "--resume"])
        assert code == 0, output
        asked = second.chat_requests
    assert len(asked) == 2
    prompt = sum(len(message_text(message).split())
                 for request in asked for message in (request.body or {})["messages"])
    completion = sum(len(stylised(request.body or {}).split()) for request in asked)
    results = json.loads((out / "results.json").read_text())
    assert results["n_answered"] == N_SAMPLES and results["usage"]["n_reported"] == 2
    assert (results["usage"]["prompt_tokens"], results["usage"]["completion_tokens"]) == (
        prompt, completion)
    code, built = invoke(["report", str(out), "--render-workers", "2"])
    assert code == 0, built
    page = (out / "report" / "index.html").read_text(encoding="utf-8")
    assert (f"<dt>tokens</dt><dd>{prompt:,} prompt, {completion:,} completion (reported for 2 "
            f"of {N_SAMPLES} answers)</dd>") in page
    usage = {key: entry["usage"] for key, entry in details(out / "report").items()}
    counted = [text for text in usage.values() if text != "not reported"]
    assert len(counted) == 2 and all(text.endswith(" completion tokens") for text in counted)


def test_ten_reasons_are_listed_and_the_others_counted_on_one_row(tmp_path: Path) -> None:
    """Twelve statuses the judge refuses with, each prompt its own (20 prompts: eight statuses
    twice, four once): ten rows, then one for the last two reasons."""
    statuses = [400, 406, 410, 411, 412, 413, 414, 415, 416, 417, 418, 421]
    given: dict[str, int] = {}
    lock = threading.Lock()

    def refuse(request: RecordedRequest) -> Fault:
        prompt = json.dumps((request.body or {})["messages"])
        with lock:
            status = given.setdefault(prompt, statuses[len(given) % len(statuses)])
        return Fault.http_error(status)

    file = write_items(tmp_path / "st.json", style_transfer_items(N_SAMPLES))
    out = tmp_path / "run"
    with FakeOpenAIServer(reply=stylised) as model, FakeOpenAIServer(faults=refuse) as judge:
        code, output = invoke([*run_args(file, out, model), "--judge",
                               "openai-compatible:critic", "--judge-base-url", judge.base_url])
        assert code == 0, output
    assert len(given) == N_SAMPLES * 5
    code, built = invoke(["report", str(out), "--render-workers", "2"])
    assert code == 0, built
    rows = table_rows((out / "report" / "index.html").read_text(encoding="utf-8"),
                      "judge-failures")
    assert len(rows) == 11 and [row[2] for row in rows[:10]] == ["2"] * 8 + ["1"] * 2
    assert {row[1].rsplit(" ", 1)[-1] for row in rows[:10]} <= {str(s) for s in statuses}
    assert rows[10] == ["", "2 other reasons", "2", "", ""]


def test_a_run_directory_written_before_still_reports(judged: JudgedRun, tmp_path: Path) -> None:
    """An earlier svgeval wrote zeros for usage it was not sent, and counted no judge failures
    by kind: its report shows the zeros it recorded and lists the judge failures all the same."""
    old = tmp_path / "old"
    shutil.copytree(judged.root, old, ignore=shutil.ignore_patterns("report"))
    results = judged.results
    del results["judge_failure_kinds"], results["usage"]["n_reported"]
    (old / "results.json").write_text(json.dumps(results))
    lines = [{**record, "usage": {"prompt_tokens": 0, "completion_tokens": 0}}
             for record in records(old)]
    (old / "samples.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, built = invoke(["report", str(old), "--render-workers", "2"])
    assert code == 0, built
    page = (old / "report" / "index.html").read_text(encoding="utf-8")
    assert "<dt>tokens</dt><dd>0 prompt, 0 completion</dd>" in page
    assert table_rows(page, "judge-failures")[0][2:] == [
        str(N_SAMPLES * 5), str(N_SAMPLES), "cb, ch, cp, df, sc"]


def test_the_cards_show_the_judges_failures_and_filter_on_them(
    browser: Any, judged: JudgedRun
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get_log("browser")
    browser.get((judged.root / "report" / "index.html").as_uri())
    cards = browser.find_elements(By.CSS_SELECTOR, "#cards .card")
    assert len(cards) == N_SAMPLES
    error = f"HTTP 400 from {judged.judge_url}/chat/completions: injected fault: HTTP 400"
    for card in cards:
        badges = [badge.text for badge in card.find_elements(By.CSS_SELECTOR, ".badge")]
        assert badges == ["valid", "judge failed"]
        line = card.find_element(By.CSS_SELECTOR, ".failure.judge").text
        assert line == f"judge gave no verdict for cp, df, sc, ch, cb (error): {error}"
    outcome = Select(browser.find_element(By.ID, "f-outcome"))
    labels = [option.text for option in outcome.options]
    assert f"judge gave no verdict ({N_SAMPLES})" in labels
    outcome.select_by_value("judge")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#cards .card")) == N_SAMPLES
    assert [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"] == []
