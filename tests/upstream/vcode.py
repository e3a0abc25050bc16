"""VCode's stored example results scored again by svgeval's rules, with no model call.

CSU-JPG/VCode at ``0e6e023f`` ships, under ``example_results/``, what its pipeline wrote for five
models (GPT-5, Claude-Sonnet-4.5, Gemini-2.5-Pro, Qwen3-VL, Intern-S1): the generated SVGs and
their renders, the CodeVQA model's answers (gpt-4o-mini) and the score files. This script reads
them and recomputes each stored score from the stored answers with svgeval's functions:

* CV-Bench (``cv-bench/eval/<model>/generated_imgs/``): every row of
  ``gpt-4o-mini-2024-07-18_answers_{coco,omni}.jsonl`` judged by
  :func:`svgeval.tasks.vcode.answers.cvbench_correct` (``IMAGE_NOT_FOUND``, a missing render, is
  wrong), aggregated as ``..._final_scores.csv`` (per source, per category, 2D the mean of
  ADE20K and COCO, 3D Omni3D, overall the mean of 2D and 3D);
* MMMU (``mmmu/eval/<model>/predictions/<Subject>/output.json``): every stored response parsed by
  :func:`~svgeval.tasks.vcode.answers.mmmu_choice` or judged by ``mmmu_open_correct``, row by row
  against ``parsed_output.json`` (``parsed_pred``, ``judge``) where it is stored, and per subject
  against ``scores.csv``; MMMU picks a random option when a reply names none, so such rows are
  printed, not compared;
* MM-Vet (``mm-vet/eval/<model>/gpt4o-mini-inference/``): every grader reply of
  ``..._grade-1runs.json`` read by :func:`~svgeval.tasks.vcode.answers.mmvet_grade` against its
  stored ``score`` (a missing render, ``"no prediction"``, scores 0), and their mean x 100
  against the ``total`` of ``..._cap-score-1runs.csv`` (one decimal);
* token counts: tiktoken ``cl100k_base`` of every stored SVG after ``clean_svg``, the mean per
  model and benchmark (VCode stores no token file to compare with).

Not recomputed: SigLIP (needs the SigLIP 2 so400m weights) and the MM-Vet per-capability columns
(need ``mm-vet.json``'s capabilities, outside ``example_results/``). Prints JSON: for each score
file, the stored and the recomputed values and the rows that disagree.

    PYTHONPATH=tests python -m upstream.vcode [--source GIT_REPO | --checkout DIR]
"""

from __future__ import annotations

import csv
import json
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

from svgeval.metrics.tokens import token_counts
from svgeval.tasks.vcode import answers
from upstream import checkout

VCODE = checkout.Release("CSU-JPG/VCode", "0e6e023f18a363a7f4e83191d913469a7f7b17c9")
CATEGORIES = {"count": "Object Count", "relation": "Spatial Relationship",
              "spatial": "Spatial Relationship", "depth": "Depth Order",
              "relative": "Relative Distance", "distance": "Relative Distance"}
SOURCES = {"ADE20K": "ADE20K Accuracy", "COCO": "COCO Accuracy", "Omni3D": "Omni3D Accuracy"}


def stored_csv(path: Path, key: str, value: str) -> dict[str, float]:
    with path.open(encoding="utf-8", newline="") as handle:
        return {row[key]: float(row[value]) for row in csv.DictReader(handle)}


def mean(values: list[bool]) -> float:
    return sum(values) / len(values)


def cvbench(folder: Path) -> dict[str, Any]:
    """The final scores of one model's CV-Bench answers."""
    by_source: dict[str, list[bool]] = defaultdict(list)
    by_category: dict[str, list[bool]] = defaultdict(list)
    for path in sorted(folder.glob("*_answers_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            right = answers.cvbench_correct(row["answer"], row["gt_answer"])
            by_source[row["source"]].append(right)
            by_category[CATEGORIES.get(row["category"], row["category"])].append(right)
    ours = {SOURCES.get(source, source): mean(rows) for source, rows in by_source.items()}
    ours.update({name: mean(rows) for name, rows in by_category.items()})
    two_d = [ours[name] for name in ("ADE20K Accuracy", "COCO Accuracy") if name in ours]
    if two_d:
        ours["2D Accuracy"] = statistics.mean(two_d)
    if "Omni3D Accuracy" in ours:
        ours["3D Accuracy"] = ours["Omni3D Accuracy"]
    if "2D Accuracy" in ours and "3D Accuracy" in ours:
        ours["CV-Bench Accuracy"] = (ours["2D Accuracy"] + ours["3D Accuracy"]) / 2
    stored = next(folder.glob("*_final_scores.csv"), None)
    return {"rows": sum(len(rows) for rows in by_source.values()), "ours": ours,
            "stored": stored_csv(stored, "Metric", "Accuracy") if stored else None}


def mmmu_row(row: dict[str, Any]) -> tuple[str | None, bool]:
    """(parsed prediction, correct) of one stored MMMU response; None: no option found."""
    if row["question_type"] == "multiple-choice":
        parsed = answers.mmmu_choice(row["response"], row["all_choices"], row["index2ans"], None)
        return parsed, parsed == row["answer"]
    return row["response"], answers.mmmu_open_correct(row["response"], row["answer"])


def mmmu(folder: Path) -> dict[str, Any]:
    """Per subject accuracy of one model's stored MMMU responses, row checks included."""
    ours: dict[str, float] = {}
    disagree, random = [], []
    for subject in sorted(path for path in folder.iterdir() if path.is_dir()):
        output = subject / "output.json"
        if not output.is_file():
            continue
        rows = json.loads(output.read_text(encoding="utf-8"))
        judged = [mmmu_row(row) for row in rows]
        random += [row["id"] for row, (parsed, _) in zip(rows, judged) if parsed is None]
        ours[subject.name] = round(mean([right for _, right in judged]), 3)
        parsed_file = subject / "parsed_output.json"
        if parsed_file.is_file():
            stored = {row["id"]: row for row in json.loads(parsed_file.read_text())}
            for row, (parsed, right) in zip(rows, judged):
                kept = stored.get(row["id"])
                if parsed is not None and kept is not None and (
                        (kept["judge"] == "Correct") != right):
                    disagree.append(row["id"])
    scores = folder / "scores.csv"
    stored_scores = stored_csv(scores, "Subject", "Acc") if scores.is_file() else {}
    return {"ours": ours, "stored": {k: v for k, v in stored_scores.items() if k in ours},
            "rows_disagreeing": disagree, "no_option_found": random}


def mmvet(folder: Path) -> dict[str, Any]:
    """One model's MM-Vet grades read again, and their total."""
    grades = next(folder.glob("*-grade-1runs.json"), None)
    if grades is None:
        return {}
    records = json.loads(grades.read_text(encoding="utf-8"))
    ours, disagree = [], []
    for key, record in records.items():
        value = answers.mmvet_grade(record["content"][0]) or 0.0
        ours.append(value)
        if abs(value - record["score"][0]) > 1e-9:
            disagree.append(key)
    table = next(folder.glob("*-cap-score-1runs.csv"), None)
    stored = None
    if table is not None:
        with table.open(encoding="utf-8", newline="") as handle:
            stored = float(next(csv.DictReader(handle))["total"])
    missing = sum(1 for record in records.values() if record["model"][0] == "missing")
    return {"questions": len(ours), "missing_renders": missing,
            "total": round(100 * statistics.mean(ours), 1), "stored_total": stored,
            "rows_disagreeing": disagree}


def tokens(folder: Path) -> float | None:
    """Mean tiktoken cl100k_base count of the cleaned SVGs under ``folder``."""
    svgs = [answers.clean_svg(path.read_text(encoding="utf-8", errors="replace"))
            for path in sorted(folder.rglob("*.svg"))]
    kept = [svg for svg in svgs if svg is not None]
    return statistics.mean(token_counts(kept, tokenizer="tiktoken:cl100k_base")) if kept else None


def main() -> None:
    root = checkout.from_command_line(VCODE, __doc__) / "example_results"
    report: dict[str, Any] = {"cv-bench": {}, "mmmu": {}, "mm-vet": {}, "tokens": {}}
    for model in sorted((root / "cv-bench/eval").iterdir()):
        report["cv-bench"][model.name] = cvbench(model / "generated_imgs")
    for model in sorted((root / "mmmu/eval").iterdir()):
        report["mmmu"][model.name] = mmmu(model / "predictions")
    for model in sorted((root / "mm-vet/eval").iterdir()):
        report["mm-vet"][model.name] = mmvet(model / "gpt4o-mini-inference")
    for benchmark in ("cv-bench", "mm-vet", "mmmu"):
        for model in sorted((root / benchmark / "SVG").glob("*")):
            report["tokens"][f"{benchmark}/{model.name}"] = tokens(model)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
