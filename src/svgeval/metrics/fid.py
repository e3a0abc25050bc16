"""Set-level metrics: FID and CLIP-FID between the renders of two sets of SVGs.

Both fit a Gaussian to each set's features and report the Fréchet distance between the two
(Heusel et al., 2017)::

    d^2 = ||mu_1 - mu_2||^2 + Tr(S_1 + S_2 - 2 (S_1 S_2)^(1/2))

with ``mu`` the feature mean and ``S`` the sample covariance (``np.cov``, N - 1 in the
denominator). ``(S_1 S_2)^(1/2)`` is ``scipy.linalg.sqrtm``; as pytorch-fid and clean-fid do, a
non-finite root is retried with 1e-6 added to both diagonals, and a complex root whose diagonal
has imaginary parts below 1e-3 (rounding noise) is replaced by its real part (larger ones raise
ValueError). Lower is better; 0 for two sets with the same statistics. When a set has fewer
samples than feature dimensions, :func:`fid_from_features` computes the same trace exactly from
the features (a nuclear norm) instead of ``sqrtm`` (``method=`` chooses).

FID (``fid``): 2048-d pool3 features of the TF Inception v3 (pytorch-fid's
``pt_inception-2015-12-05-6726825d.pth``, run by our plain-torch port in
:mod:`svgeval.metrics._inception`). How a render reaches the network's 299 x 299 input
(``resize=``, default from the preset):

- ``pytorch-fid``: pixels / 255, ``torch.nn.functional.interpolate`` bilinear without
  antialiasing (``align_corners=False``), then ``2x - 1``. pytorch-fid's ``InceptionV3``
  defaults, used by StarVector's and SVGenius' released ``compute_fid.py`` (``ToTensor`` then
  the network).
- ``clean``: clean-fid's ``mode="clean"``: each channel resized as 32-bit floats by PIL's
  bicubic filter (antialiased), clipped to [0, 255], then ``(x - 128) / 128``. clean-fid runs
  NVIDIA's TorchScript port of the same TF graph (``inception-2015-12-05.pt``) rather than
  pytorch-fid's weights, so its numbers may differ from ours in the last digits.
- ``tf1``: torch-fidelity's (and torchmetrics') TF 1.x bilinear resize (sample ``i`` reads
  source position ``i * in / out``, no half-pixel offset, edge clamped) of 0-255 floats, then
  ``(x - 128) / 128``.

CLIP-FID (``clip_fid``): the same distance on raw (not L2-normalised) CLIP image embeddings,
``visual_projection(pooled output)`` after CLIP's own preprocessing (resize the short side to
224 bicubic, centre crop, OpenAI mean/std): clean-fid's ``model_name="clip_vit_b_32"`` and
StarVector's ``FIDCalculator("ViT-B/32")``, both ``encode_image`` of OpenAI's ViT-B/32.
StarVector runs CLIP in fp16 on CUDA; we use float32.

Images are (H, W, 3|4) uint8 or [0, 1] float arrays; RGBA is composited over white. A set needs
at least 2 images; with fewer images than feature dimensions the covariances are singular and
the estimate is biased upwards (compare FIDs only over sets of the same size).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics import _inception, _models
from svgeval.metrics.clip import clip_model, image_embeddings
from svgeval.metrics.presets import DEFAULT, MetricPreset, get_preset
from svgeval.metrics.registry import MetricInfo, describe_metric

Image = NDArray[np.generic]
Features = NDArray[np.float64]
RESIZE_MODES = ("pytorch-fid", "clean", "tf1")
INPUT_SIZE = 299

for _info in (
    MetricInfo(
        name="fid",
        summary="Fréchet distance of Gaussians fitted to Inception v3 pool3 features of the "
        "output renders and the reference renders (one number per set)",
        value_range="[0, inf)",
        higher_is_better=False,
        source="Heusel et al. 2017; pytorch-fid weights and resizing as StarVector/SVGenius "
        "compute_fid.py (clean-fid and torch-fidelity resizing selectable)",
    ),
    MetricInfo(
        name="clip_fid",
        summary="Fréchet distance of Gaussians fitted to raw CLIP ViT-B/32 image embeddings of "
        "the output renders and the reference renders (one number per set)",
        value_range="[0, inf)",
        higher_is_better=False,
        source="Kynkäänniemi et al. 2023; clean-fid model_name='clip_vit_b_32'; StarVector "
        "FIDCalculator('ViT-B/32')",
    ),
):
    describe_metric(_info)


def frechet_distance(mu1: NDArray[np.floating[Any]], sigma1: NDArray[np.floating[Any]],
                     mu2: NDArray[np.floating[Any]], sigma2: NDArray[np.floating[Any]],
                     eps: float = 1e-6) -> float:
    """``||mu1 - mu2||^2 + Tr(S1 + S2 - 2 sqrtm(S1 S2))`` of two Gaussians, in float64.

    A non-finite ``sqrtm`` is retried with ``eps`` added to both diagonals; a complex root is
    replaced by its real part when its diagonal's imaginary parts are below 1e-3, else
    ValueError (pytorch-fid's and clean-fid's handling).
    """
    from scipy import linalg

    m1, m2 = np.atleast_1d(np.asarray(mu1, np.float64)), np.atleast_1d(np.asarray(mu2, np.float64))
    s1, s2 = np.atleast_2d(np.asarray(sigma1, np.float64)), np.atleast_2d(np.asarray(sigma2, np.float64))
    if m1.shape != m2.shape or s1.shape != s2.shape or s1.shape != (m1.size, m1.size):
        raise ValueError(f"mismatched statistics: means {m1.shape}, {m2.shape}; "
                         f"covariances {s1.shape}, {s2.shape}")
    root = linalg.sqrtm(s1 @ s2)
    if not np.isfinite(root).all():
        offset = np.eye(m1.size) * eps
        root = linalg.sqrtm((s1 + offset) @ (s2 + offset))
    if np.iscomplexobj(root):
        worst = float(np.max(np.abs(np.diagonal(root).imag)))
        if worst > 1e-3:
            raise ValueError(f"sqrtm(S1 S2) has an imaginary component of {worst:.3g} on its "
                             "diagonal: the covariances are too ill-conditioned")
        root = root.real
    diff = m1 - m2
    return float(diff @ diff + np.trace(s1) + np.trace(s2) - 2.0 * np.trace(root))


def feature_statistics(features: NDArray[np.floating[Any]]) -> tuple[Features, Features]:
    """Mean (D,) and sample covariance (D, D) of (N, D) features, N >= 2, in float64."""
    feats = np.asarray(features, np.float64)
    if feats.ndim != 2 or feats.shape[0] < 2:
        raise ValueError(f"need an (N, D) feature array with N >= 2, got shape {feats.shape}")
    return feats.mean(axis=0), np.cov(feats, rowvar=False)


def fid_from_features(features_a: NDArray[np.floating[Any]],
                      features_b: NDArray[np.floating[Any]], *, method: str = "auto") -> float:
    """Fréchet distance between Gaussians fitted to two (N, D) feature sets.

    ``method="sqrtm"``: :func:`frechet_distance` of the two sets' statistics (scipy ``sqrtm`` of
    a D x D product, as the reference implementations; 20-40 s for D = 2048 on two CPU
    cores). ``"low-rank"``: the same quantity from the centred features A (n_a x D) and B:
    ``S_a S_b = A^T (A B^T B) / c`` with ``c = (n_a - 1)(n_b - 1)`` has the nonzero
    eigenvalues of ``(A B^T)(A B^T)^T / c``, so ``Tr((S_a S_b)^(1/2))`` is the nuclear norm of
    ``A B^T`` over ``sqrt(c)``: exact, and under a second when a set is smaller than D (where
    ``sqrtm`` of the singular product is also least accurate). ``"auto"`` (default):
    ``low-rank`` when a set has fewer than D samples, else ``sqrtm``.
    """
    a, b = np.asarray(features_a, np.float64), np.asarray(features_b, np.float64)
    if method not in ("auto", "sqrtm", "low-rank"):
        raise ValueError(f"method must be auto, sqrtm or low-rank, not {method!r}")
    for feats in (a, b):
        if feats.ndim != 2 or feats.shape[0] < 2:
            raise ValueError(f"need (N, D) feature arrays with N >= 2, got shape {feats.shape}")
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"mismatched feature sizes {a.shape} and {b.shape}")
    if method == "sqrtm" or (method == "auto" and min(len(a), len(b)) >= a.shape[1]):
        return frechet_distance(*feature_statistics(a), *feature_statistics(b))
    mu_a, mu_b = a.mean(axis=0), b.mean(axis=0)
    centred_a, centred_b = a - mu_a, b - mu_b
    trace_a = np.sum(centred_a**2) / (len(a) - 1)  # Tr(S_a), without forming S_a
    trace_b = np.sum(centred_b**2) / (len(b) - 1)
    scale = np.sqrt((len(a) - 1) * (len(b) - 1))
    trace_root = np.linalg.svd(centred_a @ centred_b.T, compute_uv=False).sum() / scale
    diff = mu_a - mu_b
    return float(diff @ diff + trace_a + trace_b - 2.0 * trace_root)


def _tf1_bilinear_matrix(n_in: int, n_out: int) -> NDArray[np.float32]:
    """(n_out, n_in) weights of TF 1.x ``resize_bilinear`` (align_corners=False, no half-pixel
    centres) along one axis; positions computed in float32 as TF does."""
    pos = np.arange(n_out, dtype=np.float32) * np.float32(n_in / n_out)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, n_in - 1)
    frac = pos - lo.astype(np.float32)
    weights = np.zeros((n_out, n_in), np.float32)
    np.add.at(weights, (np.arange(n_out), lo), 1.0 - frac)
    np.add.at(weights, (np.arange(n_out), hi), frac)
    return weights


def inception_input(image: Image, resize: str) -> NDArray[np.float32]:
    """One render as the (3, 299, 299) float32 input of the FID Inception, in [-1, 1]."""
    rgb = _models.as_rgb_uint8(image)
    h, w = rgb.shape[:2]
    if resize == "pytorch-fid":
        torch = _models.require("torch")
        x = torch.from_numpy(rgb.transpose(2, 0, 1).astype(np.float32) / 255.0)[None]
        if (h, w) != (INPUT_SIZE, INPUT_SIZE):
            x = torch.nn.functional.interpolate(x, size=(INPUT_SIZE, INPUT_SIZE), mode="bilinear",
                                                align_corners=False)
        return np.asarray(2.0 * x[0].numpy() - 1.0, np.float32)
    if resize == "clean":
        from PIL import Image as PILImage

        channels = []
        for c in range(3):
            plane = PILImage.fromarray(rgb[:, :, c].astype(np.float32), mode="F")
            plane = plane.resize((INPUT_SIZE, INPUT_SIZE), resample=PILImage.Resampling.BICUBIC)
            channels.append(np.clip(np.asarray(plane, np.float32), 0.0, 255.0))
        pixels = np.stack(channels)
    elif resize == "tf1":
        planes = rgb.transpose(2, 0, 1).astype(np.float32)
        pixels = _tf1_bilinear_matrix(h, INPUT_SIZE) @ planes @ _tf1_bilinear_matrix(w, INPUT_SIZE).T
    else:
        raise ValueError(f"resize must be one of {', '.join(RESIZE_MODES)}, not {resize!r}")
    return np.asarray((pixels - 128.0) / 128.0, np.float32)


def inception_features(
    images: Sequence[Image],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    resize: str | None = None,
    device: str | None = None,
    batch_size: int = 32,
) -> Features:
    """(N, 2048) FID Inception pool3 features of ``images`` (float64), ``batch_size`` at a time.

    Weights (``model``, default the preset's ``pt_inception-2015-12-05-6726825d.pth``): a file,
    a directory holding it, ``SVGEVAL_FID_MODEL``, ``$SVGEVAL_MODEL_DIR/<file>``, the torch hub
    cache where pytorch-fid and torchmetrics download it, or a hub repo ``org/name[/file]``.
    """
    torch = _models.require("torch")
    settings = get_preset(preset)
    mode = resize or settings.fid_resize
    if mode not in RESIZE_MODES:
        raise ValueError(f"resize must be one of {', '.join(RESIZE_MODES)}, not {mode!r}")
    name = model or settings.fid_model
    dev = _models.pick_device(device)
    net = _models.load_first(
        "fid", f"the FID Inception v3 weights ({name})", name, model_path,
        lambda src: _inception.load_inception(_models.resolve_file(src, settings.fid_model), dev),
        (dev,))
    out = []
    for chunk in _models.batches(list(images), batch_size):
        batch = torch.from_numpy(np.stack([inception_input(i, mode) for i in chunk])).to(dev)
        with _models.inference(dev):
            out.append(net(batch).double().cpu().numpy())
    return np.concatenate(out) if out else np.zeros((0, _inception.FEATURES))


def clip_features(
    images: Sequence[Image],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    device: str | None = None,
    batch_size: int = 32,
) -> Features:
    """(N, D) raw CLIP image embeddings (float64) for CLIP-FID; D = 512 for ViT-B/32. The model
    (default the preset's ``clip_fid_model``) loads like ``clip_score``'s and is shared with it."""
    loaded = clip_model(preset, model or get_preset(preset).clip_fid_model, model_path, device,
                        name="clip_fid")
    if not images:
        return np.zeros((0, 0))
    emb = image_embeddings(loaded, images, batch_size, normalize=False)
    return np.asarray(emb.double().cpu().numpy(), np.float64)


def fid(
    references: Sequence[Image],
    generated: Sequence[Image],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    resize: str | None = None,
    device: str | None = None,
    batch_size: int = 32,
    method: str = "auto",
) -> float:
    """FID between two sets of renders (symmetric; the sets may differ in size, each >= 2).

    See the module docstring for the formula, the features and ``resize``; ``method``: see
    :func:`fid_from_features`. Range [0, inf); lower is better.
    """
    kw: dict[str, Any] = {"preset": preset, "model": model, "model_path": model_path,
                          "resize": resize, "device": device, "batch_size": batch_size}
    _check_sizes(references, generated)
    return fid_from_features(inception_features(references, **kw),
                             inception_features(generated, **kw), method=method)


def clip_fid(
    references: Sequence[Image],
    generated: Sequence[Image],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    device: str | None = None,
    batch_size: int = 32,
    method: str = "auto",
) -> float:
    """CLIP-FID between two sets of renders: the Fréchet distance of raw CLIP ViT-B/32 image
    embeddings (clean-fid ``clip_vit_b_32``); ``method``: see :func:`fid_from_features`.
    Range [0, inf); lower is better."""
    kw: dict[str, Any] = {"preset": preset, "model": model, "model_path": model_path,
                          "device": device, "batch_size": batch_size}
    _check_sizes(references, generated)
    return fid_from_features(clip_features(references, **kw), clip_features(generated, **kw),
                             method=method)


def _check_sizes(references: Sequence[Image], generated: Sequence[Image]) -> None:
    if len(references) < 2 or len(generated) < 2:
        raise ValueError(f"FID needs at least 2 images per set, got {len(references)} references "
                         f"and {len(generated)} generated")
