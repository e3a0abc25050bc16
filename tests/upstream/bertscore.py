"""UniSVG's released BERTScore, per row, under the transformers version this runs in.

VLMEvalKit (``vlmeval/dataset/utils/uni_svg.py`` at ``e8e78f05``, lines 54-57 and 372-375)
builds ``bert_score.BERTScorer(lang="en", rescale_with_baseline=True, device=device)`` and scores
each non-empty free-text answer with ``F1.mean().item()`` of ``.score([answer], [truth])``; the
authors' ``evaluation.py`` (``b7ab49b``, line 339) calls ``bert_score.score`` with the same
arguments. This script makes those calls, with bert-score 0.3.13 (the package of
``.venv/ref-packages``) unmodified, on CPU, in a folder holding ``roberta-large`` (so that
``from_pretrained("roberta-large")`` reads ``released_models.build_roberta``'s tiny 24-layer
RoBERTa, bert-score's layer 17 and its packaged ``roberta-large`` baseline applying), on the 12
non-empty answers of ``support.unisvg_data.free_text_rows``.

bert-score encodes with ``add_prefix_space=True``, which transformers 4.x honours and 5 ignores,
so what this prints depends on the transformers installed: issue 27 ran the same calls under
4.57.1 and 4.45.2 (``RELEASED_BERTSCORE`` of ``tests/tasks/test_unisvg_released.py``); under
5.24.0 (svgeval's test environment) it prints ``RELEASED_BERTSCORE_TRANSFORMERS5`` there.
Stand-ins (``checkout.stand_in_modules``): ``matplotlib.pyplot`` and ``mpl_toolkits.axes_grid1``,
which bert-score imports for its plotting helper only.

    PYTHONPATH=tests python -m upstream.bertscore
"""

from __future__ import annotations

import contextlib
import json
import sys
import tempfile
from pathlib import Path

from support.released_models import build_roberta, weights_digest
from support.unisvg_data import free_text_rows

from upstream import checkout


def main() -> None:
    checkout.reference_packages()
    checkout.stand_in_modules({"matplotlib": {}, "matplotlib.pyplot": {},
                               "mpl_toolkits": {}, "mpl_toolkits.axes_grid1":
                               {"make_axes_locatable": None}})
    import transformers
    from bert_score import BERTScorer

    with tempfile.TemporaryDirectory() as work:
        roberta = build_roberta(Path(work) / "roberta-large")
        scores = {}
        with checkout.running_in(Path(work)), contextlib.redirect_stderr(sys.stderr):
            scorer = BERTScorer(lang="en", rescale_with_baseline=True, device="cpu")
            for row, answer in free_text_rows():
                if answer and row.answer:
                    _, _, f1 = scorer.score([answer], [row.answer])
                    scores[int(row.index)] = f1.mean().item()
        print(json.dumps({"transformers": transformers.__version__,
                          "ROBERTA_DIGEST": weights_digest(roberta, "RobertaModel"),
                          "RELEASED_BERTSCORE": scores}, indent=1))


if __name__ == "__main__":
    main()
