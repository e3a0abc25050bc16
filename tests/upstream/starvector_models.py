"""CLIP score, DINO, LPIPS, FID and CLIP-FID of the released StarVector scorer on the tiny weights.

Runs, from joanrod/star-vector at ``0e083c19`` unmodified, ``starvector/metrics/``'s
``CLIPScoreCalculator`` (torchmetrics' ``CLIPScore`` of ``openai/clip-vit-base-patch32``; its
``CLIP_Score`` given the captions as a list: the release's collate function passes a tuple,
which torchmetrics refuses), ``DINOScoreCalculator`` (``facebook/dinov2-base``),
``LPIPSDistanceCalculator`` (``lpips`` VGG) and ``FIDCalculator`` (``InceptionV3`` and
``ViT-B/32``), each on CPU through its ``calculate_score``, on the answers as the validator draws
them (``starvector.released_drawings``: ``post_process_svg``, ``rasterize_svg(512, dpi=100)``).
Inputs: 16 SVGenius icons of ``support.released_answers.svgenius_items(16)``, icon ``i``
answered in kind ``KINDS[i]``, with its caption. Weights (``model_harness.prepare``): the tiny
ViT-B/32-shaped CLIP and DINOv2 of ``support.released_models.build_b32_and_dino`` (digests
checked) behind the hub names, the OpenAI-layout copy of that CLIP for ``clip.load``, the tests'
random FID Inception, the real LPIPS VGG. Prints ``RELEASED`` (per sample: ``clip_score``,
``dino``, ``lpips``), ``RELEASED_FID`` (Inception's batch norm in train mode, as released: the
calculator never calls ``.eval()``), ``RELEASED_FID_EVAL`` (a fresh calculator after
``.eval()``) and ``RELEASED_CLIP_FID`` of ``tests/tasks/test_starvector_released_models.py``.

Runs under transformers 4.49.0 (the release's pin), in svgeval's test environment with these
packages in a folder of their own put first on the import path, and the upstream packages of
``.venv/ref-packages`` (torchvision, lpips, ftfy; ``checkout.reference_packages``)::

    pip install --target .venv/tf449 --no-deps transformers==4.49.0 tokenizers==0.21.0 \\
        huggingface_hub==0.29.3 torchmetrics==1.6.1 lightning-utilities==0.12.0 \\
        git+https://github.com/openai/CLIP@d05afc436d78f1c48dc0dbf8e5980a9d471f35f6
    PYTHONPATH=.venv/tf449:tests:src .venv/bin/python -m upstream.starvector_models \\
        [--source GIT_REPO | --checkout DIR]

Stand-ins (``checkout.stand_in_modules``): ``omegaconf`` (the validator's configuration) and the
``__init__`` of ``starvector.validation`` (``starvector.validation_package``). Takes about five
minutes on two cores (LPIPS VGG at 512 px, Inception v3).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from upstream import checkout, model_harness, starvector


def released_models(root: Path) -> dict[str, Any]:
    """The constants of the test, computed by the release at ``root``."""
    answers, captions = model_harness.icon_answers()
    checkout.stand_in_modules({"omegaconf": {"OmegaConf": None},
                               **starvector.validation_package(root)})
    gen, gt = model_harness.pictures(starvector.released_drawings(root, answers))
    from starvector.metrics.compute_fid import FIDCalculator

    values = model_harness.clip_dino_lpips(root, "starvector.metrics", gen, gt, captions)
    with model_harness.cuda_on_cpu(), checkout.running_in(root):
        fid = float(FIDCalculator("InceptionV3").calculate_score({"gt_im": gt, "gen_im": gen}))
        in_eval = FIDCalculator("InceptionV3")
        in_eval.model.eval()
        fid_eval = float(in_eval.calculate_score({"gt_im": gt, "gen_im": gen}))
        clip_fid = float(FIDCalculator("ViT-B/32").calculate_score({"gt_im": gt, "gen_im": gen}))
    return {"RELEASED": {"clip_score": values["clip"], "dino": values["dino"],
                         "lpips": values["lpips"]},
            "RELEASED_FID": fid, "RELEASED_FID_EVAL": fid_eval, "RELEASED_CLIP_FID": clip_fid}


if __name__ == "__main__":
    model_harness.main(starvector.RELEASE, __doc__, released_models)
