"""MSE and Chamfer of the released SVGEditBench V2 scorer on the answers the tests rebuild.

Runs ``src/9_calculate_metrics.py`` of mti-lab/SVGEditBenchV2 at ``7e7879a7`` unmodified
(``runpy``, with sys.argv set as its command line) on two sets of triplets, after the answers
went through ``parse_response`` of ``src/inference/gpt_seq.py`` as the release's inference
does (an answer it refuses gets no ``.svg``, so no score):

- the 16 Twemoji targets of ``support.released_answers.twemoji_answered`` (``0000``..``0015``,
  target ``i`` answered in kind ``KINDS[i]``): ``RELEASED_MSE_CHAMFER`` of
  ``tests/tasks/test_svgeditbench_v2.py``, (mse, chamfer) per answer the release scores;
- the 3 targets of ``support.svgeditbench_v2_data.SHAPE_TARGETS`` answered by
  ``shifted_shape``: ``SHAPES`` of ``tests/metrics/test_chamfer.py``, chamfer per target.

Runs in svgeval's test environment (svgpathtools 1.8.0, CairoSVG, OpenCV, pandas); needs
``../shared/data/svgeditbench``. Stand-ins (see ``checkout.stand_in_modules``) replace what
these two metrics never reach: ``evaluation.clipscore`` and ``evaluation.dinov2`` (they load
CLIP and DINOv2 weights when imported; ``tests/upstream/README.md`` names the check of those
metrics), the ``openai`` and ``dotenv`` imports of ``gpt_seq.py``, and ``func_timeout``, whose
``func_timeout(5, svg2png, kwargs=...)`` becomes a plain call (no drawing here comes near 5 s).

    PYTHONPATH=tests python -m upstream.svgeditbench_v2 [--source GIT_REPO | --checkout DIR]
"""

from __future__ import annotations

import csv
import json
import runpy
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from support.released_answers import twemoji_answered
from support.svgeditbench_v2_data import SHAPE_TARGETS, shifted_shape

from upstream import checkout

RELEASE = checkout.Release("mti-lab/SVGEditBenchV2", "7e7879a700e839bd382462a6aa5642ae53b4b6e6")


class _TimedOut(Exception):
    """``func_timeout.FunctionTimedOut``, never raised by the stand-in."""


def _call(_timeout: float, function: Callable[..., Any], args: tuple[Any, ...] = (),
          kwargs: dict[str, Any] | None = None) -> Any:
    return function(*args, **(kwargs or {}))


def released_scores(src: Path, work: Path, answers: dict[str, tuple[str, str]],
                    names: tuple[str, ...] = ("mse", "chamfer"),
                    after: dict[str, str] | None = None) -> dict[str, Any]:
    """Triplet id -> the values of ``names`` (columns of the release's table) from
    ``9_calculate_metrics.py`` on ``answers`` (triplet id -> (target, answer text)); ``None``
    for a metric the release leaves out. ``after`` (triplet id -> the target's file name, whose
    emoji name CLIPScore reads) is written as each triplet's ``metadata.json``."""
    from inference.gpt_seq import SequentialOpenAI

    triplets, outputs = work / "triplets", work / "output"
    outputs.mkdir(parents=True)
    for triplet_id, (target, answer) in answers.items():
        (triplets / triplet_id).mkdir(parents=True)
        (triplets / triplet_id / "after.svg").write_text(target, encoding="utf-8")
        if after is not None:
            (triplets / triplet_id / "metadata.json").write_text(
                json.dumps({"after": after[triplet_id]}), encoding="utf-8")
        try:
            svg = SequentialOpenAI.parse_response(None, answer)  # type: ignore[arg-type]
        except ValueError:
            continue
        (outputs / f"{triplet_id}.svg").write_text(svg, encoding="utf-8")
    argv = ["9_calculate_metrics.py", str(triplets), str(outputs), "metrics.csv"]
    with checkout.running_in(work, argv):
        runpy.run_path(str(src / "9_calculate_metrics.py"), run_name="__main__")
    with (work / "metrics.csv").open(encoding="utf-8") as table:
        rows = {row[""]: row for row in csv.DictReader(table)}
    return {triplet_id: tuple(float(rows[triplet_id][name]) if rows.get(triplet_id, {}).get(name)
                              else None for name in names)
            for triplet_id in answers}


def main() -> None:
    src = checkout.from_command_line(RELEASE, __doc__) / "src"
    checkout.stand_in_modules({
        "evaluation.clipscore": {"clipscore": lambda prediction, dataset: {}},
        "evaluation.dinov2": {"dinov2_cos": lambda prediction, reference: {}},
        "func_timeout": {"func_timeout": _call, "FunctionTimedOut": _TimedOut},
        "openai": {"AsyncOpenAI": None},
        "dotenv": {"load_dotenv": lambda: None},
    })
    sys.path.insert(0, str(src))
    twemoji = {triplet: (target, answer)
               for triplet, (_, target, answer) in twemoji_answered().items()}
    shapes = {name: (target, shifted_shape(name)) for name, target in SHAPE_TARGETS.items()}
    with tempfile.TemporaryDirectory() as work:
        edits = released_scores(src, Path(work) / "twemoji", twemoji)
        moved = released_scores(src, Path(work) / "shapes", shapes)
    print(json.dumps({
        "RELEASED_MSE_CHAMFER": {key: value for key, value in edits.items()
                                 if value != (None, None)},
        "SHAPES": {name: chamfer for name, (_, chamfer) in moved.items()},
    }, indent=1))


if __name__ == "__main__":
    main()
