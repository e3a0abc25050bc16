"""VectorGym captioning (VG-Cap): describe the image an SVG's code draws (paper Sec. 3.5).

No released code: the prompt (:data:`~svgeval.tasks.vectorgym.prompts.CAPTION_PROMPT`) and the
rubric (:data:`~svgeval.tasks.vectorgym.prompts.CAPTION_RUBRIC`) are ours. The model sees the
``original_svg`` as text; its whole answer, stripped, is the caption; the reference is the
row's ``text_caption``. Metrics, each pairwise then averaged as the paper:

* ``rouge_l``: ROUGE-L F1 x 100 (rouge-score tokens, no stemming), per sample;
* ``bge_m3``: 100 x cosine of BGE-M3 dense embeddings (``BAAI/bge-m3``), batched;
* ``judge``: the LLM rubric score 0-5 mapped to 0-100 (``20 x N``), asked of the judge model
  as text (no image).

An empty answer is a failure (``extract``) and scores 0 on every metric (not sent to the judge).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from svgeval.messages import user_message
from svgeval.metrics.text import bge_m3, rouge_l
from svgeval.render.isolated import Renderer
from svgeval.tasks import register_task
from svgeval.tasks.base import BatchItem, MetricContext, Sample, Target
from svgeval.tasks.common import TwoReadings
from svgeval.tasks.judge import JudgeRequest
from svgeval.tasks.outcome import Failure, FailureKind, MetricValues, Outcome
from svgeval.tasks.vectorgym import prompts
from svgeval.tasks.vectorgym.base import JUDGE_TEMPERATURE, VectorGymTask
from svgeval.tasks.vectorgym.data import VectorGymRow

READINGS = TwoReadings(suffix="_all", paper="left_out", other="stand_in")
"""``<metric>``: an empty answer left out; ``<metric>_all``: scored as empty, 0."""


class CaptionTarget(Target):
    """What a caption is compared with."""

    caption: str
    """The row's ``text_caption``."""


@register_task
class VectorGymCaption(VectorGymTask[CaptionTarget]):
    """SVG code -> description; the reference is ``text_caption``."""

    name = "vectorgym-caption"
    description = "VectorGym captioning: describe an SVG from its code (ROUGE-L, BGE-M3, rubric)"
    kind = "caption"
    takes_input_svg = True
    scores_text_only = True
    """The answer is read as a caption and never drawn: a hostile SVG is a (wrong) caption."""
    judge_metrics = ("judge",)
    batched_metrics = ("bge_m3",)
    metrics: ClassVar[Mapping[str, str]] = {
        **READINGS.keys({"rouge_l": "rouge_l", "bge_m3": "bge_m3"}),
        "judge": "caption_rubric", "judged_share": "judged_share",
    }

    def keep(self, row: VectorGymRow) -> bool:
        return row.has_svg and bool(row.text_caption)

    def make_sample(self, sample_id: str, row: VectorGymRow) -> Sample[CaptionTarget]:
        return Sample(
            id=sample_id,
            group=self.options.split,
            messages=user_message(prompts.CAPTION_PROMPT.format(svg=row.original_svg)),
            reference=str(row.text_caption),
            input_svg=row.original_svg,
            target=CaptionTarget(caption=str(row.text_caption)),
        )

    def score(self, sample: Sample[CaptionTarget], response: str,
              renderer: Renderer) -> Outcome:
        caption = response.strip()
        reference = sample.target.caption
        if not caption:
            return Outcome.of(sample, 
                metrics={"rouge_l": None, "rouge_l_all": 0.0, "judge": 0.0},
                extraction_rule="whole",
                failure=Failure(kind=FailureKind.EXTRACT, detail="empty answer"),
            )
        value = rouge_l([reference], [caption])[0]
        score = Outcome.of(sample, metrics={"rouge_l": value, "rouge_l_all": value}, extracted=caption,
                      extraction_rule="whole")
        score.ask_judge(JudgeRequest(
            metric="judge",
            messages=user_message(prompts.CAPTION_RUBRIC.format(reference=reference,
                                                                candidate=caption)),
            parse=prompts.parse_rubric,
            temperature=JUDGE_TEMPERATURE,
        ))
        return score

    def batch_score(self, items: Sequence[BatchItem[CaptionTarget]],
                    context: MetricContext) -> list[MetricValues]:
        scores = [MetricValues() for _ in items]
        references = [item.sample.target.caption for item in items]
        # a failed sample (no answer extracted) has no caption; it is scored as empty
        captions = [item.output_svg or "" if item.in_paper_reading else "" for item in items]
        ok = [item.in_paper_reading for item in items]
        READINGS.put_batch(scores, ok, "bge_m3", lambda: [
            value if caption else 0.0 for caption, value in zip(captions, bge_m3(
                references, [caption or " " for caption in captions],
                **context.keywords()))
        ])
        return scores
