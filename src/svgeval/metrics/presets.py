"""Per-benchmark metric settings: which model, resolution, clamping and normalisation.

Reproducing a paper's number means computing its metrics the way its released code does. A
:class:`MetricPreset` names those choices for one benchmark; every metric function takes
``preset=`` (a name or a preset) and reads only the fields it needs. Look one up with
:func:`get_preset`; make a variant with ``dataclasses.replace(get_preset("svgenius"), ...)``.

Sources: SVGenius (Chen et al., 2025) and its released code ``src/metrics/``; VectorGym (2025)
Sec. 3.5; SVGauge (Zini et al., 2025) Sec. 4; SVGEditBench V2 (github.com/mti-lab/
SVGEditBenchV2, ``src/9_calculate_metrics.py`` and ``src/evaluation/``); StarVector (Rodriguez
et al., 2023) whose metric code SVGenius' image metrics derive from.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


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
    """HPS v2.1 checkpoint (``HPS_v2.1_compressed.pt``): a local file or ``xswu/HPSv2``."""
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


SVGENIUS = MetricPreset(
    name="svgenius",
    description="SVGenius released code (src/metrics): CLIP ViT-L/14 unclamped x100, "
    "DINOv2-base, LPIPS-VGG on ImageNet-normalised 224 px inputs, uniform 11 px SSIM, "
    "renders 224 px (CairoSVG ignores scale=2 when both output sizes are given), "
    "PSS as in src/metrics/pss, FID/CLIP-FID as StarVector's compute_fid.py (pytorch-fid "
    "Inception, CLIP ViT-B/32)",
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

PRESETS: dict[str, MetricPreset] = {
    p.name: p
    for p in (
        SVGENIUS,
        replace(
            SVGENIUS,
            name="starvector",
            description="StarVector metric code, from which SVGenius' image metrics derive: "
            "same models and settings as svgenius",
        ),
        replace(
            SVGENIUS,
            name="vectorgym",
            description="VectorGym Sec. 3.5: CLIP ViT-B/32, DINOv2-base, LPIPS, MSE; ROUGE-L F1 "
            "and BGE-M3 cosine on a 0-100 scale for captions",
            clip_model="openai/clip-vit-base-patch32",
            lpips_input="standard",
        ),
        replace(
            SVGENIUS,
            name="svgeditbench-v2",
            description="SVGEditBench V2 released src/9_calculate_metrics.py: CairoSVG 224 px "
            "on white; DINOv2-giant CLS cosine; torchmetrics CLIPScore (ViT-B/32, "
            "max(100 cos, 0)); Chamfer distance of 100 points per shape",
            clip_model="openai/clip-vit-base-patch32",
            clip_clamp_zero=True,
            dino_model="facebook/dinov2-giant",
        ),
        replace(
            SVGENIUS,
            name="svgauge",
            description="SVGauge Sec. 4: SBERT caption similarity, encoders at their own input "
            "resolution (DINOv2-base, CLIP ViT-B/32)",
            clip_model="openai/clip-vit-base-patch32",
            lpips_input="standard",
        ),
    )
}


def get_preset(preset: str | MetricPreset) -> MetricPreset:
    """Return the preset called ``preset`` (or ``preset`` itself); raises KeyError listing names."""
    if isinstance(preset, MetricPreset):
        return preset
    try:
        return PRESETS[preset.lower()]
    except KeyError:
        raise KeyError(f"unknown metric preset {preset!r}; known: {', '.join(PRESETS)}") from None


def preset_names() -> tuple[str, ...]:
    """Names of all presets, for ``svgeval list metrics``."""
    return tuple(PRESETS)
