"""The I3D network of FVD (Carreira and Zisserman 2017; Unterthiner et al. 2019) in plain torch,
for :mod:`svgeval.metrics.video`.

FVD's I3D is Inception-v1 inflated to 3-D, trained on Kinetics-400. The checkpoint the video
metrics use, ``i3d_pretrained_400.pt`` (TATS' release, which cd-fvd 0.1.1 downloads and
InternSVG's FVD loads), is a state dict in the layout of the PyTorch port ``pytorch_i3d``:
``Conv3d_1a_7x7.conv3d.weight``, ``Conv3d_1a_7x7.bn.{weight, bias, running_mean,
running_var}``, ..., ``Mixed_3b.{b0, b1a, b1b, b2a, b2b, b3b}.conv3d.weight``, ...,
``logits.conv3d.{weight, bias}``. This module builds that network from the tables below.

Every unit is a bias-free 3-D convolution, batch norm (eps 1e-5) and ReLU, with TensorFlow's
"SAME" padding computed from the input size (total ``max(k - s, 0)`` when the size is a multiple
of the stride, else ``max(k - size mod s, 0)``, the smaller half in front); the max pools pad
the same way with zeros. After ``Mixed_5c``: average pool (2, 7, 7) with stride 1, the 1x1x1
``logits`` convolution (with bias, no norm or activation), squeezed and averaged over time:
the 400 Kinetics logits, which are FVD's features. For 16 frames at 224 x 224 the pooled map is
1 x 1 x 1. Tested against cd-fvd's ``InceptionI3d`` on shared random weights.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from svgeval.metrics import _models

CLASSES = 400
# (name, input channels, branch widths b0, b1a, b1b, b2a, b2b, b3b)
_MIXED = {
    "Mixed_3b": (192, (64, 96, 128, 16, 32, 32)),
    "Mixed_3c": (256, (128, 128, 192, 32, 96, 64)),
    "Mixed_4b": (480, (192, 96, 208, 16, 48, 64)),
    "Mixed_4c": (512, (160, 112, 224, 24, 64, 64)),
    "Mixed_4d": (512, (128, 128, 256, 24, 64, 64)),
    "Mixed_4e": (512, (112, 144, 288, 32, 64, 64)),
    "Mixed_4f": (528, (256, 160, 320, 32, 128, 128)),
    "Mixed_5b": (832, (256, 160, 320, 32, 128, 128)),
    "Mixed_5c": (832, (384, 192, 384, 48, 128, 128)),
}
# the network in order: a unit (in, out, kernel, stride), a max pool (kernel, stride), or a block
_STEPS: tuple[tuple[str, Any], ...] = (
    ("Conv3d_1a_7x7", (3, 64, (7, 7, 7), (2, 2, 2))),
    ("pool", ((1, 3, 3), (1, 2, 2))),
    ("Conv3d_2b_1x1", (64, 64, (1, 1, 1), (1, 1, 1))),
    ("Conv3d_2c_3x3", (64, 192, (3, 3, 3), (1, 1, 1))),
    ("pool", ((1, 3, 3), (1, 2, 2))),
    ("Mixed_3b", None), ("Mixed_3c", None),
    ("pool", ((3, 3, 3), (2, 2, 2))),
    ("Mixed_4b", None), ("Mixed_4c", None), ("Mixed_4d", None), ("Mixed_4e", None),
    ("Mixed_4f", None),
    ("pool", ((2, 2, 2), (2, 2, 2))),
    ("Mixed_5b", None), ("Mixed_5c", None),
)


def same_padding(size: int, kernel: int, stride: int) -> tuple[int, int]:
    """TensorFlow "SAME" padding (front, back) of one axis."""
    total = max(kernel - (stride if size % stride == 0 else size % stride), 0)
    return total // 2, total - total // 2


@functools.cache
def network_class() -> Any:
    """The ``InceptionI3D`` module class, defined on first use (importing svgeval imports no
    torch)."""
    torch = _models.require("torch")
    nn, fn = torch.nn, torch.nn.functional

    def pad(x: Any, kernel: tuple[int, ...], stride: tuple[int, ...]) -> Any:
        sizes = x.shape[2:]
        (t0, t1), (h0, h1), (w0, w1) = (same_padding(n, k, s)
                                        for n, k, s in zip(sizes, kernel, stride))
        return fn.pad(x, (w0, w1, h0, h1, t0, t1))

    class Unit(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self, cin: int, cout: int, kernel: tuple[int, int, int],
                     stride: tuple[int, int, int] = (1, 1, 1), head: bool = False) -> None:
            super().__init__()
            self.kernel, self.stride, self.head = kernel, stride, head
            self.conv3d = nn.Conv3d(cin, cout, kernel, stride=stride, bias=head)
            if not head:
                self.bn = nn.BatchNorm3d(cout, eps=1e-5, momentum=0.001)

        def forward(self, x: Any) -> Any:
            x = self.conv3d(pad(x, self.kernel, self.stride))
            return x if self.head else fn.relu(self.bn(x))

    def max_pool(x: Any, kernel: tuple[int, ...], stride: tuple[int, ...]) -> Any:
        return fn.max_pool3d(pad(x, kernel, stride), kernel, stride)

    class Mixed(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self, cin: int, widths: tuple[int, ...]) -> None:
            super().__init__()
            one, three = (1, 1, 1), (3, 3, 3)
            self.b0 = Unit(cin, widths[0], one)
            self.b1a, self.b1b = Unit(cin, widths[1], one), Unit(widths[1], widths[2], three)
            self.b2a, self.b2b = Unit(cin, widths[3], one), Unit(widths[3], widths[4], three)
            self.b3b = Unit(cin, widths[5], one)

        def forward(self, x: Any) -> Any:
            pooled = max_pool(x, (3, 3, 3), (1, 1, 1))
            return torch.cat([self.b0(x), self.b1b(self.b1a(x)), self.b2b(self.b2a(x)),
                              self.b3b(pooled)], dim=1)

    class InceptionI3D(nn.Module):  # type: ignore[misc,name-defined]
        """I3D; ``forward`` maps (N, 3, T, 224, 224) in [-1, 1] to the (N, 400) logits."""

        def __init__(self) -> None:
            super().__init__()
            for name, spec in _STEPS:
                if name.startswith("Conv3d"):
                    self.add_module(name, Unit(*spec))
                elif name in _MIXED:
                    self.add_module(name, Mixed(*_MIXED[name]))
            self.logits = Unit(1024, CLASSES, (1, 1, 1), head=True)

        def forward(self, x: Any) -> Any:
            for name, spec in _STEPS:
                x = max_pool(x, *spec) if name == "pool" else getattr(self, name)(x)
            x = self.logits(fn.avg_pool3d(x, (2, 7, 7), stride=1))
            return x.squeeze(4).squeeze(3).mean(dim=2)

    return InceptionI3D


def load_i3d(path: Path, device: str) -> Any:
    """The network with the weights of an ``i3d_pretrained_400.pt``-layout state dict file."""
    torch = _models.require("torch")
    state = torch.load(path, map_location="cpu", weights_only=True)
    state = state.get("state_dict", state)
    net = network_class()()
    missing, unexpected = net.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.endswith("num_batches_tracked")]
    if missing or unexpected:
        raise ValueError(f"{path.name} is not an I3D (pytorch_i3d layout) state dict: missing "
                         f"{missing[:3]}, unexpected {unexpected[:3]}")
    return net.to(device).eval()
