"""BERTScore against bert-score 0.3.13's numbers and a by-hand recomputation, PSNR by hand, and
the CLIP image-image similarity on identical and different images (tiny models)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from svgeval.metrics.pixel import psnr

CANDIDATES = ["a red circle of the house", "the cat", "blue star icon"]
REFERENCES = ["a blue square", "the cat of a house", "a star"]
BERT_SCORE_F1 = [0.7346334457397461, 0.8590022921562195, 0.716650128364563]
"""``bert_score.score(CANDIDATES, REFERENCES, model_type=<tiny_text_encoder_dir>, num_layers=2,
idf=False)`` with bert-score 0.3.13 (the tokenizer's [EOS] declared as its SEP token)."""


def test_bertscore_matches_bert_score_and_a_hand_computation(tiny_text_encoder_dir: Path) -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from svgeval.metrics.text import bertscore

    ours = bertscore(CANDIDATES, REFERENCES, model=str(tiny_text_encoder_dir), layer=2,
                     baseline=None, device="cpu")
    assert ours == pytest.approx(BERT_SCORE_F1, abs=1e-5)
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_text_encoder_dir)
    model = transformers.AutoModel.from_pretrained(tiny_text_encoder_dir).eval()

    def tokens(text: str) -> tuple[np.ndarray, np.ndarray]:
        enc = tokenizer(text, return_tensors="pt", return_special_tokens_mask=True)
        special = enc.pop("special_tokens_mask")[0].numpy().astype(bool)
        with torch.no_grad():
            hidden = model(**enc, output_hidden_states=True).hidden_states[2][0].numpy()
        return hidden / np.linalg.norm(hidden, axis=1, keepdims=True), ~special

    (c, c_keep), (r, r_keep) = tokens(CANDIDATES[1]), tokens(REFERENCES[1])
    sim = c @ r.T
    p, r_ = sim.max(axis=1)[c_keep].mean(), sim.max(axis=0)[r_keep].mean()
    assert ours[1] == pytest.approx(2 * p * r_ / (p + r_), abs=1e-5)
    rescaled = bertscore(CANDIDATES[:1], CANDIDATES[:1], model=str(tiny_text_encoder_dir),
                         layer=17, baseline=0.8, device="cpu")  # 17 > 2 layers: the last
    assert rescaled == pytest.approx([1.0], abs=1e-5)  # (1 - b) / (1 - b)
    assert bertscore(CANDIDATES[:1], REFERENCES[:1], model=str(tiny_text_encoder_dir),
                     layer=2, baseline=0.5, device="cpu") == pytest.approx(
        [(BERT_SCORE_F1[0] - 0.5) / 0.5], abs=1e-5)


def test_psnr_by_hand() -> None:
    a, b = np.zeros((2, 2, 3)), np.full((2, 2, 3), 51 / 255)
    assert psnr(a, b) == pytest.approx(20 * np.log10(5))  # 10 log10(255^2 / 51^2)
    assert psnr(a, a) == 100.0 and psnr(a, a, cap=float("inf")) == float("inf")


def test_clip_image_score(tiny_clip_dir: Path) -> None:
    pytest.importorskip("torch")
    from svgeval.metrics.clip import clip_image_score

    red = np.zeros((32, 32, 3))
    red[..., 0] = 1.0
    white = np.ones((32, 32, 3))
    same, other = clip_image_score([red, red], [red, white], preset="unisvg",
                                   model_path=str(tiny_clip_dir), device="cpu")
    assert same == pytest.approx(1.0, abs=1e-5) and other < same


def test_bertscore_encodes_as_bert_score_under_transformers_4(tmp_path: Path) -> None:
    """bert-score strips each text and encodes RoBERTa/GPT-2 input with ``add_prefix_space=True``
    (0.3.13 ``utils.py:188-202``), which transformers 4.x honours and 5.x ignores (issue 27:
    under 4.45.2 and 4.57.1 the ids start ``[0, 225, 589, ...]``, under 5.24.0 ``[0, 589,
    ...]``). svgeval writes the space into the text: a word's ``Ġ`` token in every version."""
    transformers = pytest.importorskip("transformers")
    from tokenizers import ByteLevelBPETokenizer

    from svgeval.metrics.text import bert_score_text

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(["a red circle", "the blue square icon", "red star"] * 5,
                            vocab_size=300, special_tokens=["<s>", "<pad>", "</s>", "<unk>",
                                                            "<mask>"])
    bpe.save_model(str(tmp_path))
    roberta = transformers.RobertaTokenizerFast(str(tmp_path / "vocab.json"),
                                                str(tmp_path / "merges.txt"))
    vocab = roberta.get_vocab()
    for text in ("red star", "  red star \n"):
        ids = roberta(bert_score_text(roberta, text))["input_ids"]
        assert ids == [vocab["<s>"], vocab["Ġred"], vocab["Ġstar"], vocab["</s>"]]
    assert roberta(bert_score_text(roberta, "   "))["input_ids"] == [vocab["<s>"], vocab["</s>"]]
    # other tokenizers (WordPiece, SentencePiece, word level) are only stripped
    assert bert_score_text(object(), "  a red circle ") == "a red circle"


def test_the_two_bertscore_readings_differ_by_the_leading_space_alone(
        tmp_path: Path, tiny_text_encoder_dir: Path) -> None:
    """``space="transformers4"`` (the default) encodes `` red star`` as bert-score does under
    transformers 4.x, ``"transformers5"`` encodes ``red star`` as under 5: with RoBERTa's
    byte-level BPE of no merges (one token a byte, ``Ġ`` a space) the first gains a ``Ġ`` token,
    and every token's layer-17 vector moves with it. Each reading equals the greedy F1 computed
    by hand from those token ids; a tokenizer that is not byte-level scores the same in both."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from support.released_models import build_roberta

    from svgeval.metrics.text import BERTSCORE_BASELINE_F, bert_score_text, bertscore

    roberta = build_roberta(tmp_path / "roberta")
    tokenizer = transformers.AutoTokenizer.from_pretrained(roberta)
    model = transformers.AutoModel.from_pretrained(roberta).eval()
    vocab = tokenizer.get_vocab()
    candidate, reference = "  red star ", "a red star"

    def ids(text: str) -> list[int]:  # by hand: <s>, one symbol a character, </s>
        return [vocab["<s>"], *(vocab[c] for c in text.replace(" ", "Ġ")), vocab["</s>"]]

    def f1(cand: list[int], ref: list[int]) -> float:
        with torch.no_grad():
            c, r = (torch.nn.functional.normalize(model(torch.tensor([t]), output_hidden_states=True)
                                                  .hidden_states[17][0], dim=-1) for t in (cand, ref))
        sim = c @ r.T
        p, r_ = float(sim.max(1).values[1:-1].mean()), float(sim.max(0).values[1:-1].mean())
        return 2 * p * r_ / (p + r_)

    expected = {"transformers4": f1(ids(" red star"), ids(" a red star")),
                "transformers5": f1(ids("red star"), ids("a red star"))}
    for space, spelled in (("transformers4", " red star"), ("transformers5", "red star")):
        assert tokenizer(bert_score_text(tokenizer, candidate, space))["input_ids"] == ids(spelled)
        got = bertscore([candidate], [reference], model=str(roberta), baseline=None,
                        space=space, device="cpu")
        assert got == pytest.approx([expected[space]], abs=1e-5)
    # 0.009 in F, 0.054 once rescaled with bert-score's roberta-large baseline, as UniSVG is
    moved = abs(expected["transformers4"] - expected["transformers5"])
    assert moved / (1 - BERTSCORE_BASELINE_F) > 0.05
    plain = [bertscore(CANDIDATES, REFERENCES, model=str(tiny_text_encoder_dir), layer=2,
                       baseline=None, space=space, device="cpu")
             for space in ("transformers4", "transformers5")]
    assert plain[0] == plain[1] == pytest.approx(BERT_SCORE_F1, abs=1e-5)
    with pytest.raises(ValueError, match="transformers4, transformers5"):
        bert_score_text(tokenizer, candidate, "v5")
