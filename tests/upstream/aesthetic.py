"""The released LAION aesthetic score of OmniSVG on the tiny weights and pictures the test rebuilds.

OmniSVG (OmniSVG/OmniSVG at ``f2e033e``), ``metrics/compute_aesthetic.py`` unmodified:
``compute_aesthetic_score(image_path, prompt, "cpu")`` on each picture of
``support.aesthetic_inputs`` written as PNG (the release reads the file, ``convert("RGB")``),
with OpenAI's ``clip`` package (openai/CLIP at ``d05afc4``, the ``import clip`` of the release)
loading the tiny CLIP's OpenAI-layout copy and the release's ``MLP(768)`` the tiny head. Two
things are stood in for, neither a computation: the download of ``ViT-L/14``
(``clip.clip._download`` answers the tiny copy's path; ``clip.load`` then reads it as it reads
the real file) and the head's cache path (the module's ``AESTHETIC_MODEL_PATH`` names the tiny
head, so ``download_aesthetic_model`` finds it). ``pytorch_lightning`` is a stand-in module whose
``LightningModule`` is ``torch.nn.Module``: the release's ``MLP`` uses Lightning only for training
(its ``forward`` is ``self.layers(x)``).

Prints ``RELEASED_AESTHETIC`` of ``tests/metrics/test_aesthetic_released.py`` (picture -> score)
and ``CLIP_DIGEST`` (``released_models.weights_digest`` of the tiny CLIP's folder).

Runs in svgeval's test environment with the upstream packages of ``.venv/ref-packages``
(``checkout.reference_packages``: torchvision, ftfy); ``clip`` also imports ``regex``, ``tqdm``
and ``packaging``, which that environment has.

    PYTHONPATH=tests python -m upstream.aesthetic [--omnisvg-source GIT_REPO | --omnisvg-checkout DIR]
        [--clip-source GIT_REPO | --clip-checkout DIR]
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from support import aesthetic_inputs as inputs
from support.released_models import weights_digest

from upstream import checkout

OMNISVG = checkout.Release("OmniSVG/OmniSVG", "f2e033edc7a1c894826bb5e2c5bb16681017791b")
CLIP = checkout.Release("openai/CLIP", "d05afc436d78f1c48dc0dbf8e5980a9d471f35f6")
PROMPT = "a red circle"
"""The release's second input (its CLIP text score, not printed: svgeval's check is the
aesthetic score)."""


def torchscript_archive(state_path: Path, path: Path) -> Path:
    """The CLIP of ``state_path`` (OpenAI layout) as OpenAI's released files are: a TorchScript
    archive of the traced model in float16 (``clip.load`` reads the archive, then rebuilds the
    model from its state dict with ``build_model``), built by the release's ``build_model``."""
    import torch
    from clip.model import build_model

    model = build_model(torch.load(state_path, weights_only=True)).float().eval()
    example = (torch.zeros(1, 3, 224, 224), torch.zeros(1, 77, dtype=torch.int))
    traced = torch.jit.trace(model, example, check_trace=False).half()
    torch.jit.save(traced, str(path))
    return path


def released_scores(omnisvg: Path, openai_clip: Path, work: Path) -> dict[str, Any]:
    import torch

    clip_folder = inputs.build_l14_clip(work / "clip")
    state = inputs.write_openai_copy(clip_folder, work / "openai_layout.pt")
    head = inputs.write_head(work / inputs.HEAD_FILE)
    paths = inputs.write_pictures(work / "pictures")

    checkout.stand_in_modules({"pytorch_lightning": {"LightningModule": torch.nn.Module}})
    sys.path.insert(0, str(openai_clip))
    clip_module = importlib.import_module("clip.clip")
    archive = torchscript_archive(state, work / inputs.CLIP_FILE)
    clip_module._download = lambda url, root: str(archive)  # type: ignore[attr-defined]
    spec = importlib.util.spec_from_file_location(
        "compute_aesthetic", omnisvg / "metrics" / "compute_aesthetic.py")
    assert spec is not None and spec.loader is not None
    released = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(released)
    released.AESTHETIC_MODEL_PATH = str(head)  # type: ignore[attr-defined]

    scores = {}
    with checkout.running_in(work):
        for name, path in paths.items():
            score, _ = released.compute_aesthetic_score(str(path), PROMPT, "cpu")
            scores[name] = score
    return {"CLIP_DIGEST": weights_digest(clip_folder, "CLIPModel"),
            "RELEASED_AESTHETIC": scores}


def main() -> None:
    arguments = checkout.parser(__doc__.splitlines()[0] if __doc__ else None,
                                "omnisvg", "clip").parse_args()
    omnisvg = checkout.released_code(OMNISVG, arguments, "omnisvg")
    openai_clip = checkout.released_code(CLIP, arguments, "clip")
    checkout.reference_packages()
    with tempfile.TemporaryDirectory() as work:
        print(json.dumps(released_scores(omnisvg, openai_clip, Path(work)), indent=1))


if __name__ == "__main__":
    main()
