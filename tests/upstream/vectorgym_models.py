"""CLIP score, DINO and LPIPS of the released VectorGym scorer on the tiny weights.

Runs, from ServiceNow/VectorGym at ``31cb00c5`` unmodified, ``vectorgym/metrics/``'s
``CLIPScoreCalculator`` (torchmetrics' ``CLIPScore`` of ``openai/clip-vit-base-patch32``),
``DINOScoreCalculator`` (``facebook/dinov2-base``) and ``LPIPSDistanceCalculator`` (``lpips``
VGG after PIL's resize to 384), each on CPU through its ``calculate_score``
(``model_harness.clip_dino_lpips``: the captions given to ``CLIP_Score`` as a list, the one
change), on the answers as the OpenRouter validator draws them (``vectorgym.released_drawings``:
the first block, the repair chain, ``BaseValidator.rasterize`` at 512). Inputs: 16 SVGenius icons
of ``support.released_answers.svgenius_items(16)``, icon ``i`` answered in kind ``KINDS[i]``, with
its caption. Weights (``model_harness.prepare``): the tiny ViT-B/32-shaped CLIP and DINOv2 of
``support.released_models.build_b32_and_dino`` (digests checked) behind the hub names, the real
LPIPS VGG. Prints ``RELEASED`` of ``tests/tasks/test_vectorgym_released_models.py`` (per sample:
``clip``, ``dino``, ``lpips``).

Runs under transformers 4.57.1 (VectorGym pins none: the newest 4.x), in svgeval's test
environment with these packages in a folder of their own put first on the import path, and the
upstream packages of ``.venv/ref-packages`` (torchvision, lpips, ftfy;
``checkout.reference_packages``)::

    pip install --target .venv/tf457 --no-deps transformers==4.57.1 tokenizers==0.22.1 \\
        huggingface_hub==0.36.0 torchmetrics==1.8.2 lightning-utilities==0.15.2 \\
        git+https://github.com/openai/CLIP@d05afc436d78f1c48dc0dbf8e5980a9d471f35f6
    PYTHONPATH=.venv/tf457:tests:src .venv/bin/python -m upstream.vectorgym_models \\
        [--source GIT_REPO | --checkout DIR]

Stand-ins (``checkout.stand_in_modules``): ``omegaconf``, ``datasets`` (the validators'
configuration and data loading) and the ``__init__`` of ``vectorgym`` and
``vectorgym.validators`` (``vectorgym.packages``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from upstream import checkout, model_harness, vectorgym


def released_models(root: Path) -> dict[str, Any]:
    """The constants of the test, computed by the release at ``root``."""
    answers, captions = model_harness.icon_answers()
    checkout.stand_in_modules({"omegaconf": {"OmegaConf": None},
                               "datasets": {"load_dataset": None}, **vectorgym.packages(root)})
    gen, gt = model_harness.pictures(vectorgym.released_drawings(root, answers))
    return {"RELEASED": model_harness.clip_dino_lpips(root, "vectorgym.metrics", gen, gt,
                                                      captions)}


if __name__ == "__main__":
    model_harness.main(vectorgym.RELEASE, __doc__, released_models)
