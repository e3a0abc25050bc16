"""The weight-free values of UniSVG's two released scorers on the rows the tests rebuild.

Runs, unmodified, VLMEvalKit's ``vlmeval/dataset/utils/uni_svg.py`` (open-compass/VLMEvalKit at
``e8e78f05``: ``evaluate_uni_svg`` on a TSV of the rows, its per-row results read from the
``_EVAL.pkl`` it saves) and the authors' ``evaluation.py`` (Ryanlijinke/unisvg.github.io at
``b7ab49b``, run as a script with ``runpy`` in a folder holding the files its placeholder paths
name: the test set and the answers as JSON, and each generation row's reference drawn as the
script draws answers, CairoSVG at 336 x 336 on white). Inputs: the 70 rows of
``support.unisvg_data`` (``answered_rows`` then ``free_text_rows``). Prints the constants of
``tests/tasks/test_unisvg_released.py`` that need no weights: ``VLMEVALKIT_SSIM_PSNR`` (rows
0-29), ``VLMEVALKIT_ACCURACY``, ``VLMEVALKIT_FINAL`` and ``AUTHORS_FINAL`` (``easy_acc`` and
``hard_acc``), ``AUTHORS_ACCURACY``, ``AUTHORS_COUNTED`` and ``AUTHORS_GENERATION`` (SSIM, PSNR).

Runs in svgeval's test environment with ``../shared/data/svgenius``. The model metrics (LPIPS,
CLIP, Sentence-BERT, BERTScore) are not computed: stand-ins (``checkout.stand_in_modules``)
replace ``lpips``, ``transformers``, ``sentence_transformers`` and ``bert_score`` by models that
answer constants, and ``uni_svg._init_models`` by one that installs them, so the final scores and
the LPIPS, CLIP and text means this run gives are meaningless and not printed (the tests check
those with rebuilt weights; ``tests/upstream/README.md``). Other stand-ins: the ``__init__`` of
the packages ``vlmeval``, ``vlmeval.dataset``, ``vlmeval.dataset.utils`` and ``vlmeval.utils``
(they import every benchmark and model; the modules used are read from the release as they
are), ``validators`` (``load`` asks whether a path is a URL: no), ``sty`` (terminal colours) and
``timeout_decorator`` (its 60 s limit per row becomes a plain call). And ``mp_util.cpu_count``
gives at least 1: it divides a cgroup's CPU quota by its period, 0 under a quota below one CPU,
and the thread pool it sizes refuses 0 workers.

    PYTHONPATH=tests python -m upstream.unisvg
        [--vlmevalkit-source GIT_REPO | --vlmevalkit-checkout DIR]
        [--authors-source GIT_REPO | --authors-checkout DIR]
"""

from __future__ import annotations

import json
import pickle
import runpy
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cairosvg
import pandas as pd
import torch
from support.unisvg_data import answered_rows, free_text_rows

from svgeval.tasks.unisvg.data import UniSvgRow
from upstream import checkout

VLMEVALKIT = checkout.Release("open-compass/VLMEvalKit",
                              "e8e78f05f3080fe28154f2130321f17951c3be94")
AUTHORS = checkout.Release("Ryanlijinke/unisvg.github.io",
                           "b7ab49b1d5099dfe6559d6a1623a4e0fc36a1259")
RULE_TYPES = ("CSVGUN_color", "ISVGUN_color", "CSVGUN_category", "ISVGUN_category",
              "CSVGUN_shape", "CSVGUN_size", "CSVGUN_transform")
GENERATION_TYPES = ("ISVGEN", "TSVGEN")


class _StandInModel:
    """Any model of the two scripts: built from any arguments, moved anywhere, and answering
    ``answer()`` to every call and encoding."""

    def __init__(self, answer: Callable[[], Any] = lambda: torch.zeros(())) -> None:
        self.answer = answer

    def to(self, *_: Any) -> _StandInModel:
        return self

    def __call__(self, *_: Any, **__: Any) -> Any:
        return self.answer()

    encode = score = __call__


class _Inputs(dict[str, Any]):
    """A processor's output: a mapping that moves to a device."""

    def to(self, *_: Any) -> _Inputs:
        return self


def _clip() -> _StandInModel:
    return _StandInModel(lambda: type("Output", (), {"image_embeds": torch.ones(2, 4)}))


def _processor() -> _StandInModel:
    return _StandInModel(_Inputs)


def _f1() -> tuple[torch.Tensor, ...]:
    return (torch.zeros(1),) * 3


def _pretrained(build: Callable[[], _StandInModel]) -> type:
    return type("Pretrained", (), {"from_pretrained": staticmethod(lambda *_, **__: build())})


OTHER_STAND_INS: dict[str, dict[str, Any]] = {
    "validators": {"url": lambda _: False},
    "sty": {"fg": None},
    "timeout_decorator": {"timeout": lambda *_, **__: lambda function: function},
}
"""The stand-ins that are no model (see the docstring)."""


def stand_in_models() -> None:
    """The model packages both scripts import, answering constants (see the docstring)."""
    checkout.stand_in_modules({
        "lpips": {"LPIPS": lambda **_: _StandInModel(), "im2tensor": lambda _: torch.zeros(1)},
        "transformers": {"CLIPModel": _pretrained(_clip), "CLIPProcessor": _pretrained(_processor)},
        "sentence_transformers": {
            "SentenceTransformer": lambda *_: _StandInModel(lambda: torch.ones(4)),
            "util": type("util", (), {"pytorch_cos_sim": staticmethod(
                lambda *_: torch.ones(1, 1))})},
        "bert_score": {"score": lambda *_, **__: _f1(),
                       "BERTScorer": lambda **_: _StandInModel(_f1)},
        **OTHER_STAND_INS,
    })


def vlmevalkit(root: Path, rows: list[tuple[UniSvgRow, str]], work: Path,
               models: bool = False) -> dict[str, Any]:
    """VLMEvalKit's per-row results (row index -> (type, metrics)) and final results; its
    models stand-ins, unless ``models`` (the released ``_init_models`` loads them)."""
    checkout.stand_in_modules({package: {"__path__": [str(root.joinpath(*package.split(".")))]}
                      for package in ("vlmeval", "vlmeval.dataset", "vlmeval.dataset.utils",
                                      "vlmeval.utils")})
    sys.path.insert(0, str(root))
    from vlmeval.dataset.utils import uni_svg
    from vlmeval.utils import mp_util

    released_cpu_count = mp_util.cpu_count
    mp_util.cpu_count = lambda: max(1, released_cpu_count())

    def install_models() -> str:
        uni_svg.lpips_model, uni_svg.clip_model = _StandInModel(), _clip()
        uni_svg.clip_processor = _processor()
        uni_svg.sbert_model = _StandInModel(lambda: torch.ones(4))
        uni_svg.bert_scorer = _StandInModel(_f1)
        return "cpu"

    if not models:
        uni_svg._init_models = install_models
    eval_file = work / "UniSVG_answers.tsv"
    pd.DataFrame([{"index": int(row.index), "category": row.category, "question": row.question,
                   "answer": row.answer, "prediction": answer,
                   "l2-category": json.dumps(row.metadata)} for row, answer in rows]
                 ).to_csv(eval_file, sep="\t", index=False)
    with checkout.running_in(work):
        final = uni_svg.evaluate_uni_svg(str(eval_file))
    per_row = pickle.loads((work / "UniSVG_answers_EVAL.pkl").read_bytes())
    return {"per_row": per_row, "final": final}


def authors(root: Path, rows: list[tuple[UniSvgRow, str]], work: Path) -> dict[str, Any]:
    """The final results ``evaluation.py`` writes."""
    images = work / "Your_test_image_folder"
    images.mkdir(parents=True)
    test_set, answers = [], []
    for row, answer in rows:
        key = {"q_text": f"question {row.index}", "image_path": f"{row.index}.png"}
        test_set.append({**key, "type": row.category, "a_text": row.answer, **row.metadata})
        answers.append({**key, "model_answer": answer})
        if row.category in GENERATION_TYPES:
            reference = images / f"{row.index}.svg"
            reference.write_text(row.answer, encoding="utf-8")
            cairosvg.svg2png(url=str(reference), write_to=str(images / f"{row.index}.png"),
                             output_width=336, output_height=336, background_color="white")
    (work / "Your_UniSVG_test_json_path").write_text(json.dumps(test_set), encoding="utf-8")
    (work / "Your_Model_answer_json_path").write_text(json.dumps(answers), encoding="utf-8")
    with checkout.running_in(work):
        runpy.run_path(str(root / "evaluation.py"), run_name="__main__")
    results: dict[str, Any] = json.loads(
        (work / "Your_final_score_output_path").read_text(encoding="utf-8"))
    return results


def main() -> None:
    arguments = checkout.parser(__doc__.splitlines()[0], "vlmevalkit", "authors").parse_args()
    kit_root = checkout.released_code(VLMEVALKIT, arguments, "vlmevalkit")
    authors_root = checkout.released_code(AUTHORS, arguments, "authors")
    stand_in_models()
    rows = [*answered_rows(), *free_text_rows()]
    with tempfile.TemporaryDirectory() as work:
        (Path(work) / "kit").mkdir()
        kit = vlmevalkit(kit_root, rows, Path(work) / "kit")
        theirs = authors(authors_root, rows, Path(work) / "authors")
    kit_types, their_types = kit["final"]["type_metrics"], theirs["type_metrics"]
    print(json.dumps({
        "VLMEVALKIT_SSIM_PSNR": {i: [kit["per_row"][i][1]["ssim"], kit["per_row"][i][1]["psnr"]]
                                 for i in range(30)},
        "VLMEVALKIT_ACCURACY": {kind: kit_types[kind].get("accuracy") for kind in RULE_TYPES},
        "VLMEVALKIT_FINAL": {key: kit["final"][key] for key in ("easy_acc", "hard_acc")},
        "AUTHORS_ACCURACY": {kind: their_types[kind]["accuracy"] for kind in RULE_TYPES},
        "AUTHORS_COUNTED": {kind: theirs["type_samples"][kind]
                            for kind in (*GENERATION_TYPES, *RULE_TYPES)},
        "AUTHORS_GENERATION": {kind: [their_types[kind]["ssim"], their_types[kind]["psnr"]]
                               for kind in GENERATION_TYPES},
        "AUTHORS_FINAL": {key: theirs[key] for key in ("easy_acc", "hard_acc")},
    }, indent=1))


if __name__ == "__main__":
    main()
