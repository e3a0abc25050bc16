"""Prompts, extraction, judge scores and render sizes of the released SVGBench on the tests'
inputs.

Runs, from johnbean393/SVGBench at ``55c1cde`` unmodified, on the inputs of
``support.svgbench_data``:

- the ``Benchmark`` class of ``src/benchmark/benchmark.py``, read from its source with ``ast``
  and defined in a namespace where ``LLM`` is a stand-in that records each prompt and answers
  from the inputs (the model's reply; the judge's reply for the question whose picture it is
  shown) and ``SVGRenderer.render_svg`` records the SVG it is given (no browser). ``run`` on
  one question per judge reply of ``JUDGE_REPLIES`` (its ``_run_question_with_retry``: a reply
  the release cannot read scores 0 after three tries) gives ``RELEASED_PROMPT``,
  ``RELEASED_JUDGE_PROMPT``, ``RELEASED_SCORES`` (per reply) and ``RELEASED_AVERAGE`` (its
  ``average_score``); ``generate_svg_code`` on each of ``MODEL_REPLIES`` gives
  ``RELEASED_EXTRACTION`` (the SVG it renders, ``None`` when it raises);
- ``SVGRenderer.calculate_svg_bounds`` of ``src/utils/svg_renderer.py`` (imported as a file) on
  ``SIZED_SVGS``: ``RELEASED_SIZES``.

These are the constants of ``tests/tasks/test_svgbench.py``. Runs in svgeval's test
environment (tqdm).

    PYTHONPATH=tests python -m upstream.svgbench [--source GIT_REPO | --checkout DIR]
"""

from __future__ import annotations

import ast
import concurrent.futures
import datetime
import importlib.util
import json
import os
import re
import tempfile
import time
import types
from pathlib import Path
from typing import Any

import tqdm
from support.svgbench_data import JUDGE_REPLIES, MODEL_REPLIES, QUESTION, REQUIREMENTS, SIZED_SVGS

from upstream import checkout

RELEASE = checkout.Release("johnbean393/SVGBench", "55c1cde8bf03b63d385c931e95bd7f728cde8fde")


class Exchange:
    """What the stand-in ``LLM`` answers (``model_reply``; ``judge_replies`` per question index)
    and the prompts it was given (``prompts``: the first model and judge prompts)."""

    def __init__(self) -> None:
        self.model_reply = ""
        self.judge_replies: list[str] = []
        self.prompts: dict[str, str] = {}
        self.rendered: list[str] = []

    def llm(self) -> type:
        exchange = self

        class LLM:
            def __init__(self, model: str, endpoint: str, api_key: str, **_: Any) -> None:
                self.model = model

            def generate_text(self, prompt: str, image_path: str | None = None,
                              json_schema: Any = None) -> str:
                if image_path is None:
                    exchange.prompts.setdefault("model", prompt)
                    return exchange.model_reply
                exchange.prompts.setdefault("judge", prompt)
                index = re.search(r"question_(\d+)\.png$", image_path)
                assert index is not None, image_path
                return exchange.judge_replies[int(index.group(1))]

        return LLM

    def render_svg(self, code: str, directory_path: str, filename: str) -> None:
        self.rendered.append(code)


def benchmark_class(path: Path, namespace: dict[str, Any]) -> Any:
    """The ``Benchmark`` class of the file at ``path``, compiled from its source as written in
    ``namespace``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    chosen = [node for node in tree.body
              if isinstance(node, ast.ClassDef) and node.name == "Benchmark"]
    exec(compile(ast.Module(chosen, type_ignores=[]), str(path), "exec"), namespace)  # noqa: S102
    return namespace["Benchmark"]


def renderer_module(path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("svg_renderer", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    src = checkout.from_command_line(RELEASE, __doc__) / "src"
    exchange = Exchange()
    renderer = renderer_module(src / "utils" / "svg_renderer.py").SVGRenderer
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        for name in ("questions", "src/benchmark"):  # run() reads ../../questions
            (work / name).mkdir(parents=True)
        keys = list(JUDGE_REPLIES)
        questions = [{"prompt": QUESTION, "requirements": REQUIREMENTS} for _ in keys]
        (work / "questions" / "questions.json").write_text(json.dumps(questions))
        namespace = {
            "__file__": str(work / "src" / "benchmark" / "benchmark.py"), "json": json, "os": os,
            "time": time, "datetime": datetime.datetime, "tqdm": tqdm.tqdm,
            "ThreadPoolExecutor": concurrent.futures.ThreadPoolExecutor,
            "as_completed": concurrent.futures.as_completed, "LLM": exchange.llm(),
            "SVGRenderer": types.SimpleNamespace(render_svg=exchange.render_svg)}
        benchmark = benchmark_class(src / "benchmark" / "benchmark.py", namespace)(
            model="stand-in", endpoint="", api_key="")
        with checkout.running_in(work):
            exchange.model_reply = MODEL_REPLIES["fenced"]
            exchange.judge_replies = [JUDGE_REPLIES[key] for key in keys]
            results = benchmark.run(run_full_benchmark=True, max_workers=1)
            extraction: dict[str, str | None] = {}
            for index, (name, reply) in enumerate(MODEL_REPLIES.items(), start=len(keys)):
                exchange.model_reply, exchange.rendered = reply, []
                try:
                    benchmark.generate_svg_code(QUESTION, "", index)
                except ValueError:
                    exchange.rendered = [None]  # type: ignore[list-item]
                (extraction[name],) = exchange.rendered
    scores = {entry["question_index"]: entry["score"] for entry in results["question_scores"]}
    print(json.dumps({
        "RELEASED_PROMPT": exchange.prompts["model"],
        "RELEASED_JUDGE_PROMPT": exchange.prompts["judge"],
        "RELEASED_SCORES": {key: scores[index] for index, key in enumerate(keys)},
        "RELEASED_AVERAGE": results["average_score"],
        "RELEASED_EXTRACTION": extraction,
        "RELEASED_SIZES": {svg: list(renderer.calculate_svg_bounds(svg)) for svg in SIZED_SVGS},
    }, indent=1))


if __name__ == "__main__":
    main()
