"""Per-benchmark metric settings: which model, resolution, clamping and normalisation.

Reproducing a paper's number means computing its metrics the way its released code does. A
:class:`MetricPreset` names those choices for one benchmark and the registered metrics its
protocol reports; every metric function takes ``preset=`` (a name or a preset) and reads only
the fields it needs. Without one it uses :data:`DEFAULT`.

Each benchmark registers its preset from its own package (:func:`register_preset`), found
through the ``svgeval.metric_presets`` entry points like any plugin's (:mod:`svgeval.registry`);
look one up with :func:`get_preset`, make a variant with
``dataclasses.replace(get_preset("svgenius"), ...)``, and see which presets use a metric with
:func:`presets_using`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from svgeval.registry import Registry


@dataclass(frozen=True)
class MetricPreset:
    """Settings of one benchmark's metrics. Model fields take a hub id or a local directory."""

    name: str
    """Preset name, e.g. ``svgenius``."""
    description: str
    """Where the settings come from."""
    render_size: int
    """Square render size in pixels for image metrics (SVGenius: 224; its ``scale=2`` has no
    effect because CairoSVG ignores ``scale`` when both output sizes are set)."""
    clip_model: str
    """CLIP model for ``clip_score`` and ``rclip``."""
    clip_clamp_zero: bool
    """Clamp CLIP cosine at 0 (CLIPScore, Hessel et al.) before scaling; SVGenius does not."""
    clip_scale: float
    """Factor applied to the cosine (100 gives the 0-100 scale)."""
    dino_model: str
    """DINOv2 model for ``dino``."""
    lpips_net: str
    """LPIPS backbone: ``vgg`` or ``alex``."""
    lpips_input: str
    """How [0, 1] pixels are fed to LPIPS: ``imagenet`` (released SVGenius/StarVector code,
    mean/std normalisation) or ``standard`` (LPIPS' own convention, 2x - 1)."""
    lpips_size: int | None
    """Resize both images to this square size before LPIPS (None keeps the input size)."""
    ssim_window: int
    """SSIM window side in pixels."""
    ssim_gaussian: bool
    """Gaussian (sigma 1.5) instead of uniform window weights."""
    aesthetic_model: str
    """CLIP ViT-L/14 backbone of the LAION aesthetic predictor."""
    aesthetic_head: str
    """MLP head of the aesthetic predictor (``sac+logos+ava1-l14-linearMSE.pth``)."""
    hps_checkpoint: str
    """Where the HPS checkpoints are: a local file or directory, or the hub repo ``xswu/HPSv2``."""
    hps_tokenizer: str
    """Tokenizer for HPS (the OpenAI CLIP BPE; any CLIP tokenizer directory or hub id)."""
    bge_model: str
    """Embedding model for ``bge_m3``."""
    sbert_model: str
    """Sentence-BERT model for ``sbert`` (``default`` = the packaged all-MiniLM-L6-v2 when
    installed, else the hub id)."""
    rouge_stemmer: bool
    """Porter-stem tokens longer than 3 characters in ROUGE-L (rouge-score's ``use_stemmer``)."""
    pss_weighting: str
    """PSS combination: ``code`` (released code, 0.5 IoU / 0.5 paths) or ``paper`` (0.6 / 0.4)."""
    pss_fix_defects: bool
    """Fix the released PSS code's known defects (see :mod:`svgeval.metrics.pss`)."""
    fid_model: str
    """FID Inception v3 weights in pytorch-fid's layout (``pt_inception-2015-12-05-6726825d.pth``):
    a file, a directory holding it, the torch hub cache, or a hub repo."""
    fid_resize: str
    """How renders reach Inception's 299 px input: ``pytorch-fid`` (bilinear on [0, 1] floats,
    StarVector/SVGenius ``compute_fid.py``), ``clean`` (clean-fid) or ``tf1`` (torch-fidelity,
    torchmetrics); see :mod:`svgeval.metrics.fid`."""
    clip_fid_model: str
    """CLIP for CLIP-FID (ViT-B/32: clean-fid's ``clip_vit_b_32``, StarVector's ``ViT-B/32``)."""
    clip_processor: str = "openai/clip-vit-large-patch14"
    """Tokenizer and image processor for a CLIP given as an OpenAI-layout checkpoint file
    (Long-CLIP, ``clip_model="BeichenZhang/LongCLIP-L"``): a CLIP hub id or directory."""
    siglip_model: str = "google/siglip2-so400m-patch14-384"
    """SigLIP model for ``siglip_image`` and ``siglip_score`` (VCode: SigLIP 2 so400m 384 px;
    SGP-GenBench: ``google/siglip-base-patch16-384`` and ``-large-``)."""
    siglip_text_length: int = 64
    """Tokens SigLIP texts are padded or truncated to (``padding="max_length"``)."""
    fid_network: str = "pytorch-fid"
    """FID feature network: ``pytorch-fid`` (the TF FID graph) or ``torchvision`` (torchvision's
    ImageNet Inception v3, OmniSVG's ``compute_fid.py``; set ``fid_model`` to its
    ``inception_v3_google-0cc3c7bd.pth``)."""
    fid_pre_resize: int | None = None
    """Resize every picture to this square size (PIL bilinear) before FID's own input pipeline
    (VGBench's ``evaluate_fid_score.py``: 256); None: no pre-resize."""
    fid_frechet: str = "pytorch-fid"
    """Fréchet distance variant (:mod:`svgeval.metrics.frechet`): ``pytorch-fid``, ``omnisvg``
    (epsilon always on the diagonals) or ``cd-fvd`` (population covariance)."""
    fid_reference_fraction: float | None = None
    """Share of the FID reference set to sample (OmniSVG: 0.03 of MMSVG-Icon/-Illustration);
    None: the whole set (:func:`~svgeval.metrics.frechet.sample_references`)."""
    fid_reference_seed: int = 42
    """Seed of that sample (OmniSVG: 42, numpy's legacy generator)."""
    hps_version: str = "v2.1"
    """HPS checkpoint version: ``v2.1`` (``HPS_v2.1_compressed.pt``) or ``v2.0``
    (``HPS_v2_compressed.pt``, OmniSVG's ``compute_hps.py`` default)."""
    fid_batchnorm: str = "eval"
    """Inception's batch norm in FID: ``eval`` (the stored running statistics: pytorch-fid's
    ``fid_score.py``, VLMEvalKit's SArena ``FID.py:38``) or ``train`` (each batch's own
    statistics, batches of 50 in sample order, each set separately: InternSVG's
    ``metrics/FID.py:29-32`` and StarVector's ``metrics/compute_fid.py:25-30`` never call
    ``.eval()``); see :func:`svgeval.metrics.fid.inception_features`."""
    clip_truncation: str = "eot"
    """How a caption longer than CLIP's context (77 tokens) is cut: ``eot`` (the tokenizer
    truncates and keeps the end-of-text token) or ``cut`` (token ids and attention mask sliced
    at the context length after tokenizing, so the end token is lost: torchmetrics'
    ``_clip_score_update``, ``functional/multimodal/clip_score.py:145-146`` of 1.9.0, which
    InternSVG's and StarVector's released CLIP scores call)."""
    clip_image_backend: str = "auto"
    """Image processor of the CLIP image metrics: ``auto`` (transformers' choice: its torchvision
    backend where torchvision is installed, else PIL) or ``pil`` (the PIL one, which
    transformers 4.52.4 picks for a CLIP saved with a slow processor: InternSVG's pin)."""
    background: str = "white"
    """What transparent pixels become before FID and SigLIP: ``white``, ``black``, or ``drop``
    (PIL ``convert("RGB")``: alpha discarded, the stored colour kept -- black in most PNGs)."""
    metrics: tuple[str, ...] = ()
    """The registered metrics (:data:`~svgeval.metrics.registry.METRICS`) the benchmark's
    protocol reports with these settings, for ``svgeval list metrics``."""


DEFAULT = MetricPreset(
    name="default",
    description="svgeval's defaults: the settings of the released SVGenius image metrics, which "
    "StarVector's share (CLIP ViT-L/14 unclamped x100, DINOv2-base, LPIPS-VGG on "
    "ImageNet-normalised 224 px inputs, uniform 11 px SSIM, PSS as released, FID/CLIP-FID as "
    "pytorch-fid Inception and CLIP ViT-B/32)",
    render_size=224,
    clip_model="openai/clip-vit-large-patch14",
    clip_clamp_zero=False,
    clip_scale=100.0,
    dino_model="facebook/dinov2-base",
    lpips_net="vgg",
    lpips_input="imagenet",
    lpips_size=224,
    ssim_window=11,
    ssim_gaussian=False,
    aesthetic_model="openai/clip-vit-large-patch14",
    aesthetic_head="sac+logos+ava1-l14-linearMSE.pth",
    hps_checkpoint="xswu/HPSv2",
    hps_tokenizer="laion/CLIP-ViT-H-14-laion2B-s32B-b79K",
    bge_model="BAAI/bge-m3",
    sbert_model="default",
    rouge_stemmer=False,
    pss_weighting="code",
    pss_fix_defects=False,
    fid_model="pt_inception-2015-12-05-6726825d.pth",
    fid_resize="pytorch-fid",
    clip_fid_model="openai/clip-vit-base-patch32",
)
"""What a metric uses when no preset is named; each benchmark's preset is a variant of it."""

PRESETS: Registry[MetricPreset] = Registry("metric preset", "svgeval.metric_presets")
"""Every benchmark's preset by name, registered from the benchmark's own package."""

register_preset = PRESETS.register
"""Register a :class:`MetricPreset` under its name and return it."""


def variant(name: str, description: str, metrics: tuple[str, ...], **changes: Any) -> (
        MetricPreset):
    """:data:`DEFAULT` with ``changes``, registered as ``name``."""
    return register_preset(replace(DEFAULT, name=name, description=description,
                                   metrics=metrics, **changes))


def get_preset(preset: str | MetricPreset) -> MetricPreset:
    """Return the preset called ``preset`` (or ``preset`` itself); raises KeyError listing names."""
    if isinstance(preset, MetricPreset):
        return preset
    return PRESETS.get(preset.lower())


def presets_using(metric: str) -> list[str]:
    """The names of the registered presets that report ``metric`` (every preset is loaded)."""
    return [name for name, preset in PRESETS.all().items() if metric in preset.metrics]
