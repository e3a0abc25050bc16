"""Read SVGEditBench in its official release layout: ``<n>_<Task>/{query,answer}/<id>``."""

from __future__ import annotations

import re
from pathlib import Path

from svgeval.tasks.base import Sample
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import GithubRelease
from svgeval.tasks.svgeditbench.prompts import SUBTASKS

RELEASE = GithubRelease("mti-lab/SVGEditBench", "5744bd4", marker="1_ChangeColor/query")
"""The official release the paper's numbers come from (data only; CC BY 4.0 images)."""

_INPUT_SVG = re.compile(r"```svg\n(.*?)\n```", re.DOTALL)


def load_release(root: Path) -> list[Sample]:
    """Every case under ``root``, ordered by subtask (paper order) then case id."""
    samples: list[Sample] = []
    for subtask, folder in SUBTASKS.items():
        query_dir = root / folder / "query"
        if not query_dir.is_dir():
            continue
        for query_path in sorted(query_dir.glob("*.txt")):
            case_id = query_path.stem
            answer_path = root / folder / "answer" / f"{case_id}.svg"
            if not answer_path.is_file():
                raise MalformedData(f"{query_path} has no answer: {answer_path} is missing")
            try:
                query = query_path.read_text(encoding="utf-8")
                answer = answer_path.read_text(encoding="utf-8").strip()
            except UnicodeDecodeError as error:
                raise MalformedData(f"{query_path} or its answer is not UTF-8 ({error.reason})") from None
            found = _INPUT_SVG.search(query)
            if found is None:
                raise MalformedData(f"{query_path} has no ```svg block holding the input SVG")
            input_svg = found.group(1).strip()
            samples.append(
                Sample(
                    id=f"{subtask}/{case_id}",
                    group=subtask,
                    messages=[{"role": "user", "content": query}],
                    reference=f"```svg\n{answer}\n```",
                    input_svg=input_svg,
                    target={"answer_svg": answer, "input_length": len(input_svg)},
                )
            )
    if not samples:
        raise ValueError(f"no SVGEditBench cases under {root} (expected {'/'.join(SUBTASKS.values())})")
    return samples
