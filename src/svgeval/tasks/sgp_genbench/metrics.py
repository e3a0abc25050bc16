"""The metrics SGP-GenBench and SGP-CompBench report that svgeval did not describe yet, and the
two presets (the settings of ``evaluate_svg_model.py`` and of ``sgp-compbench/``)."""

from __future__ import annotations

from svgeval.metrics.presets import variant
from svgeval.metrics.registry import MetricInfo, describe_metric

SOURCE = "SGP-GenBench (Sphere-AI-Lab/SGP-RL@533171a)"

for _info in (
    MetricInfo(
        name="siglip_score",
        summary="cosine of the L2-normalised pooled SigLIP image and text embeddings (texts "
        "padded to 64 tokens; no scale, no clamp)",
        value_range="[-1, 1]", higher_is_better=True,
        source=f"{SOURCE} understand_r1_zero/clips.py siglip_text_image_distances_batch"),
    MetricInfo(
        name="diversity",
        summary="1 - mean pairwise cosine of the DINOv2 CLS features of the answers to one "
        "prompt (its --epochs answers), averaged over prompts",
        value_range="[0, 2]", higher_is_better=True,
        source=f"{SOURCE} evaluate_svg_model.py:642-700, eval_utils.py:64"),
    MetricInfo(
        name="tifa",
        summary="share of a prompt's TIFA questions a VQA model answers right from the render "
        "(multiple choice)",
        value_range="[0, 1]", higher_is_better=True,
        source=f"{SOURCE} eval_tools/tifa (Hu et al. 2023, TIFA)"),
    MetricInfo(
        name="compbench_score",
        summary="a VLM judge's 0/30/50/100 verdict on the render (binding, relation); numeracy "
        "int(0.2 total + 0.2 items + 0.6 mean count binding)",
        value_range="[0, 100]", higher_is_better=True,
        source=f"{SOURCE} sgp-compbench/evaluation.py, evaluation_prompts.py"),
):
    describe_metric(_info)

GENBENCH_PRESET = variant(
    "sgp-genbench",
    description="SGP-RL evaluate_svg_model.py + eval_tools: CLIP ViT-B/32 and SigLIP base 384 "
    "raw cosines with the prompt, DINOv2-S CLS raw cosine with the reference, diversity over "
    "a prompt's answers, HPS v2.1, TIFA VQA; answers drawn at their own size on white",
    metrics=("clip_score", "diversity", "dino_cls", "hps", "sample_count", "siglip_score",
             "success_rate", "tifa"),
    clip_model="openai/clip-vit-base-patch32",
    clip_scale=1.0,
    clip_clamp_zero=False,
    dino_model="facebook/dinov2-small",
    siglip_model="google/siglip-base-patch16-384",
    siglip_text_length=64,
    hps_version="v2.1",
).name

COMPBENCH_PRESET = variant(
    "sgp-compbench",
    description="SGP-RL sgp-compbench: a VLM judge (released gpt-4o-mini) scores the JPEG of "
    "the render 0/30/50/100 with the released prompts; numeracy weighs three questions",
    metrics=("compbench_score",),
).name
