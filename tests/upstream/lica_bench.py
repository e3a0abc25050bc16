"""Answer readers, code and pixel scores, messages, sample ids and scores of the released
LICA-Bench SVG tasks on the tests' inputs and bundle.

Runs the helpers of ``src/design_benchmarks/tasks/svg.py`` (and ``normalized_edit_distance`` of
``utils/text_helpers.py``, which it imports) on the inputs of ``support.lica_bench_data``:
``_parse_answer_letter`` per reply of ``LETTER_REPLIES`` (``RELEASED_LETTERS``),
``_strip_svg_wrapper`` per reply of ``WRAPPED_REPLIES`` (``RELEASED_WRAPPER``), the code scores of
``RED`` against ``BLUE`` and the compression ratios and weighted complexity asserted
(``RELEASED_CODE_SCORES``), ``_pixel_mse`` and ``_pixel_ssim`` of ``HALF``, ``WHITE`` and
``NOT_SVG`` (``RELEASED_PIXELS``). Then runs, from purvanshi/lica-bench at ``c5c63dc`` unmodified, the task classes of
``src/design_benchmarks/tasks/svg.py`` (svg-1 .. svg-8): ``load_data`` and
``build_model_input`` on the bundle ``support.lica_bench_data.write_bundle`` writes, then
``parse_model_output`` of each reply of ``ANSWERS`` and ``evaluate`` on the parsed answers.
Prints ``RELEASED_TEXT_SHA256`` (per sample, the SHA-256 of the prompt text, and its number of
images), ``RELEASED_IDS`` (the sample ids' prefix) and ``RELEASED_SCORES`` of
``tests/tasks/test_lica_bench.py``.

For svg-6..8 the scores are ``_evaluate_svg_generation``'s, the part of their ``evaluate``
before the leave-one-out metrics, which import torch. Issue 29 ran it without torch, lpips or
transformers, where ``_pixel_lpips`` and ``_clip_text_image_score`` give 0 (``ImportError``);
this script blocks those three imports the same way (``None`` in ``sys.modules``) and leaves
those two constant zeros out of ``RELEASED_SCORES``. Runs in svgeval's
test environment (CairoSVG, scikit-image, numpy); nothing is stood in.

    PYTHONPATH=tests python -m upstream.lica_bench [--source GIT_REPO | --checkout DIR]
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from support.lica_bench_data import (
    ANSWERS,
    BLUE,
    HALF,
    LETTER_REPLIES,
    NOT_SVG,
    RED,
    WHITE,
    WRAPPED_REPLIES,
    write_bundle,
)

from upstream import checkout

RELEASE = checkout.Release("purvanshi/lica-bench", "c5c63dc886a2a0fd22227c8aa5547efc709eafbd")
GENERATION = ("svg-6", "svg-7", "svg-8")
WITHOUT_WEIGHTS = ("lpips", "clip_score")  # 0 without lpips / transformers (module docstring)


def released_tasks() -> dict[str, Any]:
    """Task id -> an instance of the released class of that id."""
    from design_benchmarks.base import BaseBenchmark
    from design_benchmarks.tasks import svg

    return {cls.meta.id: cls() for cls in vars(svg).values()
            if isinstance(cls, type) and issubclass(cls, BaseBenchmark)
            and getattr(cls, "meta", None) is not None and cls.meta.id in ANSWERS}


def helpers() -> dict[str, Any]:
    """The released answer readers and scores on the helpers' inputs (module docstring)."""
    from design_benchmarks.tasks import svg

    return {
        "RELEASED_LETTERS": {reply: svg._parse_answer_letter(reply) for reply in LETTER_REPLIES},
        "RELEASED_WRAPPER": {reply: svg._strip_svg_wrapper(reply) for reply in WRAPPED_REPLIES},
        "RELEASED_CODE_SCORES": {
            "edit_distance": svg.normalized_edit_distance(RED, BLUE),
            "repair_similarity": svg._repair_similarity(RED, BLUE),
            "repair_accuracy": svg._repair_accuracy(RED, BLUE),
            "compression_ratio": svg._compression_ratio("x" * 100, "x" * 50),
            "compression_ratio_of_empty": svg._compression_ratio("", "abc"),
            "weighted_complexity": svg._svg_weighted_complexity(HALF)},
        "RELEASED_PIXELS": {"mse_half_white": svg._pixel_mse(HALF, WHITE),
                            "ssim_half_half": svg._pixel_ssim(HALF, HALF),
                            "mse_failed": svg._pixel_mse(NOT_SVG, WHITE),
                            "ssim_failed": svg._pixel_ssim(NOT_SVG, WHITE)},
    }


def main() -> None:
    root = checkout.from_command_line(RELEASE, __doc__)
    for name in ("torch", "lpips", "transformers"):
        sys.modules[name] = None  # type: ignore[assignment]  # import raises ImportError
    sys.path.insert(0, str(root / "src"))
    from design_benchmarks.models.base import ModelOutput
    from design_benchmarks.tasks import svg

    texts, ids, scores = {}, {}, {}
    with tempfile.TemporaryDirectory() as work:
        bundle = write_bundle(Path(work))
        for task_id, task in sorted(released_tasks().items()):
            samples = task.load_data(bundle / "benchmarks" / "svg", dataset_root=bundle)
            inputs = [task.build_model_input(sample) for sample in samples]
            texts[task_id] = ([hashlib.sha256(given.text.encode()).hexdigest() for given in inputs],
                              [len(given.images) for given in inputs])
            prefixes = {re.sub(r"\d+$", "", sample["sample_id"]) for sample in samples}
            (ids[task_id],) = prefixes
            parsed = [task.parse_model_output(ModelOutput(text=reply))
                      for reply in ANSWERS[task_id]]
            truths = [sample["ground_truth"] for sample in samples]
            result = (svg._evaluate_svg_generation(parsed, truths) if task_id in GENERATION
                      else task.evaluate(parsed, truths))
            scores[task_id] = {key: value for key, value in result.items()
                               if key not in WITHOUT_WEIGHTS}
    print(json.dumps({**helpers(), "RELEASED_TEXT_SHA256": texts, "RELEASED_IDS": ids,
                      "RELEASED_SCORES": scores}, indent=1))


if __name__ == "__main__":
    main()
