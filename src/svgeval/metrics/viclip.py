"""ViCLIP video-text and video-video similarity: ``viclip_t2v`` and ``viclip_v2v``.

ViCLIP (Wang et al. 2023, *InternVid*; ``OpenGVLab/InternVideo``, ``Data/InternVid/viclip``) is a
CLIP ViT-L/14 whose image tower reads a video: each of T frames is cut into 14 px patches by the
same patch convolution (``conv1``, a 3-D kernel one frame deep), each patch gets CLIP's spatial
position embedding plus a learned per-frame embedding (``temporal_positional_embedding``, one row
per frame), and one class token then attends jointly over all T x N patch tokens; its output,
layer-normed and projected, is the video feature. The text tower is CLIP's (causal, QuickGELU,
pooled at the end-of-text token) with 32 positions. SArena (InternSVG 77a891e,
``metrics/video/CLIP_video.py:42-158``, ``metrics/video/viclip/``) scores::

    viclip_t2v = 100 * <v / |v|, t / |t|>      v: the answer video's feature, t: the caption's
    viclip_v2v = 100 * <v / |v|, g / |g|>      g: the ground-truth video's feature

Video input (``frames2tensor``): 8 frames at ``np.linspace(0, T - 1, 8, dtype=int)``
(:func:`svgeval.metrics.video.sample_frames`), each resized to 224 x 224 with OpenCV's bilinear
``cv2.resize`` (aspect ratio not kept), ``(x / 255 - mean) / std`` with ImageNet's mean and std.
Text input: CLIP's BPE (``bpe_simple_vocab_16e6.txt.gz``, shipped beside the checkpoint) on the
caption cleaned as ``simple_tokenizer.py`` does (``ftfy.fix_text``, HTML entities unescaped twice,
whitespace collapsed, lower case), ``<|startoftext|>`` + tokens + ``<|endoftext|>`` cut to 32
(the last kept token replaced by ``<|endoftext|>``), zero-padded.

Weights: the released ``ViClip-InternVid-10M-FLT.pth`` (hub ``OpenGVLab/ViCLIP``, gated), a
``{"model": state_dict}`` whose keys are ``vision_encoder.*``, ``text_encoder.*`` and ``temp``;
loaded by hub id, a folder holding it, or the file (``--model-path viclip=...``,
``SVGEVAL_VICLIP_MODEL``). Every key must be there and nothing else (a wrong checkpoint fails with
one line). The towers run as transformers' ``CLIPModel`` (:mod:`svgeval.metrics._clip_checkpoint`)
with the video embedding above in front of the image encoder.
"""

from __future__ import annotations

import gzip
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics import _clip_checkpoint, _models
from svgeval.metrics.model_settings import ModelSettings, chosen
from svgeval.metrics.registry import MetricInfo, describe_metric
from svgeval.metrics.video import sample_frames

Video = NDArray[np.uint8]
HUB_ID = "OpenGVLab/ViCLIP"
CHECKPOINT = "ViClip-InternVid-10M-FLT.pth"
VOCABULARY = "bpe_simple_vocab_16e6.txt.gz"
FRAMES = 8
SIZE = 224
CONTEXT = 32
MERGES = 49152 - 256 - 2
"""How many merge lines of the vocabulary file CLIP's tokenizer reads (after its header)."""
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
_PIECES = (r"""<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]"""
           r"""|[^\s\p{L}\p{N}]+""")
_BLOCK_PARTS = ("attn.in_proj_weight", "attn.in_proj_bias", "attn.out_proj.weight",
                "attn.out_proj.bias", "ln_1.weight", "ln_1.bias", "mlp.c_fc.weight",
                "mlp.c_fc.bias", "mlp.c_proj.weight", "mlp.c_proj.bias", "ln_2.weight",
                "ln_2.bias")
_FIXED_KEYS = ("temp", "vision_encoder.class_embedding", "vision_encoder.positional_embedding",
               "vision_encoder.temporal_positional_embedding", "vision_encoder.conv1.weight",
               "vision_encoder.ln_pre.weight", "vision_encoder.ln_pre.bias",
               "vision_encoder.ln_post.weight", "vision_encoder.ln_post.bias",
               "vision_encoder.proj", "text_encoder.token_embedding.weight",
               "text_encoder.positional_embedding", "text_encoder.ln_final.weight",
               "text_encoder.ln_final.bias", "text_encoder.text_projection")

for _info in (
    MetricInfo("viclip_t2v", "100 x cosine of the ViCLIP-L/14 features of a video (8 frames) and "
               "its caption", "[-100, 100]", True,
               "Wang et al. 2023 (InternVid ViCLIP); InternSVG metrics/video/CLIP_video.py"),
    MetricInfo("viclip_v2v", "100 x cosine of the ViCLIP-L/14 features of two videos (8 frames "
               "each)", "[-100, 100]", True,
               "Wang et al. 2023 (InternVid ViCLIP); InternSVG metrics/video/CLIP_video.py"),
):
    describe_metric(_info)


@dataclass(frozen=True)
class ViCLIP:
    """A loaded ViCLIP: both towers (transformers' ``CLIPModel``), the per-frame embeddings
    (1, T, width), the BPE tokenizer and the device."""

    clip: Any
    temporal: Any
    tokenizer: Any
    device: str


def released_keys(state: dict[str, Any]) -> set[str]:
    """The keys of a released ViCLIP state dict with as many blocks per tower as ``state``."""
    keys = set(_FIXED_KEYS)
    for tower in ("vision_encoder.", "text_encoder."):
        blocks = _clip_checkpoint.count_blocks(state, tower)
        keys |= {f"{tower}transformer.resblocks.{i}.{part}"
                 for i in range(blocks) for part in _BLOCK_PARTS}
    return keys


def openai_layout(state: dict[str, Any]) -> dict[str, Any]:
    """A released ViCLIP state dict as an OpenAI-layout CLIP (``visual.*`` and the text tower's
    keys), the one-frame-deep 3-D patch kernel as a 2-D one and ``logit_scale = log(1 / temp)``."""
    out = {"logit_scale": -state["temp"].float().log()}
    for key, value in state.items():
        if key.startswith("vision_encoder."):
            out["visual." + key.removeprefix("vision_encoder.")] = value
        elif key.startswith("text_encoder."):
            out[key.removeprefix("text_encoder.")] = value
    kernel = out["visual.conv1.weight"]
    if kernel.ndim != 5 or kernel.shape[2] != 1:
        raise ValueError(f"ViCLIP's patch kernel must be one frame deep, got {tuple(kernel.shape)}")
    out["visual.conv1.weight"] = kernel[:, :, 0]
    return out


def bytes_to_unicode() -> dict[int, str]:
    """CLIP's (and GPT-2's) byte -> character table: printable Latin-1 bytes map to themselves,
    the other 68 to the characters from U+0100 on, in byte order."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
            *range(ord("®"), ord("ÿ") + 1)]
    moved = [b for b in range(256) if b not in kept]
    return {**{b: chr(b) for b in kept}, **{b: chr(256 + i) for i, b in enumerate(moved)}}


def bpe_tokenizer(path: Path) -> Any:
    """A ``tokenizers`` BPE with CLIP's vocabulary from a ``bpe_simple_vocab_16e6.txt.gz``-format
    file: ids are the 256 byte characters, the same with ``</w>``, each merge's result in file
    order, then ``<|startoftext|>`` and ``<|endoftext|>`` (``simple_tokenizer.py``)."""
    tokenizers = _models.require("tokenizers")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        lines = handle.read().split("\n")[1 : MERGES + 1]
    merges = [tuple(line.split()) for line in lines]
    chars = list(bytes_to_unicode().values())
    vocab = [*chars, *(c + "</w>" for c in chars), *("".join(m) for m in merges),
             "<|startoftext|>", "<|endoftext|>"]
    model = tokenizers.models.BPE(vocab={v: i for i, v in enumerate(vocab)}, merges=merges,
                                  continuing_subword_prefix="", end_of_word_suffix="</w>")
    tokenizer = tokenizers.Tokenizer(model)
    pre = tokenizers.pre_tokenizers
    tokenizer.pre_tokenizer = pre.Sequence([
        pre.Split(tokenizers.Regex(_PIECES), behavior="removed", invert=True),
        pre.ByteLevel(add_prefix_space=False, use_regex=False)])
    return tokenizer


def clean_caption(text: str) -> str:
    """The caption as CLIP's ``simple_tokenizer.py`` reads it: ``ftfy.fix_text``, HTML entities
    unescaped twice, surrounding space stripped, runs of white space as one space, lower case."""
    ftfy = _models.require("ftfy", 'ViCLIP\'s tokenizer cleans text with ftfy: pip install '
                           '"svgeval[models]"')
    text = html.unescape(html.unescape(ftfy.fix_text(text))).strip()
    return re.sub(r"\s+", " ", text).strip().lower()


def token_ids(tokenizer: Any, texts: Sequence[str]) -> Any:
    """(N, 32) token ids: start, the caption's BPE tokens, end, cut to 32 with the end token
    last, then zeros (``CLIP_TEXT.tokenize(truncate=True)``)."""
    torch = _models.require("torch")
    start, end = tokenizer.token_to_id("<|startoftext|>"), tokenizer.token_to_id("<|endoftext|>")
    out = torch.zeros(len(texts), CONTEXT, dtype=torch.long)
    for row, text in enumerate(texts):
        ids = [start, *tokenizer.encode(clean_caption(text), add_special_tokens=False).ids, end]
        if len(ids) > CONTEXT:
            ids = [*ids[: CONTEXT - 1], end]
        out[row, : len(ids)] = torch.tensor(ids)
    return out


def load_viclip(source: str, device: str) -> ViCLIP:
    """ViCLIP from ``source`` (the checkpoint file, a folder holding it, or a hub repo) with the
    tokenizer vocabulary beside it; ValueError naming the keys when it is not a released ViCLIP."""
    torch = _models.require("torch")
    transformers = _models.require("transformers")
    path = _models.resolve_file(source, CHECKPOINT)
    local = Path(source).expanduser().exists()
    vocabulary = _models.resolve_file(str(path.parent.resolve()) if local else source, VOCABULARY)
    checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    state = checkpoint.get("model", checkpoint) if isinstance(checkpoint, dict) else None
    if not isinstance(state, dict):
        raise TypeError(f"{path.name} holds a {type(checkpoint).__name__}, not a state dict")
    state = {k.removeprefix("module."): v for k, v in state.items()}
    expected = released_keys(state)
    missing, unexpected = sorted(expected - set(state)), sorted(set(state) - expected)
    if missing or unexpected or not _clip_checkpoint.count_blocks(state, "vision_encoder."):
        raise ValueError(f"{path.name} is not a ViCLIP checkpoint (InternVid layout): missing "
                         f"{missing[:3]}, unexpected {unexpected[:3]}")
    config, weights = _clip_checkpoint.to_transformers(openai_layout(state), "quick_gelu")
    clip = transformers.CLIPModel(config)
    absent, extra = clip.load_state_dict(weights, strict=False)
    if [k for k in absent if not k.endswith("position_ids")] or extra:
        raise ValueError(f"{path.name}: the ViCLIP towers do not map onto CLIP: missing "
                         f"{absent[:3]}, unexpected {extra[:3]}")
    temporal = state["vision_encoder.temporal_positional_embedding"].float().to(device)
    return ViCLIP(clip.to(device).eval(), temporal, bpe_tokenizer(vocabulary), device)


def viclip_model(model: str | None = None, model_path: str | None = None,
                 device: str | None = None,
                 model_settings: ModelSettings | None = None) -> ViCLIP:
    """The ViCLIP of ``model`` (default the hub's) or ``model_path``, loaded once per process
    and device; :class:`~svgeval.metrics.registry.MetricUnavailable` when it cannot load."""
    wanted = model or HUB_ID
    dev = _models.pick_device(device)
    return _models.load_first("viclip", f"the ViCLIP weights ({wanted}, {CHECKPOINT})", wanted,
                              model_path, lambda src: load_viclip(src, dev), (dev,),
                              settings=model_settings)


def video_pixels(video: Video, size: int = SIZE, frames: int = FRAMES) -> NDArray[np.float32]:
    """(frames, 3, size, size): ``frames2tensor`` of the video's sampled RGB frames (224 px for
    ViCLIP-L/14, the size its position table is for)."""
    cv2 = _models.require("cv2", 'ViCLIP resizes frames with OpenCV: pip install '
                          'opencv-python-headless')
    resized = np.stack([cv2.resize(np.ascontiguousarray(frame[..., :3]), (size, size))
                        for frame in sample_frames(video, frames)])
    scaled = (resized / 255.0 - np.asarray(MEAN)) / np.asarray(STD)
    return np.ascontiguousarray(scaled.transpose(0, 3, 1, 2), np.float32)


def encode_video(loaded: ViCLIP, pixels: Any) -> Any:
    """Video features (B, D) of pixels (B, T, 3, 224, 224), not normalised (module docstring).
    Patch tokens are ordered patch-major, frame-minor, as released (the order does not change
    the result: the class token attends to all of them without a mask)."""
    torch = _models.require("torch")
    vision = loaded.clip.vision_model
    embeddings = vision.embeddings
    b, t = pixels.shape[:2]
    if t != loaded.temporal.shape[1]:
        raise ValueError(f"this ViCLIP reads {loaded.temporal.shape[1]} frames, got {t}")
    patches = embeddings.patch_embedding(pixels.flatten(0, 1)).flatten(2).transpose(1, 2)
    table = embeddings.position_embedding.weight
    width = patches.shape[-1]
    patches = (patches + table[1:]).view(b, t, -1, width) + loaded.temporal[:, :, None, :]
    tokens = patches.transpose(1, 2).reshape(b, -1, width)
    head = (embeddings.class_embedding + table[0]).expand(b, 1, width)
    hidden = vision.pre_layrnorm(torch.cat([head.to(tokens.dtype), tokens], dim=1))
    hidden = vision.encoder(inputs_embeds=hidden).last_hidden_state
    return loaded.clip.visual_projection(vision.post_layernorm(hidden[:, 0]))


def video_embeddings(loaded: ViCLIP, videos: Sequence[Video], batch_size: int = 8,
                     model_settings: ModelSettings | None = None) -> Any:
    """L2-normalised float32 ViCLIP features (N, D) of (T, H, W, 3) uint8 RGB videos."""
    torch = _models.require("torch")
    precision = chosen(model_settings).precision
    out = []
    for chunk in _models.batches(list(videos), batch_size):
        size = loaded.clip.config.vision_config.image_size
        pixels = torch.from_numpy(np.stack([video_pixels(v, size) for v in chunk])).to(loaded.device)
        with _models.inference(loaded.device, precision):
            feats = encode_video(loaded, pixels)
        out.append(torch.nn.functional.normalize(feats.float(), dim=-1))
    return torch.cat(out) if out else torch.zeros(0, loaded.clip.config.projection_dim)


def text_embeddings(loaded: ViCLIP, texts: Sequence[str], batch_size: int = 32,
                    model_settings: ModelSettings | None = None) -> Any:
    """L2-normalised float32 ViCLIP features (N, D) of captions."""
    torch = _models.require("torch")
    precision = chosen(model_settings).precision
    out = []
    for chunk in _models.batches(list(texts), batch_size):
        ids = token_ids(loaded.tokenizer, chunk).to(loaded.device)
        with _models.inference(loaded.device, precision):
            feats = loaded.clip.get_text_features(input_ids=ids)
        feats = getattr(feats, "pooler_output", feats)
        out.append(torch.nn.functional.normalize(feats.float(), dim=-1))
    return torch.cat(out) if out else torch.zeros(0, loaded.clip.config.projection_dim)


def viclip_scores(
    videos: Sequence[Video],
    captions: Sequence[str] | None = None,
    references: Sequence[Video | None] | None = None,
    *,
    model: str | None = None,
    model_path: str | None = None,
    device: str | None = None,
    batch_size: int = 8,
    model_settings: ModelSettings | None = None,
) -> tuple[list[float] | None, list[float | None] | None]:
    """(T2V, V2V) of each video: ``100 x cos`` with its caption and with its reference video
    (None where the reference is None; either list None when ``captions`` or ``references``
    is). Each video is encoded once. Range [-100, 100]."""
    for other in (captions, references):
        if other is not None and len(other) != len(videos):
            raise ValueError(f"{len(videos)} videos but {len(other)} captions or references")
    if not videos:
        return ([] if captions is not None else None), ([] if references is not None else None)
    how = chosen(model_settings)
    loaded = viclip_model(model, model_path, device, how)
    answers = video_embeddings(loaded, videos, batch_size, how)
    t2v: list[float] | None = None
    v2v: list[float | None] | None = None
    if captions is not None:
        texts = text_embeddings(loaded, captions, batch_size, how)
        t2v = [100.0 * c for c in (answers * texts).sum(-1).tolist()]
    if references is not None:
        held = [i for i, r in enumerate(references) if r is not None]
        truths = video_embeddings(loaded, [r for r in references if r is not None], batch_size,
                                  how)
        cosines = dict(zip(held, (answers[held] * truths).sum(-1).tolist()))
        v2v = [100.0 * cosines[i] if i in cosines else None for i in range(len(videos))]
    return t2v, v2v


def viclip_t2v(videos: Sequence[Video], captions: Sequence[str], **kwargs: Any) -> list[float]:
    """``100 x cos(ViCLIP(video), ViCLIP(caption))`` per pair (SArena ViCLIP-T2V)."""
    return viclip_scores(videos, captions, **kwargs)[0] or []


def viclip_v2v(videos_a: Sequence[Video], videos_b: Sequence[Video],
               **kwargs: Any) -> list[float]:
    """``100 x cos(ViCLIP(a), ViCLIP(b))`` per pair of videos (SArena ViCLIP-V2V)."""
    v2v = viclip_scores(videos_a, references=videos_b, **kwargs)[1] or []
    return [float(v) for v in v2v if v is not None]
