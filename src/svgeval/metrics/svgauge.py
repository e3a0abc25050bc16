"""SVGauge (Zini et al., 2025): a human-aligned, reference-based text-to-SVG metric.

``SVGauge = alpha x S_I + beta x S_T`` (Sec. 3; alpha 0.6, beta 0.4 chosen on SHE's training
split, Table 4; alpha 0 is the reference-free variant of Table 7), with

* ``S_I`` (visual): both SVGs rendered on white at the encoder's input size, encoded with SigLIP
  (``google/siglip-base-patch16-224``); the last layer's grid of patch features averaged (Eq. 1,
  SigLIP has no CLS token), PCA-whitened (:mod:`svgeval.metrics.projection`, 128 components
  fitted on SVG renders) and compared by cosine;
* ``S_T`` (semantic, Eq. 2): the generated render is captioned (BLIP-2
  ``Salesforce/blip2-opt-2.7b``, any image-to-text model), and
  ``S_T = cos_SBERT(prompt, caption) x (0.8 + 0.2 x cos_TFIDF(prompt, caption))`` with TF-IDF
  fitted on the prompts of the evaluated set (scikit-learn defaults) and SBERT all-MiniLM-L6-v2.

Every function takes images as (H, W, 3) arrays rendered on white. No code was released with
the paper; choices it leaves open are documented in ``docs/svgauge.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics import _models, _pixels
from svgeval.metrics.model_settings import ModelSettings, chosen
from svgeval.metrics.presets import variant
from svgeval.metrics.projection import Projection, probe_image
from svgeval.metrics.registry import MetricInfo, MetricUnavailable, describe_metric
from svgeval.metrics.text import sbert

Image = NDArray[np.generic]
ENCODER = "google/siglip-base-patch16-224"
CAPTIONER = "Salesforce/blip2-opt-2.7b"
PROJECTION = "svgauge_projection.npz"
ALPHA, BETA = 0.6, 0.4
PRESET = variant(
    "svgauge",
    description="SVGauge Sec. 4: SBERT caption similarity, encoders at their own input "
    "resolution (DINOv2-base, CLIP ViT-B/32)",
    metrics=("blank_render", "clip_fid", "clip_score", "dino", "fid", "lpips", "sbert", "ssim",
             "svg_present", "svg_valid", "svgauge", "svgauge_si", "svgauge_st"),
    clip_model="openai/clip-vit-base-patch32",
    lpips_input="standard",
)
"""The settings of the metrics SVGauge's study compares with (``svgeval correlate``)."""

for _info in (
    MetricInfo("svgauge", "alpha x S_I + beta x S_T (alpha 0.6, beta 0.4)", "[-1, 1]", True,
               "Zini et al. 2025 (SVGauge) Sec. 3"),
    MetricInfo("svgauge_si", "cosine of PCA-whitened mean SigLIP patch features of the renders",
               "[-1, 1]", True, "SVGauge Sec. 3, Eq. 1 and whitening"),
    MetricInfo("svgauge_st", "cos_SBERT(prompt, caption) x (0.8 + 0.2 cos_TFIDF(prompt, caption))",
               "[-1, 1]", True, "SVGauge Eq. 2"),
):
    describe_metric(_info)


def _load_encoder(source: str, device: str) -> tuple[Any, Any]:
    transformers = _models.require("transformers")
    model = transformers.AutoModel.from_pretrained(source).to(device).eval()
    processor = transformers.AutoImageProcessor.from_pretrained(source)
    return getattr(model, "vision_model", model), processor


@dataclass(frozen=True)
class Encoder:
    """A loaded SigLIP vision tower, its image processor, where it runs and how
    (:class:`ModelSettings`)."""

    name: str
    model: Any
    processor: Any
    device: str
    settings: ModelSettings = field(default_factory=ModelSettings)

    @property
    def input_size(self) -> int:
        """The square input size the encoder was trained at (renders are drawn at it)."""
        return int(self.model.config.image_size)

    @property
    def patches(self) -> int:
        """Patches in the feature grid (SigLIP has no CLS token; other ViTs add one)."""
        return (self.input_size // int(self.model.config.patch_size)) ** 2

    def features(self, images: Sequence[Image], batch_size: int = 32) -> NDArray[np.float64]:
        """Mean of the last layer's patch features (Eq. 1), (N, D) float64; a CLS token, where
        the encoder has one, is left out, as in the paper."""
        out = []
        for chunk in _pixels.rgb_batches(images, batch_size):
            pixels = _pixels.pixel_values(self.processor, chunk, self.device,
                                          self.settings.preprocess)
            with _models.inference(self.device, self.settings.precision):
                grid = self.model(pixel_values=pixels).last_hidden_state
            if grid.shape[1] == self.patches + 1:  # a ViT with a CLS token (CLIP, DINOv2)
                grid = grid[:, 1:]
            out.append(grid.float().mean(dim=1).cpu().numpy().astype(np.float64))
        return np.concatenate(out) if out else np.zeros((0, 0))


def load_encoder(model: str | None = None, model_path: str | None = None,
                 device: str | None = None,
                 model_settings: ModelSettings | None = None) -> Encoder:
    """The SigLIP encoder (``--model-path svgauge=DIR`` or ``SVGEVAL_SVGAUGE_MODEL``)."""
    name, how = model or ENCODER, chosen(model_settings)
    dev = _models.pick_device(device)
    vision, processor, source = _models.load_first(
        "svgauge", f"the SVGauge image encoder ({name})", name, model_path,
        lambda s: (*_load_encoder(s, dev), s), (dev,), settings=how)
    return Encoder(source, vision, processor, dev, how)


def load_projection_file(projection_path: str | None = None,
                         model_settings: ModelSettings | None = None) -> Projection:
    """The PCA whitening file (``--model-path svgauge_projection=FILE``), unchecked; loaded
    before any network so that a run without one stops at once."""
    return _models.load_first(
        "svgauge_projection", "the SVGauge PCA-whitening projection (fit one with `svgeval "
        "svgauge fit --svgs FOLDER --out projection.npz`)", PROJECTION, projection_path,
        Projection.load, settings=model_settings)


def load_projection(encoder: Encoder, projection_path: str | None = None) -> Projection:
    """The PCA whitening, refused unless fitted with ``encoder`` at its input size (the file
    looked for with the encoder's settings)."""
    projection = load_projection_file(projection_path, encoder.settings)
    probe = encoder.features([probe_image(encoder.input_size)])[0]
    try:
        projection.check_encoder(probe, encoder.input_size, encoder.name)
    except ValueError as error:
        raise MetricUnavailable(f"svgauge_projection: {error}") from error
    return projection


def cosine_rows(a: NDArray[np.generic], b: NDArray[np.generic]) -> list[float]:
    """Cosine similarity of each row of ``a`` with the same row of ``b`` (0 for a zero row)."""
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)
    norms = np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1)
    dots = np.sum(x * y, axis=1)
    return [float(d / n) if n > 0 else 0.0 for d, n in zip(dots, norms)]


def visual_similarity(references: Sequence[Image], generated: Sequence[Image], *,
                      encoder: Encoder, projection: Projection, batch_size: int = 32) -> list[float]:
    """``S_I``: cosine of the whitened mean SigLIP patch features of each pair of renders."""
    if len(references) != len(generated):
        raise ValueError(f"{len(references)} references but {len(generated)} generated images")
    if not references:
        return []
    ref = projection.apply(encoder.features(references, batch_size))
    gen = projection.apply(encoder.features(generated, batch_size))
    return cosine_rows(ref, gen)


def _load_captioner(source: str, device: str) -> tuple[Any, Any]:
    transformers = _models.require("transformers")
    model = transformers.AutoModelForImageTextToText.from_pretrained(source).to(device).eval()
    return model, transformers.AutoProcessor.from_pretrained(source)


def caption(images: Sequence[Image], *, model: str | None = None, model_path: str | None = None,
            device: str | None = None, batch_size: int = 8, max_new_tokens: int = 30,
            model_settings: ModelSettings | None = None) -> list[str]:
    """Greedy captions of ``images`` by an image-to-text model (BLIP-2 OPT-2.7b by default;
    ``--model-path svgauge_captioner=DIR``)."""
    name, how = model or CAPTIONER, chosen(model_settings)
    dev = _models.pick_device(device)
    captioner, processor = _models.load_first(
        "svgauge_captioner", f"the SVGauge captioner ({name})", name, model_path,
        lambda s: _load_captioner(s, dev), (dev,), settings=how)
    out: list[str] = []
    for chunk in _pixels.rgb_batches(images, batch_size):
        inputs = _models.to_device(processor(images=list(chunk), return_tensors="pt"), dev)
        with _models.inference(dev, how.precision):
            tokens = captioner.generate(**inputs, max_new_tokens=max_new_tokens, do_sample=False)
        out.extend(t.strip() for t in processor.batch_decode(tokens, skip_special_tokens=True))
    return out


def tfidf_cosines(prompts: Sequence[str], captions: Sequence[str],
                  corpus: Sequence[str] | None = None) -> list[float]:
    """Cosine of the TF-IDF vectors of each (prompt, caption) pair, the vectorizer fitted on
    ``corpus`` (default: the prompts; scikit-learn's smoothed idf, L2-normalised rows)."""
    text = _models.require("sklearn.feature_extraction.text",
                           "install scikit-learn (pip install scikit-learn)")
    vectorizer = text.TfidfVectorizer().fit(list(corpus if corpus is not None else prompts))
    a = vectorizer.transform(list(prompts)).toarray()
    b = vectorizer.transform(list(captions)).toarray()
    return cosine_rows(a, b)


def semantic_from_cosines(sbert_cos: Sequence[float], tfidf_cos: Sequence[float]) -> list[float]:
    """Eq. 2: ``S_T = cos_SBERT x (0.8 + 0.2 x cos_TFIDF)`` for each pair."""
    return [s * (0.8 + 0.2 * t) for s, t in zip(sbert_cos, tfidf_cos, strict=True)]


def semantic_similarity(prompts: Sequence[str], captions: Sequence[str], *,
                        corpus: Sequence[str] | None = None, sbert_model: str | None = None,
                        device: str | None = None, batch_size: int = 32,
                        model_settings: ModelSettings | None = None) -> list[float]:
    """``S_T`` of each (prompt, caption) pair (Eq. 2), SBERT by default the packaged MiniLM."""
    if not prompts:
        return []
    dense = sbert(prompts, captions, model=sbert_model, device=device, batch_size=batch_size,
                  model_settings=model_settings)
    return semantic_from_cosines(dense, tfidf_cosines(prompts, captions, corpus))


def combine(s_i: Sequence[float | None], s_t: Sequence[float | None], alpha: float = ALPHA,
            beta: float = BETA) -> list[float | None]:
    """``alpha x S_I + beta x S_T``; a zero weight makes its term optional (None allowed)."""
    out: list[float | None] = []
    for si, st in zip(s_i, s_t, strict=True):
        parts = [(alpha, si), (beta, st)]
        if any(value is None and weight != 0 for weight, value in parts):
            out.append(None)
        else:
            out.append(sum(weight * value for weight, value in parts if weight != 0 and value is not None))
    return out


@dataclass(frozen=True)
class SvgaugeResult:
    """Per-pair SVGauge and its parts (``s_i`` None in the reference-free variant)."""

    score: list[float | None]
    s_i: list[float | None]
    s_t: list[float]
    captions: list[str]


def svgauge(prompts: Sequence[str], references: Sequence[Image] | None,
            generated: Sequence[Image], *, alpha: float = ALPHA, beta: float = BETA,
            corpus: Sequence[str] | None = None, encoder: str | None = None,
            encoder_path: str | None = None, projection_path: str | None = None,
            captioner: str | None = None, captioner_path: str | None = None,
            sbert_model: str | None = None, device: str | None = None,
            batch_size: int = 32, model_settings: ModelSettings | None = None) -> SvgaugeResult:
    """SVGauge of each generated render against its prompt and reference render (renders at the
    encoder's input size, on white: :func:`load_encoder` ``.input_size``). With ``alpha`` 0 no
    reference, encoder or projection is needed (reference-free). Range [-1, 1]; higher is
    better. Source: Zini et al. 2025, Sec. 3."""
    s_i: list[float | None] = [None] * len(generated)
    how = chosen(model_settings)
    if alpha != 0:
        if references is None:
            raise ValueError("reference renders are needed unless alpha is 0")
        load_projection_file(projection_path, how)
        enc = load_encoder(encoder, encoder_path, device, how)
        projection = load_projection(enc, projection_path)
        s_i = list(visual_similarity(references, generated, encoder=enc, projection=projection,
                                     batch_size=batch_size))
    captions = caption(generated, model=captioner, model_path=captioner_path, device=device,
                       batch_size=batch_size, model_settings=how)
    s_t = semantic_similarity(prompts, captions, corpus=corpus, sbert_model=sbert_model,
                              device=device, batch_size=batch_size, model_settings=how)
    return SvgaugeResult(combine(s_i, s_t, alpha, beta), s_i, s_t, captions)


def fit_on_renders(renders: Sequence[Image], *, encoder: str | None = None,
                   encoder_path: str | None = None, n_components: int = 128,
                   device: str | None = None, batch_size: int = 32,
                   model_settings: ModelSettings | None = None) -> Projection:
    """Fit the PCA whitening on renders (on white, at the encoder's input size) of a
    distribution of SVGs, recording the encoder and its probe fingerprint."""
    from svgeval.metrics.projection import fit_projection

    enc = load_encoder(encoder, encoder_path, device, model_settings)
    return fit_projection(
        enc.features(renders, batch_size), n_components=n_components, encoder=enc.name,
        probe=enc.features([probe_image(enc.input_size)])[0], render_size=enc.input_size)
