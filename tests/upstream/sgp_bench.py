"""Templates, extraction, aggregation and consistency of the released SGP-Bench on the tests'
inputs.

Runs, from sgp-bench/sgp-bench at ``e790639`` unmodified, on the inputs of
``support.sgp_bench_data``:

- ``common.py`` and ``mnist_eval.py`` imported as modules of the release's package: the SHA-256
  of ``QUERY_TEMPLATE_MULTICHOICE``, ``EQUALITY_TEMPLATE`` and ``mnist_eval.QUERY_TEMPLATE``
  (``RELEASED_SHA256``) and ``format_multichoice_question`` of ``PROMPT_ROW``
  (``RELEASED_PROMPT``);
- ``sgp_eval.py``'s ``SGPEval`` (its dataset given instead of loaded from the hub) with a
  stand-in sampler answering each question its reply: the letter ``fn`` extracts per reply of
  ``EXTRACTION_REPLIES`` (read back from the result's HTML, ``None`` when it extracts none after
  its five asks: ``RELEASED_EXTRACTION``) and ``aggregate_results`` over ``AGGREGATED``
  (``RELEASED_AGGREGATE``: the score and the mean per subject);
- for the splits of ``CONSISTENCY_ANSWERS``, ``SGPEval``'s result written as ``demo.py`` writes
  it (``common.make_report`` and the metrics JSON) and read back by ``evaluate_consistency.py``'s
  ``calculate_average_accuracy`` and ``calculate_consistency`` (read with ``ast``: the module
  runs them on one model's files at its top), whose printed lines give
  ``RELEASED_AVERAGE_ACCURACY`` and ``RELEASED_CONSISTENCY``.

Stand-ins: ``datasets`` and ``blobfile`` (the hub loader and a file reader the values never
reach). These are the constants of ``tests/tasks/test_sgp_bench.py``. Runs in svgeval's test
environment (jinja2, numpy, pandas, BeautifulSoup and lxml).

    PYTHONPATH=tests python -m upstream.sgp_bench [--source GIT_REPO | --checkout DIR]
"""

from __future__ import annotations

import ast
import collections
import contextlib
import hashlib
import importlib
import io
import json
import re
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

import bs4
from support.sgp_bench_data import (
    AGGREGATED,
    CONSISTENCY_ANSWERS,
    CONSISTENCY_GOLD,
    EXTRACTION_REPLIES,
    PROMPT_ROW,
)

from upstream import checkout

RELEASE = checkout.Release("sgp-bench/sgp-bench", "e7906399beebb82ab5dcc4aa547eaec8674c9144")
PACKAGE = "sgp_bench_release"
MODEL = "stand-in"


class Sampler:
    """Answers each question (the prompt's text) its reply in ``replies``."""

    def __init__(self, replies: dict[str, str]) -> None:
        self.replies = replies

    def _pack_message(self, content: str, role: str) -> dict[str, str]:
        return {"content": content, "role": role}

    def __call__(self, messages: list[dict[str, str]]) -> str:
        (question,) = [q for q in self.replies if f"\n\n{q}\n\n" in messages[-1]["content"]]
        return self.replies[question]


def release_package(root: Path) -> dict[str, types.ModuleType]:
    """The release's modules, imported as the package ``PACKAGE`` whose folder is ``root``."""
    checkout.stand_in_modules({"datasets": {"load_dataset": None}, "blobfile": {}})
    package = types.ModuleType(PACKAGE)
    package.__path__ = [str(root)]
    sys.modules[PACKAGE] = package
    return {name: importlib.import_module(f"{PACKAGE}.{name}")
            for name in ("common", "mnist_eval", "sgp_eval")}


def evaluate(sgp_eval: types.ModuleType, rows: list[dict[str, Any]], replies: list[str]) -> Any:
    """``SGPEval`` on ``rows`` (no hub), each answered its reply."""
    evaluation = object.__new__(sgp_eval.SGPEval)
    evaluation.examples, evaluation.api = rows, "default"
    return evaluation(Sampler({row["Question"]: reply for row, reply in zip(rows, replies)}))


def row(question: str, answer: str = "A", subject: str = "Color") -> dict[str, str]:
    return {"Question": question, "A": "a", "B": "b", "C": "c", "D": "d", "Answer": answer,
            "Subject": subject}


def extracted(html: str) -> str | None:
    found = re.search(r"<p>Extracted Answer: (.*)</p>", html)
    assert found is not None, html
    return None if found.group(1) == "None" else found.group(1)


def consistency(root: Path, modules: dict[str, types.ModuleType]) -> dict[str, float]:
    path = root / "evaluate_consistency.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    chosen = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    namespace: dict[str, Any] = {"BeautifulSoup": bs4.BeautifulSoup,
                                 "Counter": collections.Counter, "json": json}
    exec(compile(ast.Module(chosen, type_ignores=[]), str(path), "exec"), namespace)  # noqa: S102
    printed = io.StringIO()
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "results").mkdir()
        for mode, letters in CONSISTENCY_ANSWERS.items():
            rows = [row(f"{mode} question {i}", CONSISTENCY_GOLD) for i in range(len(letters))]
            result = evaluate(modules["sgp_eval"], rows, [f"Answer: {x}" for x in letters])
            stem = Path(folder) / "results" / f"sgp_{mode}_{MODEL}"
            stem.with_suffix(".html").write_text(modules["common"].make_report(result))
            stem.with_suffix(".json").write_text(json.dumps(result.metrics
                                                            | {"score": result.score}))
        with checkout.running_in(Path(folder)), contextlib.redirect_stdout(printed):
            namespace["calculate_average_accuracy"](list(CONSISTENCY_ANSWERS), MODEL)
            namespace["calculate_consistency"](list(CONSISTENCY_ANSWERS), MODEL)
    accuracy = re.search(r"Average accuracy: ([\d.]+)", printed.getvalue())
    rate = re.search(r"Average Consistency Rate: ([\d.]+)", printed.getvalue())
    assert accuracy is not None and rate is not None, printed.getvalue()
    return {"RELEASED_AVERAGE_ACCURACY": float(accuracy.group(1)),
            "RELEASED_CONSISTENCY": float(rate.group(1))}


def main() -> None:
    root = checkout.from_command_line(RELEASE, __doc__)
    modules = release_package(root)
    common = modules["common"]
    templates = {"MCQ_TEMPLATE": common.QUERY_TEMPLATE_MULTICHOICE,
                 "EQUALITY_TEMPLATE": common.EQUALITY_TEMPLATE,
                 "MNIST_TEMPLATE": modules["mnist_eval"].QUERY_TEMPLATE}
    with checkout.running_in(root):
        extraction = {reply: extracted(evaluate(modules["sgp_eval"], [row(f"q{i}")], [reply])
                                       .htmls[0])
                      for i, reply in enumerate(EXTRACTION_REPLIES)}
        rows = [row(f"q{i}", "A", subject) for i, (subject, _) in enumerate(AGGREGATED)]
        aggregate = evaluate(modules["sgp_eval"], rows,
                             ["Answer: A" if score else "Answer: B" for _, score in AGGREGATED])
    print(json.dumps({
        "RELEASED_SHA256": {name: hashlib.sha256(text.encode()).hexdigest()
                            for name, text in templates.items()},
        "RELEASED_PROMPT": common.format_multichoice_question(PROMPT_ROW),
        "RELEASED_EXTRACTION": extraction,
        "RELEASED_AGGREGATE": {"score": aggregate.score} | {
            name: float(value) for name, value in aggregate.metrics.items() if ":" not in name},
        **consistency(root, modules),
    }, indent=1))


if __name__ == "__main__":
    main()
