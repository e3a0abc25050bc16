"""VGBench VGen, SVG part: draw an SVG from a caption; Long-CLIP score and FID of the renders.

Protocol of ``generate.py``, ``render_all*.py``, ``evaluate_clip_score.py`` and
``evaluate_fid_score.py`` (vgbench/VGBench at d4e4601):

* **Prompt**: system ``Generate a svg based on the caption below. You should output the
  compilable code without any additional information.``, user: the caption.
* **Clean-up** (rule ``vgbench``): when the reply's first line starts with a fence, the first and
  the last line are dropped; nothing else (text before a fence stays, and the render fails).
* **Render**: CairoSVG on white. The release draws at each SVG's own size; svgeval draws answers
  and ground truths at :data:`RENDER` (both metrics resize anyway: Long-CLIP to 224, FID to 256).
* ``clip_score``: Long-CLIP-L (``BeichenZhang/LongCLIP-L``, 248 text positions, captions
  truncated), raw cosine of the render and the caption (no x100, no clamp).
* ``fid`` per group: pytorch-fid Inception pool3 after a PIL bilinear 256 x 256 pre-resize,
  between the ground-truth renders and the answers' renders of the same samples (the release's
  reference folder is not stated).

Failed answers (no SVG, a failed render) have no PNG in the release, so both metrics leave them
out (``clip_score``, ``fid``); ``clip_score_all`` and ``fid_all`` (ours) draw them white.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from svgeval.metrics.clip import clip_score
from svgeval.metrics.fid import fid
from svgeval.metrics.presets import get_preset, variant
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage
from svgeval.svg.extract import Extraction, extraction_rule
from svgeval.tasks import register_task
from svgeval.tasks.base import BatchItem, MetricContext, Sample, distribution_metrics
from svgeval.tasks.common import CaptionedReference, Drawing, ImageGenerationTask, TwoReadings
from svgeval.tasks.lazy import LazySequence
from svgeval.tasks.outcome import MetricValues, Outcome
from svgeval.tasks.vgbench.data import load_captions

SUITE = "VGBench"
SUITE_SOURCE = "HF vgbench/VGQA, vgbench/VGen + vgbench/VGBench@d4e4601 evaluate*.py"
RENDER = RenderSpec.square(512, background="white")
PRESET = variant(
    "vgbench",
    description="VGBench evaluate.py / evaluate_clip_score.py / evaluate_fid_score.py: VGQA "
    "first-character accuracy; Long-CLIP-L raw cosine; pytorch-fid FID after a 256 px PIL "
    "bilinear pre-resize",
    metrics=("accuracy", "clip_score", "fid"),
    render_size=512,
    clip_model="BeichenZhang/LongCLIP-L",
    clip_scale=1.0,
    clip_clamp_zero=False,
    fid_resize="pytorch-fid",
    fid_pre_resize=256,
).name
SYSTEM = ("Generate a svg based on the caption below. You should output the compilable code "
          "without any additional information.")
READINGS = TwoReadings(suffix="_all", paper="left_out", other="stand_in")


@extraction_rule("vgbench")
def clean_reply(response: str) -> Extraction:
    """``generate.py``'s clean-up: drop the first and last line when the first is a fence."""
    lines = response.split("\n")
    if lines[0].strip().startswith("```"):
        lines = lines[1:-1]
    code = "\n".join(lines)
    if not code.strip():
        return Extraction(None, "vgbench", "empty reply")
    return Extraction(code, "vgbench")


@register_task
class VGen(ImageGenerationTask[CaptionedReference]):
    """Caption -> SVG, scored by Long-CLIP against the caption and FID against the ground truth."""

    name = "vgbench-vgen"
    description = "VGBench VGen (SVG): Long-CLIP score (raw cosine) and FID of caption-to-SVG"
    suite = SUITE
    suite_source = SUITE_SOURCE
    preset = PRESET
    drawing = Drawing(RENDER, failed="white")
    extraction_rule = "vgbench"
    batched_metrics = ("clip_score",)
    set_metrics = ("fid", "fid_all")
    metrics: ClassVar[Mapping[str, str]] = {
        **READINGS.keys({"clip_score": "clip_score"}), "fid": "fid", "fid_all": "fid"}

    def load(self) -> list[Sample[CaptionedReference]]:
        return [Sample(
            id=record.id,
            group="svg",
            messages=[{"role": "system", "content": SYSTEM},
                      {"role": "user", "content": record.caption}],
            reference=record.code,
            target=CaptionedReference(reference=record.code, caption=record.caption),
        ) for record in load_captions(self.common.data)]

    def score_picture(self, score: Outcome, sample: Sample[CaptionedReference], answer: Extraction,
                      picture: FloatImage | None, reference: FloatImage,
                      renderer: Renderer) -> None:
        """No per-sample pixel metric: CLIP runs batched, FID per group."""

    def batch_score(self, items: Sequence[BatchItem[CaptionedReference]],
                    context: MetricContext) -> list[MetricValues]:
        drawn = self.drawn(items, context.renderer)
        captions = [item.sample.target.caption for item in items]
        scores = [MetricValues() for _ in items]
        READINGS.put_batch(scores, drawn.valid, "clip_score", lambda: clip_score(
            drawn.outputs, captions, **self.metric_options(context)))
        return scores

    def set_score(self, groups: Mapping[str, Sequence[BatchItem[CaptionedReference]]],
                  context: MetricContext) -> MetricValues:
        """FID per group: over the answers that drew (released) and over all, failures white."""
        score = MetricValues()
        settings = get_preset(self.preset)
        for group, items in groups.items():
            drawn = self.drawn_group(items, context.renderer)
            kept = [i for i, valid in enumerate(drawn.valid) if valid]
            for key, pick in (("fid", kept), ("fid_all", list(range(len(items))))):
                distribution_metrics(
                    score, f"{group}/{{}}", {key: fid},
                    LazySequence(pick, drawn.references.__getitem__),
                    LazySequence(pick, drawn.outputs.__getitem__),
                    preset=settings, **context.keywords())
        return score
