"""CLIP-based image metrics: ``clip_score``, ``rclip`` and the LAION ``aesthetic`` predictor.

Models load through transformers (``CLIPModel``) from a hub id or a local directory; see
:mod:`svgeval.metrics._models` for where weights are looked for. A CLIP released as an
OpenAI-layout checkpoint file loads too (:mod:`svgeval.metrics._clip_checkpoint`, QuickGELU),
with the tokenizer and image processor of the preset's ``clip_processor``: Long-CLIP
(Zhang et al. 2024; hub ``BeichenZhang/LongCLIP-L`` file ``longclip-L.pt``, or the file or a
folder holding it), a CLIP ViT-L/14 whose text tower reads 248 positions, which VGBench's
``evaluate_clip_score.py`` uses; captions are then truncated to 248 tokens, as Long-CLIP's
``tokenize(..., truncate=True)`` does. Long-CLIP's ``load`` runs fp16 on CUDA; we use float32.
Images are (H, W, 3) uint8 or [0, 1] float arrays (renders on white).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics import _clip_checkpoint, _models, _pixels
from svgeval.metrics.model_settings import ModelSettings, chosen
from svgeval.metrics.presets import DEFAULT, MetricPreset, get_preset
from svgeval.metrics.registry import MetricInfo, describe_metric

Image = NDArray[np.generic]

for _info in (
    MetricInfo(
        name="clip_score",
        summary="100 x cosine of CLIP image and caption embeddings (model and clamping per preset)",
        value_range="[-100, 100] unclamped (svgenius), [0, 100] clamped",
        higher_is_better=True,
        source="Hessel et al. 2021; SVGenius (ViT-L/14, unclamped), VectorGym (ViT-B/32)",
    ),
    MetricInfo(
        name="clip_image",
        summary="cosine of the CLIP image embeddings of two renders",
        value_range="[-1, 1]",
        higher_is_better=True,
        source="UniSVG in VLMEvalKit (vlmeval/dataset/utils/uni_svg.py, CLIP ViT-L/14-336)",
    ),
    MetricInfo(
        name="rclip",
        summary="relative CLIP consistency: 100 x (1 - max(0, (CLIP(c, gt) - CLIP(c, gen)) / "
        "CLIP(c, gt)))",
        value_range="[0, 100]; NaN (left out of means) when CLIP(c, gt) <= 0",
        higher_is_better=True,
        source="SVGenius Eq. 1",
    ),
    MetricInfo(
        name="clip_i2i",
        summary="100 x cosine of the CLIP image embeddings of two renders (clamped at 0 per "
        "preset; InternSVG's release does not clamp)",
        value_range="[-100, 100] unclamped (internsvg), [0, 100] clamped",
        higher_is_better=True,
        source="InternSVG released metrics/CLIP_Score.py (torchmetrics CLIPScore, ViT-L/14, "
        "image-image)",
    ),
    MetricInfo(
        name="aesthetic",
        summary="LAION aesthetic predictor: MLP on L2-normalised CLIP ViT-L/14 image embedding",
        value_range="about [1, 10]",
        higher_is_better=True,
        source="Schuhmann et al. (LAION-5B / improved-aesthetic-predictor); SVGenius AES",
    ),
):
    describe_metric(_info)


CLIP_I2I_SETTINGS = replace(
    DEFAULT, name="clip_i2i",
    description="CLIP-Score-I2I with the clamp of Hessel et al.: CLIP ViT-L/14, the cosine "
    "clamped at 0, x100 (InternSVG's release does not clamp: preset internsvg)",
    clip_clamp_zero=True)
""":func:`clip_image_score`'s settings when no preset is named."""


CHECKPOINT_FILES = {"BeichenZhang/LongCLIP-L": "longclip-L.pt",
                    "BeichenZhang/LongCLIP-B": "longclip-B.pt"}
"""Hub repos that hold a CLIP as one OpenAI-layout checkpoint file, and the file."""


def _checkpoint_file(source: str) -> Path | None:
    """The OpenAI-layout checkpoint ``source`` names: a ``.pt``/``.pth`` file, the only such file
    in a folder without ``config.json``, or a known hub repo's file; None for a transformers
    model."""
    path = Path(source).expanduser()
    if path.is_file():
        return path
    if path.is_dir():
        if (path / "config.json").exists():
            return None
        files = sorted([*path.glob("*.pt"), *path.glob("*.pth")])
        return files[0] if len(files) == 1 else None
    if source in CHECKPOINT_FILES:
        return _models.resolve_file(source, CHECKPOINT_FILES[source])
    return None


def _backend_arguments(transformers: Any, backend: str) -> dict[str, Any]:
    """``AutoImageProcessor.from_pretrained``'s arguments for ``backend`` (``auto`` or ``pil``):
    transformers 5 names the backend, 4.x chooses its slow (PIL) processor by ``use_fast``."""
    if backend == "auto":
        return {}
    if backend != "pil":
        raise ValueError(f"clip_image_backend must be auto or pil, not {backend!r}")
    major = int(str(transformers.__version__).split(".", 1)[0])
    return {"backend": "pil"} if major >= 5 else {"use_fast": False}


def _load_clip(source: str, device: str, processor_source: str,
               backend: str = "auto") -> tuple[Any, Any, Any]:
    transformers = _models.require("transformers")
    checkpoint = _checkpoint_file(source)
    if checkpoint is None:
        model = transformers.CLIPModel.from_pretrained(source)
    else:
        model = _clip_checkpoint.load_model(checkpoint, hidden_act="quick_gelu")
        source = processor_source
    tokenizer = transformers.AutoTokenizer.from_pretrained(source)
    processor = transformers.AutoImageProcessor.from_pretrained(
        source, **_backend_arguments(transformers, backend))
    return model.to(device).eval(), tokenizer, processor


def clip_model(preset: str | MetricPreset, model: str | None, model_path: str | None,
               device: str | None, name: str = "clip",
               model_settings: ModelSettings | None = None) -> tuple[Any, Any, Any, str]:
    """(model, tokenizer, image processor, device) for the preset's CLIP (or ``model``), loaded
    once per process and device; ``name`` picks the entry of ``model_settings.model_paths``
    (and the ``SVGEVAL_<NAME>_MODEL`` variable) and the error messages. Every metric that uses
    the same weights on the same device shares them."""
    settings = get_preset(preset)
    wanted = model or settings.clip_model
    dev = _models.pick_device(device)
    backend = settings.clip_image_backend
    loaded = _models.load_first(name, f"the CLIP model {wanted}", wanted, model_path,
                                lambda src: _load_clip(src, dev, settings.clip_processor, backend),
                                (dev, settings.clip_processor, backend), kind="clip",
                                settings=model_settings)
    return (*loaded, dev)


def image_embeddings(loaded: tuple[Any, Any, Any, str], images: Sequence[Image],
                     batch_size: int, normalize: bool = True,
                     model_settings: ModelSettings | None = None,
                     own_processor: bool = False) -> Any:
    """CLIP image embeddings (N, D) in float32, computed ``batch_size`` images at a time after
    the model's image processor; L2-normalised unless ``normalize`` is False (CLIP-FID uses
    the raw projections, as clean-fid's ``encode_image``). ``own_processor``: the processor
    runs even under ``--preprocess device`` (a released reading's exact pixels)."""
    torch = _models.require("torch")
    model, _, processor, dev = loaded
    how = chosen(model_settings)
    out = []
    for chunk in _pixels.rgb_batches(images, batch_size):
        pixels = _pixels.pixel_values(processor, chunk, dev,
                                      "cpu" if own_processor else how.preprocess)
        with _models.inference(dev, how.precision):
            feats = model.get_image_features(pixel_values=pixels)
        feats = getattr(feats, "pooler_output", feats).float()
        out.append(torch.nn.functional.normalize(feats, dim=-1) if normalize else feats)
    return torch.cat(out)


TRUNCATIONS = ("eot", "cut")


def text_embeddings(loaded: tuple[Any, Any, Any, str], texts: Sequence[str],
                    batch_size: int, truncation: str = "eot",
                    model_settings: ModelSettings | None = None) -> Any:
    """L2-normalised CLIP text embeddings of captions cut to the context length (77 tokens):
    by the tokenizer, keeping the end-of-text token (``eot``), or by slicing the token ids and
    attention mask of the whole caption (``cut``: torchmetrics' ``_clip_score_update``; the end
    token is lost and the text tower pools wherever its rule then points)."""
    torch = _models.require("torch")
    if truncation not in TRUNCATIONS:
        raise ValueError(f"truncation must be one of {', '.join(TRUNCATIONS)}, not {truncation!r}")
    model, tokenizer, _, dev = loaded
    precision = chosen(model_settings).precision
    max_len = model.config.text_config.max_position_embeddings
    out = []
    for chunk in _models.batches(list(texts), batch_size):
        if truncation == "eot":
            enc = tokenizer(list(chunk), padding=True, truncation=True, max_length=max_len,
                            return_tensors="pt")
        else:
            whole = tokenizer(list(chunk), padding=True, return_tensors="pt")
            enc = {key: value[..., :max_len] for key, value in whole.items()}
        enc = _models.to_device(enc, dev)
        with _models.inference(dev, precision):
            feats = model.get_text_features(input_ids=enc["input_ids"],
                                            attention_mask=enc.get("attention_mask"))
        feats = getattr(feats, "pooler_output", feats)
        out.append(torch.nn.functional.normalize(feats.float(), dim=-1))
    return torch.cat(out)


def clip_score(
    images: Sequence[Image],
    texts: Sequence[str],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    device: str | None = None,
    clamp: bool | None = None,
    truncation: str | None = None,
    batch_size: int = 32,
    model_settings: ModelSettings | None = None,
) -> list[float]:
    """CLIP score of each (image, caption) pair: ``scale x cos(E_img, E_txt)``.

    SVGenius (released ``compute_clip_score.py``): OpenAI CLIP ViT-L/14, scale 100, no clamp,
    caption truncated to 77 tokens. CLIPScore (Hessel et al., 2021) clamps the cosine at 0
    (``clamp=True``; its 2.5 weight is not applied). VectorGym: ViT-B/32. ``clamp`` and
    ``truncation`` (``eot`` or ``cut``, see :func:`text_embeddings`) default to the preset's
    ``clip_clamp_zero`` and ``clip_truncation``. Range [-100, 100] unclamped, [0, 100]
    clamped; higher is better.
    """
    if len(images) != len(texts):
        raise ValueError(f"{len(images)} images but {len(texts)} texts")
    if not images:
        return []
    settings, how = get_preset(preset), chosen(model_settings)
    loaded = clip_model(settings, model, model_path, device, model_settings=how)
    cos = (image_embeddings(loaded, images, batch_size, model_settings=how)
           * text_embeddings(loaded, texts, batch_size, truncation or settings.clip_truncation,
                             model_settings=how)).sum(-1).tolist()
    use_clamp = settings.clip_clamp_zero if clamp is None else clamp
    return [settings.clip_scale * (max(0.0, c) if use_clamp else c) for c in cos]


def clip_image_score(
    images_a: Sequence[Image],
    images_b: Sequence[Image],
    *,
    preset: str | MetricPreset = CLIP_I2I_SETTINGS,
    model: str | None = None,
    model_path: str | None = None,
    device: str | None = None,
    clamp: bool | None = None,
    batch_size: int = 32,
    model_settings: ModelSettings | None = None,
) -> list[float]:
    """CLIP image-image score of each pair: ``scale x cos(E_a, E_b)``, clamped at 0 when
    ``clamp`` (default the preset's ``clip_clamp_zero``) says so.

    InternSVG's ``CLIP-Score-I2I`` (released ``metrics/CLIP_Score.py:56``): torchmetrics'
    ``_clip_score_update`` with OpenAI CLIP ViT-L/14 given two images, 100 x the cosine of
    their image embeddings, not clamped (only ``CLIPScore.compute()`` clamps, and only the
    mean; the released code never calls it). With no preset the clamp of Hessel et al. applies.
    The images may differ in size (the processor resizes each); under the preset's
    ``clip_image_backend="pil"`` the PIL image processor runs on the CPU whatever
    ``--preprocess`` says. Range [-100, 100] unclamped, [0, 100] clamped; higher is better.
    """
    if len(images_a) != len(images_b):
        raise ValueError(f"{len(images_a)} and {len(images_b)} images")
    if not images_a:
        return []
    settings, how = get_preset(preset), chosen(model_settings)
    loaded = clip_model(settings, model, model_path, device, model_settings=how)
    exact = settings.clip_image_backend == "pil"
    cos = (image_embeddings(loaded, images_a, batch_size, model_settings=how, own_processor=exact)
           * image_embeddings(loaded, images_b, batch_size, model_settings=how,
                              own_processor=exact)).sum(-1).tolist()
    use_clamp = settings.clip_clamp_zero if clamp is None else clamp
    return [settings.clip_scale * (max(0.0, c) if use_clamp else c) for c in cos]


def rclip_from_scores(clip_gt: Sequence[float], clip_gen: Sequence[float]) -> list[float]:
    """``100 x (1 - max(0, (CLIP(c, gt) - CLIP(c, gen)) / CLIP(c, gt)))`` per pair (SVGenius
    Eq. 1). The scores may be on any common scale. A generated image that aligns with the
    caption at least as well as the ground truth scores 100. A non-positive ``CLIP(c, gt)``
    makes the ratio meaningless: the result is then NaN."""
    out = []
    for gt, gen in zip(clip_gt, clip_gen, strict=True):
        if gt <= 0:
            out.append(float("nan"))
            continue
        out.append(100.0 * (1.0 - max(0.0, (gt - gen) / gt)))
    return out


def rclip(
    captions: Sequence[str],
    gt_images: Sequence[Image],
    gen_images: Sequence[Image],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    device: str | None = None,
    batch_size: int = 32,
    model_settings: ModelSettings | None = None,
) -> list[float]:
    """Relative CLIP consistency (SVGenius Eq. 1) of each generated image against its ground
    truth, with the preset's CLIP; see :func:`rclip_from_scores`. Range [0, 100]; higher is
    better."""
    kw: dict[str, Any] = {"preset": preset, "model": model, "model_path": model_path,
                          "device": device, "clamp": False, "batch_size": batch_size,
                          "model_settings": chosen(model_settings)}
    return rclip_from_scores(clip_score(gt_images, captions, **kw),
                             clip_score(gen_images, captions, **kw))


def _load_aesthetic_head(source: str, device: str) -> Any:
    torch = _models.require("torch")
    path = Path(source)
    if path.is_dir():
        path = path / DEFAULT.aesthetic_head
    if not path.is_file():
        raise FileNotFoundError(f"no aesthetic head file at {path}")
    state = torch.load(path, map_location="cpu", weights_only=True)
    state = state.get("state_dict", state)
    state = {k.removeprefix("module."): v for k, v in state.items()}
    # improved-aesthetic-predictor MLP: Linear(D,1024), Dropout, Linear(1024,128), Dropout,
    # Linear(128,64), Dropout, Linear(64,16), Linear(16,1) -- no activations.
    sizes = [state[f"layers.{i}.weight"].shape for i in (0, 2, 4, 6, 7)]
    nn = torch.nn
    head = nn.Sequential(
        nn.Linear(sizes[0][1], sizes[0][0]), nn.Dropout(0.2),
        nn.Linear(sizes[1][1], sizes[1][0]), nn.Dropout(0.2),
        nn.Linear(sizes[2][1], sizes[2][0]), nn.Dropout(0.1),
        nn.Linear(sizes[3][1], sizes[3][0]), nn.Linear(sizes[4][1], sizes[4][0]),
    )
    head.load_state_dict({k.removeprefix("layers."): v.float() for k, v in state.items()})
    return head.to(device).eval()


def aesthetic(
    images: Sequence[Image],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    head: str | None = None,
    head_path: str | None = None,
    device: str | None = None,
    batch_size: int = 32,
    model_settings: ModelSettings | None = None,
) -> list[float]:
    """LAION aesthetic score of each image: ``MLP(E / |E|)`` with E the CLIP ViT-L/14 image
    embedding and the MLP of ``sac+logos+ava1-l14-linearMSE.pth`` (improved-aesthetic-predictor,
    a torch state dict with keys ``layers.{0,2,4,6,7}.{weight,bias}``).

    ``model``/``model_path``: the CLIP backbone; ``head``/``head_path``: the head file (or a
    directory holding it). Range about [1, 10]; higher is better. Source: Schuhmann et al.;
    OmniSVG's released ``metrics/compute_aesthetic.py`` (MMSVGBench), which this equals per
    picture (OpenAI ``clip``'s ViT-L/14 and preprocessing, the embedding L2-normalised, the
    same MLP; the release runs the CLIP in float16 on CUDA). SVGenius' paper cites this
    predictor, while its released code calls aesthetic-predictor-v2.5 (a SigLIP-based
    successor, not implemented here).
    """
    if not images:
        return []
    settings, how = get_preset(preset), chosen(model_settings)
    backbone = model or settings.aesthetic_model
    loaded = clip_model(settings, backbone, model_path, device, name="aesthetic",
                        model_settings=how)
    dev = loaded[3]
    head_name = head or settings.aesthetic_head
    mlp = _models.load_first("aesthetic_head", f"the aesthetic MLP head {head_name}", head_name,
                             head_path, lambda src: _load_aesthetic_head(src, dev), (dev,),
                             settings=how)
    emb = image_embeddings(loaded, images, batch_size, model_settings=how)
    with _models.inference(dev, how.precision):
        return [float(v) for v in mlp(emb).squeeze(-1).tolist()]
