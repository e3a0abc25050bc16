"""The answer rules and arithmetic of SGP-GenBench's and SGP-CompBench's released code.

Runs, from Sphere-AI-Lab/SGP-RL at ``533171a`` unmodified, on the replies of
``support.sgp_genbench_data`` (and the numbers below), and prints the constants of
``tests/tasks/test_sgp_genbench.py``:

- ``understand_r1_zero/svg_grader.py``'s ``render_response_to_image`` (with ``is_format_correct``
  and ``no_text_in_response``) and ``understand_r1_zero/svg.py``'s ``extract_svg`` and
  ``safe_svg_to_image``/``svg_to_image``: ``GENBENCH_EXTRACTION`` (the SVG it hands to the
  renderer per reply, ``None`` when it stops before), ``RECOVERED`` (what lxml's recover mode
  makes of a truncated SVG, as ``svg_to_image`` gives it to CairoSVG) and ``FORMATTED``;
- ``sgp-compbench/generation.py``'s ``parse_svg_from_response``: ``COMPBENCH_EXTRACTION``
  ((SVG, success) per reply);
- ``sgp-compbench/evaluation.py``'s ``get_model_result_safe`` (through
  ``api_call_4_eval_with_timeout``) with the judge's reply given: ``VERDICTS``; its
  ``process_entry`` on a numeracy item whose judge answers 100 (total), 50 (items), 30 and 0
  (the two counts): ``NUMERACY``;
- ``eval_utils.py``'s ``calculate_average_metrics`` on two prompts (CLIP 0.30 and 0.20,
  diversity 0.3; CLIP 0.25 and a failed answer, diversity 0): ``AVERAGE_METRICS``.

The functions of modules whose imports load models or API clients (``svg_grader.py``,
``generation.py``, ``evaluation.py``) are read from their source with ``ast`` and run
unmodified in a namespace holding what they use; ``svg.py`` and ``eval_utils.py`` are imported
as files. Stand-ins: ``func_timeout`` (``func_set_timeout`` a plain call: no drawing here comes
near 3 s), ``util`` (``api_call_4_eval`` answers the reply being checked, ``check_svg_validity``
accepts), and the ``cairosvg`` that ``svg.py`` sees records what it is given before drawing it.
The diversity of ``evaluate_svg_model.py`` (lines 330-354) is inline in a function that needs
vLLM and the reward models and is not run here: the test's value, ``1 - mean(0, 1/sqrt(2),
1/sqrt(2))``, is that formula by hand. Runs in svgeval's test environment.

    PYTHONPATH=tests python -m upstream.sgp_genbench [--source GIT_REPO | --checkout DIR]
"""

from __future__ import annotations

import ast
import importlib.util
import json
import multiprocessing
import signal
import sys
import time
import types
from pathlib import Path
from typing import Any

import cairosvg
from support.sgp_genbench_data import (
    COMPBENCH_REPLIES,
    FORMATTED_REPLY,
    GENBENCH_REPLIES,
    TRUNCATED,
    VERDICT_REPLIES,
)

from upstream import checkout

RELEASE = checkout.Release("Sphere-AI-Lab/SGP-RL", "533171a89db357c1195a3c3ab106723c90994dcb")
RED = ('<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><rect width="32" '
       'height="32" fill="#e01010"/></svg>')


def module(path: Path) -> types.ModuleType:
    """The file at ``path`` imported as a module of its own."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def functions(path: Path, names: tuple[str, ...], namespace: dict[str, Any]) -> dict[str, Any]:
    """The top-level functions ``names`` of the file at ``path``, compiled from its source as
    written and defined in ``namespace`` (which holds what they use)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    chosen = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in names]
    if {node.name for node in chosen} != set(names):
        sys.exit(f"{path}: not all of {names} found")
    exec(compile(ast.Module(chosen, type_ignores=[]), str(path), "exec"), namespace)  # noqa: S102
    return namespace


def genbench(root: Path) -> dict[str, Any]:
    drawn: list[str] = []
    svg = module(root / "understand_r1_zero" / "svg.py")
    svg.cairosvg = types.SimpleNamespace(  # type: ignore[attr-defined]
        svg2png=lambda bytestring, **kw: drawn.append(bytestring.decode())
        or cairosvg.svg2png(bytestring=bytestring, **kw))
    handed: list[str | None] = []

    def to_renderer(svg_code: str, timeout: float = 0.1) -> Any:
        handed[-1] = svg_code
        return svg.safe_svg_to_image(svg_code, timeout)

    grader = functions(root / "understand_r1_zero" / "svg_grader.py", (
        "is_format_correct", "no_text_in_response", "render_response_to_image"), {
        "extract_svg": svg.extract_svg, "safe_svg_to_image": to_renderer,
        "get_svg_code_length": svg.get_svg_code_length})
    extraction = {}
    for reply in GENBENCH_REPLIES:
        handed.append(None)
        grader["render_response_to_image"](reply)
        extraction[reply] = handed[-1]
    drawn.clear()
    svg.safe_svg_to_image(TRUNCATED)
    return {"GENBENCH_EXTRACTION": extraction, "RECOVERED": drawn[0],
            "FORMATTED": grader["is_format_correct"](FORMATTED_REPLY)}


def compbench(root: Path) -> dict[str, Any]:
    folder = root / "sgp-compbench"
    parse = functions(folder / "generation.py", ("parse_svg_from_response",), {})
    replies: dict[str, str] = {}

    def api_call_4_eval(model: Any, svg_code: str, output_path: str = "", prompt: str = "",
                        **_: Any) -> dict[str, Any]:
        return {"success": True, "response": replies[prompt]}

    checkout.stand_in_modules({"util": {"api_call_4_eval": api_call_4_eval,
                                        "check_svg_validity": lambda svg_code: (True, "")}})
    prompts = module(folder / "evaluation_prompts.py")
    evaluation = functions(folder / "evaluation.py", (
        "api_call_4_eval_with_timeout", "get_model_result_safe", "process_entry"), {
        **vars(prompts), "time": time, "signal": signal, "TimeoutError": multiprocessing.TimeoutError,
        "check_svg_validity": lambda svg_code: (True, "")})
    verdicts = {}
    with checkout.running_in(folder):
        for reply in VERDICT_REPLIES:
            replies["query"] = reply
            verdicts[reply] = evaluation["get_model_result_safe"](
                (None, RED, "out.png", "query", "v", 60))["score"]
        replies.update({prompts.eval_prompt_numeracy_total(3): "SCORE: 100",
                        prompts.eval_prompt_numeracy_item(["cat", "dog"]): "SCORE: 50",
                        prompts.eval_prompt_numeracy_count_binding(2, "cat"): "SCORE: 30",
                        prompts.eval_prompt_numeracy_count_binding(1, "dog"): "SCORE: 0"})
        bench = [{"id": "n", "prompt": "two cats and a dog", "major_type": "numeracy",
                  "metadata": {"total_count": 3, "object_counts": [
                      {"noun": "cat", "count": 2}, {"noun": "dog", "count": 1}]}}]
        numeracy = evaluation["process_entry"]((None, {"id": "n", "svg": RED}, bench, 60))
    return {"COMPBENCH_EXTRACTION": {reply: parse["parse_svg_from_response"](reply)
                                     for reply in COMPBENCH_REPLIES},
            "VERDICTS": verdicts, "NUMERACY": numeracy["score"]}


def average_metrics(root: Path) -> dict[str, Any]:
    def answer(value: float, valid: bool = True) -> dict[str, Any]:
        return {"valid": valid, "metrics": {"clip_small": value}} if valid else {"valid": False}

    prompts = [{"caption": "a", "responses": [answer(0.30), answer(0.20)], "diversity": 0.3},
               {"caption": "b", "responses": [answer(0.25), answer(0.9, valid=False)],
                "diversity": 0.0}]
    result = module(root / "eval_utils.py").calculate_average_metrics(prompts)
    return {"AVERAGE_METRICS": {"clip_small": result["metrics"]["clip_small"],
                                "diversity": result["diversity"]["average"],
                                "success_rate": result["success_rate"]}}


def main() -> None:
    root = checkout.from_command_line(RELEASE, __doc__)
    checkout.stand_in_modules({"func_timeout": {
        "func_timeout": None, "FunctionTimedOut": type("FunctionTimedOut", (Exception,), {}),
        "func_set_timeout": lambda seconds: lambda function: function}})
    with checkout.running_in(root):
        values = {**genbench(root), **compbench(root), **average_metrics(root)}
    print(json.dumps(values, indent=1))


if __name__ == "__main__":
    main()
