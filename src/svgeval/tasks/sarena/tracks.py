"""The SArena generation tasks, one per track and kind (InternSVG ``evaluate_gen.py`` with
``--bench_name Icon|Illustration|Chem``); see :mod:`svgeval.tasks.sarena.image_tasks`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from svgeval.tasks import register_task
from svgeval.tasks.sarena.image_tasks import TEXT_METRICS, SArenaImg2Svg, SArenaText2Svg


@register_task
class SArenaIconText2Svg(SArenaText2Svg):
    name = "sarena-icon-text2svg"
    description = "SArena Icon text-to-SVG: FID, FID-C, CLIP-T2I, CLIP-I2I, tokens"
    track = "icon"


@register_task
class SArenaIconImg2Svg(SArenaImg2Svg):
    name = "sarena-icon-img2svg"
    description = "SArena Icon image-to-SVG: DINO, LPIPS, SSIM, PSNR, tokens"
    track = "icon"


@register_task
class SArenaIllustrationText2Svg(SArenaText2Svg):
    name = "sarena-illustration-text2svg"
    description = "SArena Illustration text-to-SVG: FID, FID-C, CLIP-T2I, CLIP-I2I, tokens"
    track = "illustration"


@register_task
class SArenaIllustrationImg2Svg(SArenaImg2Svg):
    name = "sarena-illustration-img2svg"
    description = "SArena Illustration image-to-SVG: DINO, LPIPS, SSIM, PSNR, tokens"
    track = "illustration"


@register_task
class SArenaChemistryText2Svg(SArenaText2Svg):
    name = "sarena-chemistry-text2svg"
    description = "SArena Chemistry text-to-SVG: FID, FID-C, CLIP-I2I, tokens (no captions)"
    track = "chemistry"
    metrics: ClassVar[Mapping[str, str]] = {
        key: metric for key, metric in TEXT_METRICS.items() if key != "clip_t2i"}
    batched_metrics = ("clip_i2i",)  # evaluate_gen.py: use_CLIP_Score_T2I=False for Chem


@register_task
class SArenaChemistryImg2Svg(SArenaImg2Svg):
    name = "sarena-chemistry-img2svg"
    description = "SArena Chemistry image-to-SVG: DINO, LPIPS, SSIM, PSNR, tokens"
    track = "chemistry"
