"""CLIPs released as OpenAI-layout checkpoint files: Long-CLIP (VGBench's CLIP score) and the
HPS v2.0 / v2.1 checkpoints, through the metrics' real loading code, with tiny random models.
open_clip's own model is the reference in ``test_upstream_references.py``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from support.tiny_models import openai_layout, tiny_longclip_state

from svgeval.metrics import _models
from svgeval.metrics.clip import clip_score
from svgeval.metrics.hps import hps
from svgeval.metrics.presets import DEFAULT

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def _images(n: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (40, 40, 3), dtype=np.uint8) for _ in range(n)]


def _longclip_reference(tiny_clip_dir: Path, images: list[np.ndarray],
                        texts: list[str]) -> list[float]:
    """Raw cosines of a transformers CLIPModel whose text position table is Long-CLIP's
    ``pe * mask1 + pe_res * mask2`` (mask1 = the first 20 positions)."""
    state = tiny_longclip_state()
    mask1 = torch.zeros(248, 1)
    mask1[:20] = 1
    table = state["positional_embedding"] * mask1 + state["positional_embedding_res"] * (1 - mask1)
    config = transformers.CLIPConfig(
        projection_dim=16,
        text_config={"hidden_size": 64, "intermediate_size": 256, "num_hidden_layers": 2,
                     "num_attention_heads": 1, "vocab_size": 14, "max_position_embeddings": 248,
                     "eos_token_id": 2, "hidden_act": "quick_gelu"},
        vision_config={"hidden_size": 128, "intermediate_size": 512, "num_hidden_layers": 2,
                       "num_attention_heads": 2, "image_size": 28, "patch_size": 14,
                       "hidden_act": "quick_gelu"})
    model = transformers.CLIPModel(config).eval()
    # the reference gets its weights from the tiny model's own transformers state, not ours
    torch.manual_seed(3)
    source = transformers.CLIPModel(config).eval()
    weights = {k: v.half().float() for k, v in source.state_dict().items()}
    weights["text_model.embeddings.position_embedding.weight"] = table
    model.load_state_dict(weights)
    processor = transformers.CLIPImageProcessor.from_pretrained(tiny_clip_dir)
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_clip_dir)
    pixels = processor(images=images, return_tensors="pt")["pixel_values"]
    enc = tokenizer(texts, padding=True, truncation=True, max_length=248, return_tensors="pt")
    with torch.inference_mode():
        img = model.get_image_features(pixel_values=pixels)
        txt = model.get_text_features(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"])
    img, txt = getattr(img, "pooler_output", img), getattr(txt, "pooler_output", txt)
    return torch.nn.functional.cosine_similarity(img, txt).tolist()  # type: ignore[no-any-return]


def test_longclip_checkpoint_scores_raw_cosines_with_248_text_positions(
        tiny_longclip_dir: Path, tiny_clip_dir: Path) -> None:
    vgbench = replace(DEFAULT, name="vgbench-like", clip_model="BeichenZhang/LongCLIP-L",
                      clip_processor=str(tiny_clip_dir), clip_scale=1.0)
    images, texts = _images(3, seed=1), ["a red circle", "the house icon of the cat", "blue star"]
    got = clip_score(images, texts, preset=vgbench, model_path=str(tiny_longclip_dir))
    assert got == pytest.approx(_longclip_reference(tiny_clip_dir, images, texts), abs=1e-5)
    # the file itself works as well as its folder
    assert clip_score(images, texts, preset=vgbench,
                      model_path=str(tiny_longclip_dir / "longclip-L.pt")) == pytest.approx(got)


def test_longclip_reads_captions_past_77_tokens_and_truncates_at_248(
        tiny_longclip_dir: Path, tiny_clip_dir: Path) -> None:
    vgbench = replace(DEFAULT, name="vgbench-like", clip_processor=str(tiny_clip_dir),
                      clip_scale=1.0)
    image = _images(1, seed=2)
    score = lambda words: clip_score(image, [" ".join(words)], preset=vgbench,
                                     model_path=str(tiny_longclip_dir))[0]
    # pooling reads the highest token id ("cat" in the tiny vocabulary), as OpenAI's CLIP does:
    # with "cat" at word 150, a 77-token CLIP would have cut it off
    words = ["a", "red"] * 75 + ["cat"] + ["a", "red"] * 75   # 301 words
    assert score(words) == pytest.approx(score(words[:247]), abs=1e-6)
    assert score(words) != pytest.approx(score(words[:76]), abs=1e-4)
    assert score(words) != pytest.approx(score(words[:149] + ["cat"]), abs=1e-4)


def test_hps_version_picks_the_checkpoint_file(tiny_clip_dir: Path, tmp_path: Path) -> None:
    from transformers import CLIPConfig, CLIPModel

    config = CLIPConfig(
        projection_dim=16,
        text_config={"hidden_size": 64, "intermediate_size": 64, "num_hidden_layers": 1,
                     "num_attention_heads": 1, "vocab_size": 14, "max_position_embeddings": 16,
                     "eos_token_id": 2, "hidden_act": "gelu"},
        vision_config={"hidden_size": 64, "intermediate_size": 64, "num_hidden_layers": 1,
                       "num_attention_heads": 1, "image_size": 28, "patch_size": 14,
                       "hidden_act": "gelu"})
    for seed, name in ((4, "HPS_v2_compressed.pt"), (5, "HPS_v2.1_compressed.pt")):
        torch.manual_seed(seed)
        torch.save(openai_layout(CLIPModel(config).eval()), tmp_path / name)
    images, texts = _images(2, seed=3), ["a red star", "a house"]
    kw = {"model_path": str(tmp_path), "tokenizer": str(tiny_clip_dir)}
    v20, v21 = hps(images, texts, version="v2.0", **kw), hps(images, texts, **kw)
    assert v21 == hps(images, texts, preset=replace(DEFAULT, hps_version="v2.1"), **kw)
    assert v20 == hps(images, texts, preset=replace(DEFAULT, hps_version="v2.0"), **kw)
    assert v20 != pytest.approx(v21, abs=1e-3)
    (tmp_path / "HPS_v2_compressed.pt").unlink()
    _models.clear_cache()
    with pytest.raises(Exception, match="HPS_v2_compressed.pt"):
        hps(images, texts, version="v2.0", **kw)
    with pytest.raises(ValueError, match="v2.0, v2.1"):
        hps(images, texts, version="v3", **kw)
