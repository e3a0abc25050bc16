"""VGQA's accuracy and VGen's clean-up of the released VGBench on the tests' replies.

Runs, from vgbench/VGBench at ``d4e4601`` unmodified, on the replies of
``support.vgbench_data``:

- the scoring block of ``evaluate.py``'s ``main()`` (its statements from ``results = []`` to the
  end, read with ``ast``), with ``test_samples`` one record per reply of ``VGQA_REPLIES`` in
  ``build_dataset.py``'s layout, ``response_messages`` the conversations ending in those
  replies and ``args`` the default ``--min``/``--max``: it prints ``Sample size: N`` and
  ``Accuracy: X``, read back as ``RELEASED_SAMPLE_SIZE`` and ``RELEASED_ACCURACY``;
- ``generate.py``'s ``generate`` (read with ``ast``), with a stand-in ``utils.multi_ask`` that
  answers each reply of ``VGEN_REPLIES`` (and ``None``, a failed call): ``RELEASED_CLEAN`` (reply
  -> the code kept) and ``RELEASED_CLEAN_OF_NONE``.

Both modules import API clients and a ``keys`` file at their top, which these blocks never
reach. These are the constants of ``tests/tasks/test_vgbench.py``.

    PYTHONPATH=tests python -m upstream.vgbench [--source GIT_REPO | --checkout DIR]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import math
import re
import types
import typing
from pathlib import Path
from typing import Any

from support.vgbench_data import VGEN_REPLIES, VGQA_REPLIES

from upstream import checkout

RELEASE = checkout.Release("vgbench/VGBench", "d4e46016b0f50e2086619836c0f53e76596c0c75")


def source(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def scoring_block(path: Path) -> types.CodeType:
    """The statements of ``main()`` in the file at ``path`` from ``results = []`` on."""
    (main,) = [node for node in source(path).body
               if isinstance(node, ast.FunctionDef) and node.name == "main"]
    start = next(i for i, node in enumerate(main.body) if isinstance(node, ast.Assign)
                 and ast.unparse(node) == "results = []")
    return compile(ast.Module(main.body[start:], type_ignores=[]), str(path), "exec")


def vgqa(path: Path) -> dict[str, Any]:
    samples = [{"idx": i, "data": {"code": "<svg/>"}, "query": {"a": gold, "idx": i}}
               for i, (_, gold) in enumerate(VGQA_REPLIES)]
    messages = [[{"role": "user", "content": "question"}, {"role": "assistant", "content": reply}]
                for reply, _ in VGQA_REPLIES]
    namespace = {"test_samples": samples, "response_messages": messages,
                 "args": argparse.Namespace(min=0, max=math.inf)}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(scoring_block(path), namespace)  # noqa: S102
    size = re.search(r"Sample size: (\d+)", printed.getvalue())
    accuracy = re.search(r"Accuracy: ([\d.]+)", printed.getvalue())
    assert size is not None and accuracy is not None, printed.getvalue()
    return {"RELEASED_SAMPLE_SIZE": int(size.group(1)),
            "RELEASED_ACCURACY": float(accuracy.group(1))}


def vgen(path: Path) -> dict[str, Any]:
    replies: list[str | None] = []
    namespace: dict[str, Any] = {
        "typing": typing, "available_keys": None,
        "utils": types.SimpleNamespace(multi_ask=lambda keys, messages, model: replies[-1])}
    chosen = [node for node in source(path).body
              if isinstance(node, ast.FunctionDef) and node.name == "generate"]
    exec(compile(ast.Module(chosen, type_ignores=[]), str(path), "exec"), namespace)  # noqa: S102

    def clean(reply: str | None) -> str:
        replies.append(reply)
        return str(namespace["generate"]("a caption", "svg", model="gpt-4"))

    return {"RELEASED_CLEAN": {reply: clean(reply) for reply in VGEN_REPLIES},
            "RELEASED_CLEAN_OF_NONE": clean(None)}


def main() -> None:
    root = checkout.from_command_line(RELEASE, __doc__)
    print(json.dumps({**vgqa(root / "evaluate.py"), **vgen(root / "generate.py")}, indent=1))


if __name__ == "__main__":
    main()
