"""SGP-GenBench (Chen et al. 2025): text-to-SVG on single objects (SGP-Object) and COCO scenes.

Protocol of ``Sphere-AI-Lab/SGP-RL`` ``evaluate_svg_model.py`` and ``eval_tools/`` at
``533171a``, the ``sgp-genbench`` preset (file:line in docs/suites/sgp_genbench.md):

* **Prompt**: :data:`PROMPT`, a raw completion prompt sent as one user message; the release
  samples 8 answers per prompt at temperature 1.0 (``--epochs 8 --temperature 1``).
* **Answer**: :func:`~.answers.extract_genbench`, re-serialised in lxml's recover mode, drawn
  at the SVG's own size on white (:func:`intrinsic_spec`).
* **Metrics** per answer: ``clip_score`` (CLIP ViT-B/32 raw cosine with the prompt),
  ``siglip`` (SigLIP base 384, texts padded to 64 tokens), ``dino`` (DINOv2-S CLS raw cosine
  with the reference: SGP-Object's SVG rendered the same way, or the COCO photo), ``hps``
  (HPS v2.1), ``success_rate``; ``tifa`` through the judge (``--judge``), one request per
  TIFA question; per group, across epochs, ``diversity`` (1 - mean pairwise DINO cosine of a
  prompt's answers).
* **Readings**: the release divides CLIP/SigLIP/DINO sums by every answer (a failure counts 0:
  ``<metric>``), ``<metric>_valid`` averages the drawn answers; HPS and TIFA skip a failure
  (``<metric>``), ``<metric>_all`` counts it as 0. ``diversity`` leaves out prompts whose
  diversity is 0 (released), ``diversity_checked`` keeps every prompt with two answers.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
from lxml import etree
from numpy.typing import NDArray

from svgeval.messages import png_bytes, user_message
from svgeval.metrics.clip import clip_score
from svgeval.metrics.dino import dino_cls, dino_cls_features
from svgeval.metrics.hps import hps
from svgeval.metrics.presets import MetricPreset, get_preset
from svgeval.metrics.registry import MetricUnavailable
from svgeval.metrics.siglip import siglip_score
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import Picture, RenderFailure
from svgeval.tasks import register_task
from svgeval.tasks.aggregate import Aggregate, mean_per_group
from svgeval.tasks.base import BatchItem, MetricContext, Sample, Task
from svgeval.tasks.common import TwoReadings
from svgeval.tasks.common.drawing import draw_pictures, kept_in_chunks
from svgeval.tasks.judge import JudgeRequest
from svgeval.tasks.lazy import LazySequence
from svgeval.tasks.outcome import Failure, FailureKind, MetricValues, Outcome
from svgeval.tasks.sgp_genbench import answers, data
from svgeval.tasks.sgp_genbench.metrics import GENBENCH_PRESET

PROMPT = (
    "A conversation between User and Assistant. The User asks a question, and the Assistant "
    "solves it. The Assistant first thinks about the reasoning process in the mind and then "
    "provides the User with the answer. The reasoning process is enclosed within <think> "
    "</think> and answer is enclosed within <answer> </answer> tags, respectively, i.e., "
    "<think> reasoning process here </think> <answer> answer here </answer>.\nUser: Please "
    "write SVG code for generating the image corresponding to the following description: "
    "{description}\nAssistant: <think>"
)
"""``haoquan_svg_new/dataset.py:166-180`` (COCO's ``process_example_metadata`` is the same)."""
ZERO = TwoReadings(suffix="_valid", paper="worst", other="left_out",
                   worst={"clip_score": 0.0, "siglip": 0.0, "dino": 0.0})
LEFT = TwoReadings(suffix="_all", paper="left_out", other="worst", worst={"hps": 0.0})
TIFA = ("tifa", "tifa_all")
DINO_SIZE = 224
MAX_SIDE = 2048
"""Ours: a drawing whose own size is over this many pixels a side is drawn scaled down."""
FALLBACK_SIDE = 100.0


def _px(value: str | None) -> float | None:
    try:
        number = float((value or "").strip().removesuffix("px"))
    except ValueError:
        return None
    return number if number > 0 and np.isfinite(number) else None


def intrinsic_spec(svg: str) -> RenderSpec:
    """CairoSVG's default output size: ``width``/``height`` in px, else the ``viewBox`` size,
    else 100 (a drawing over :data:`MAX_SIDE` scaled down to it), on white."""
    try:
        root = etree.fromstring(svg.encode("utf-8"), etree.XMLParser(
            recover=True, resolve_entities=False, no_network=True))
    except (etree.XMLSyntaxError, ValueError):
        root = None
    width = _px(root.get("width")) if root is not None else None
    height = _px(root.get("height")) if root is not None else None
    box = (root.get("viewBox") or "").replace(",", " ").split() if root is not None else []
    if len(box) == 4:
        width, height = width or _px(box[2]), height or _px(box[3])
    width, height = width or FALLBACK_SIDE, height or FALLBACK_SIDE
    shrink = min(1.0, MAX_SIDE / max(width, height))
    return RenderSpec(max(1, round(width * shrink)), max(1, round(height * shrink)))


def dino_input(picture: NDArray[np.uint8], squash: bool) -> NDArray[np.uint8]:
    """DINO's view of 8-bit pixels: ``Resize(224)`` (shorter side, bilinear with antialiasing) then
    ``CenterCrop(224)``, or (``squash``, the release's reference pictures) ``Resize((224,
    224))`` first (PIL bilinear in both; the release squashes with torchvision on tensors)."""
    from PIL import Image

    image = Image.fromarray(picture[..., :3])
    if squash:
        image = image.resize((DINO_SIZE, DINO_SIZE), Image.Resampling.BILINEAR)
    width, height = image.size
    scale = DINO_SIZE / min(width, height)
    size = (max(DINO_SIZE, int(width * scale)), max(DINO_SIZE, int(height * scale)))
    if image.size != size:
        image = image.resize(size, Image.Resampling.BILINEAR)
    left, top = round((size[0] - DINO_SIZE) / 2), round((size[1] - DINO_SIZE) / 2)
    image = image.crop((left, top, left + DINO_SIZE, top + DINO_SIZE))
    return np.asarray(image)


def load_photo(path: str) -> NDArray[np.uint8]:
    """A COCO photo as 8-bit RGB."""
    from PIL import Image

    with Image.open(path) as photo:
        return np.asarray(photo.convert("RGB"), np.uint8)


@dataclass(frozen=True)
class GenBenchOptions:
    """``--set`` options of the SGP-GenBench tasks."""

    clip_model: str = field(default="openai/clip-vit-base-patch32", metadata={
        "help": "CLIP (the release also reports openai/clip-vit-large-patch14)"})
    siglip_model: str = field(default="google/siglip-base-patch16-384", metadata={
        "help": "SigLIP (the release also reports google/siglip-large-patch16-384)"})
    dino_model: str = field(default="facebook/dinov2-small", metadata={
        "help": "DINOv2 of dino and diversity (the release also reports -base, -large, -giant)"})
    hps_tokenizer: str = field(default="laion/CLIP-ViT-H-14-laion2B-s32B-b79K",
                               metadata={"help": "CLIP tokenizer of HPS (hub id or folder)"})
    reference_resize: Literal["squash", "crop"] = field(default="squash", metadata={
        "help": "DINO view of the reference: squash (released: Resize((224, 224)) first) or "
                "crop (the answer's own Resize(224) + CenterCrop)"})
    questions: Path | None = field(default=None, metadata={
        "help": "TIFA questions file (caption -> questions; scene: coco_qa.json under --data)"})


class GenBenchTask(Task[data.GenTarget]):
    """Base of the two SGP-GenBench tasks."""

    suite: ClassVar[str] = "SGP-GenBench"
    suite_source: ClassVar[str] = ("SphereLab/SGP-Object (HF), COCO val2017 + "
                                   "Sphere-AI-Lab/SGP-RL evaluate_svg_model.py, eval_tools/")
    preset: ClassVar[str] = GENBENCH_PRESET
    Options: ClassVar[type[Any]] = GenBenchOptions
    metrics: ClassVar[Mapping[str, str]] = {
        **ZERO.keys({"clip_score": "clip_score", "siglip": "siglip_score", "dino": "dino_cls"}),
        **LEFT.keys({"hps": "hps"}), **dict.fromkeys(TIFA, "tifa"),
        "success_rate": "success_rate", "diversity": "diversity",
        "diversity_checked": "diversity", "diversity_prompts": "sample_count"}
    batched_metrics: ClassVar[tuple[str, ...]] = ("clip_score", "siglip", "dino", "hps")
    set_metrics: ClassVar[tuple[str, ...]] = ("diversity", "diversity_checked",
                                              "diversity_prompts")
    set_metrics_across_epochs = True
    judge_metrics: ClassVar[tuple[str, ...]] = TIFA
    judge_sees_images = True
    # a count (lower read as better) of the prompts with two drawn answers: an answer that never
    # draws has none, 0, and with one epoch (the default) the oracle has none either
    degenerate: ClassVar[Mapping[str, frozenset[str]]] = {
        "empty": frozenset({"diversity_prompts"}), "hostile": frozenset({"diversity_prompts"})}
    group: ClassVar[str]

    def targets(self) -> list[tuple[str, data.GenTarget]]:
        raise NotImplementedError

    def reference_answer(self, target: data.GenTarget) -> str:
        """What the oracle answers, in the released format."""
        raise NotImplementedError

    def load(self) -> list[Sample[data.GenTarget]]:
        return [Sample(id=sample_id, group=self.group,
                       messages=user_message(PROMPT.format(description=target.prompt)),
                       reference=(f"plan </think> <answer>{self.reference_answer(target)}"
                                  "</answer>"), target=target)
                for sample_id, target in self.targets()]

    @functools.cached_property
    def settings(self) -> MetricPreset:
        """The preset with the models the options name."""
        return replace(get_preset(GENBENCH_PRESET), clip_model=self.options.clip_model,
                       siglip_model=self.options.siglip_model, dino_model=self.options.dino_model)

    def score(self, sample: Sample[data.GenTarget], response: str, renderer: Renderer) -> Outcome:
        extraction = answers.extract_genbench(response)
        svg = answers.recovered(extraction.svg) if extraction.svg else None
        outcome = Outcome.of(sample, extracted=svg, extraction_rule=extraction.rule)
        picture: NDArray[np.uint8] | None = None
        if extraction.svg is None or svg is None:
            outcome.failure = Failure(kind=FailureKind.EXTRACT, detail=extraction.error or
                                      "nothing left of the SVG after lxml's recovery")
        else:
            rendered = renderer.render(svg, intrinsic_spec(svg))
            if isinstance(rendered, RenderFailure):
                outcome.failure = Failure.of_render(rendered)
            else:
                picture = rendered.pixels
        outcome.metrics["success_rate"] = 0.0 if picture is None else 100.0
        questions = sample.target.questions
        if picture is None:
            outcome.metrics.update(tifa=None, tifa_all=0.0 if questions else None)
            return outcome
        png = png_bytes(picture)
        for question in questions:
            prompt = answers.TIFA_PROMPT.format(question=question.question,
                                                choices=", ".join(question.choices))
            for key in TIFA:
                outcome.ask_judge(JudgeRequest(key, user_message(prompt, [png]),
                                               functools.partial(tifa_right, question=question)))
        return outcome

    def pictures(self, svgs: Sequence[str | None], renderer: Renderer
                 ) -> list[NDArray[np.uint8] | None]:
        """The pixels of recorded answers, each drawn at its own size and side by side (None:
        a failed one)."""
        return [None if picture is None else picture.pixels
                for picture in draw_pictures(svgs, intrinsic_spec, renderer)]

    def reference_pictures(self, targets: Sequence[data.GenTarget],
                           renderer: Renderer) -> list[NDArray[np.uint8] | None]:
        """What DINO compares each answer with: the COCO photo, or the reference SVG drawn as
        an answer is (the SVGs of a batch side by side; None where it does not draw)."""
        drawn = iter(self.pictures([answers.recovered(target.reference_svg) or None
                                    for target in targets if not target.reference_image],
                                   renderer))
        return [load_photo(target.reference_image) if target.reference_image else next(drawn)
                for target in targets]

    def batch_score(self, items: Sequence[BatchItem[data.GenTarget]],
                    context: MetricContext) -> list[MetricValues]:
        pictures = self.pictures([item.output_svg for item in items], context.renderer)
        valid = [p is not None for p in pictures]
        white = np.full((DINO_SIZE, DINO_SIZE, 3), 255, np.uint8)
        drawn = [p if p is not None else white for p in pictures]
        prompts = [item.sample.target.prompt for item in items]
        references = self.reference_pictures([item.sample.target for item in items],
                                             context.renderer)
        squash = self.options.reference_resize == "squash"
        kw: dict[str, Any] = {"preset": self.settings, **context.keywords()}
        scores = [MetricValues() for _ in items]
        ZERO.put_batch(scores, valid, "clip_score", lambda: clip_score(drawn, prompts, **kw))
        ZERO.put_batch(scores, valid, "siglip", lambda: siglip_score(drawn, prompts, **kw))
        ZERO.put_batch(scores, valid, "dino", lambda: dino_cls(
            [dino_input(p, False) for p in drawn],
            [dino_input(r if r is not None else white, squash) for r in references],
            imagenet_normalize=True, **kw))
        LEFT.put_batch(scores, valid, "hps", lambda: hps(
            drawn, prompts, tokenizer=self.options.hps_tokenizer, **kw))
        for score, reference in zip(scores, references):
            if reference is None:  # the dataset's reference SVG does not render
                score.metrics.update(dino=None, dino_valid=None)
        return scores

    def set_score(self, groups: Mapping[str, Sequence[BatchItem[data.GenTarget]]],
                  context: MetricContext) -> MetricValues:
        """Per group, the diversity of each prompt's answers (every epoch's), then its two
        means and the number of prompts with two answers or more. The answers are drawn a
        batch at a time and DINO's view of each kept compressed until the network reads it
        (held as float64, a view took 1.15 MiB: 9.2 GiB for 1,000 prompts at ``--epochs 8``)."""
        values = MetricValues()
        for group, items in groups.items():
            keys = [f"{group}/{key}" for key in self.set_metrics]
            views = kept_in_chunks([item.output_svg for item in items], lambda part: [
                None if picture is None else Picture(dino_input(picture, False))
                for picture in self.pictures(part, context.renderer)], context.batch_size)
            by_prompt: dict[str, list[Picture]] = defaultdict(list)
            for item, view in zip(items, views):
                if view is not None:
                    by_prompt[item.sample.id].append(view)
            flat = LazySequence([view for kept in by_prompt.values() for view in kept],
                                lambda view: view.pixels)
            try:  # one forward pass per answer; each prompt's pairs compared from the features
                features = dino_cls_features(
                    flat, imagenet_normalize=True, preset=self.settings,
                    **context.keywords()) if flat else np.zeros((0, 1), np.float32)
            except MetricUnavailable as error:
                values.metrics.update(dict.fromkeys(keys, None))
                values.not_computed.update(dict.fromkeys(keys, str(error)))
                continue
            spread, start = [], 0
            for kept in by_prompt.values():
                spread.append(answers.diversity(features[start:start + len(kept)]))
                start += len(kept)
            values.metrics[keys[0]] = answers.released_diversity_mean(spread)
            values.metrics[keys[1]] = answers.checked_diversity_mean(spread)
            values.metrics[keys[2]] = float(sum(v is not None for v in spread))
        return values

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        return mean_per_group(outcomes, judged=TIFA)


def tifa_right(reply: str, question: data.Question) -> float | None:
    """1 when the reply names the right choice, 0 for another choice, None (a judge failure)
    when it names none."""
    choice = answers.tifa_choice(reply, question.choices)
    return None if choice is None else float(choice == question.answer)


@register_task
class GenBenchObject(GenBenchTask):
    """SGP-Object: single-object descriptions; DINO against the reference SVG."""

    name = "sgp-genbench-object"
    description = ("SGP-GenBench object fidelity (SGP-Object): CLIP, SigLIP, DINO, HPSv2, "
                   "diversity over --epochs, TIFA VQA by --judge with --set questions=FILE")
    group = "object"

    def targets(self) -> list[tuple[str, data.GenTarget]]:
        found = data.object_targets(self.common.data)
        asked = data.questions_by_caption(self.options.questions)
        return [(i, t.model_copy(update={"questions": asked.get(t.prompt, ())}) if asked else t)
                for i, t in found]

    def reference_answer(self, target: data.GenTarget) -> str:
        return target.reference_svg


@register_task
class GenBenchScene(GenBenchTask):
    """COCO val2017 captions; DINO against the photo; TIFA questions of coco_qa.json."""

    name = "sgp-genbench-scene"
    description = ("SGP-GenBench scenes (1,024 COCO val2017 captions): CLIP, SigLIP, DINO "
                   "with the photo, HPSv2, diversity over --epochs, TIFA VQA by --judge")
    group = "scene"

    def targets(self) -> list[tuple[str, data.GenTarget]]:
        return data.scene_targets(self.common.data, self.options.questions)

    def reference_answer(self, target: data.GenTarget) -> str:
        """An SVG that draws the photo at its own size."""
        import base64

        from PIL import Image

        path = Path(target.reference_image)
        with Image.open(path) as photo:
            width, height = photo.size
        url = "data:image/jpeg;base64," + base64.b64encode(path.read_bytes()).decode("ascii")
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">'
                f'<image width="{width}" height="{height}" href="{url}"/></svg>')
