"""ViCLIP numbers of InternSVG's released video code on the tiny checkpoint the tests rebuild.

Runs, from hmwang2002/InternSVG at ``77a891e`` unmodified, ``metrics/video/CLIP_video.py``'s
``ViCLIPCalculator.calculate_score`` for text-to-video and video-to-video (``get_clip``, its
``sample_frames_from_video``, ``frames2tensor`` and ``get_vid_features``) and the ``ViCLIP``
model of ``metrics/video/viclip/*`` loading the tiny ``.pth`` strictly, on the checkpoint and
vocabulary of ``support.tiny_viclip.save_tiny_viclip`` and its three ``sample_videos`` written
as lossless FFV1 files. Prints ``RELEASED_T2V`` (video ``i`` against ``CAPTIONS[i]``),
``RELEASED_V2V`` (the pairs (0, 0), (1, 2), (2, 1), (0, 1)), ``RELEASED_TOKENS`` (the non-zero
ids of the text encoder's ``tokenize`` at the model's 32 positions) and ``RELEASED_FEATURE0``
(``get_vid_features`` of video 0) of ``tests/metrics/test_viclip.py``. With the real vocabulary
the release ships (``metrics/video/viclip/bpe_simple_vocab_16e6.txt.gz``) it also prints
``REAL_VOCABULARY_IDS``, the release's ``SimpleTokenizer().encode`` of each
``support.tiny_viclip.MIXED_CAPTIONS``, and ``REAL_VOCABULARY_SAME_IDS``: whether svgeval's
tokenizer (``svgeval.metrics.viclip``: ``bpe_tokenizer`` of that file, ``clean_caption``) gives
the same ids for each.

The release builds its towers at the sizes of ViT-L/14 (``clip_joint_l14``, ``clip_text_l14``);
here the ``viclip`` module's two builders are replaced by ones that build the same classes
(``VisionTransformer``, ``CLIP_TEXT``) with the release's other arguments at the tiny sizes of
``support.tiny_viclip`` (64-wide vision at 28 px, 32-wide text; one head each, 64-wide heads as
CLIP's), the calculator draws frames at 28 px (``target_size``), and the text encoder's
``SimpleTokenizer`` reads the tiny vocabulary. Runs in svgeval's test environment with the
upstream packages of ``.venv/ref-packages`` (einops, ftfy; ``checkout.reference_packages``).
Stand-ins (``checkout.stand_in_modules``): ``timm``'s ``DropPath`` (the identity: the towers are
in eval mode) and ``register_model`` (timm's import of torchvision fails beside this CPU torch),
``pkg_resources`` (only its ``packaging``, the real package) and
``checkout.CLIP_METRIC_STAND_INS`` (the image metrics ``metrics/metrics.py`` imports).

    PYTHONPATH=tests python -m upstream.viclip [--source GIT_REPO | --checkout DIR]
"""

from __future__ import annotations

import contextlib
import functools
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import cv2
import packaging
import packaging.version
import torch
from support.tiny_viclip import (
    CAPTIONS,
    EMBED,
    MIXED_CAPTIONS,
    TEXT,
    VISION,
    sample_videos,
    save_tiny_viclip,
)

from upstream import checkout

RELEASE = checkout.Release("hmwang2002/InternSVG", "77a891ea781f005a258b338739575f7db76f5f1b")
PAIRS = ((0, 0), (1, 2), (2, 1), (0, 1))
SIZE = VISION["grid"] * VISION["patch"]


class _DropPath(torch.nn.Identity):
    """timm's ``DropPath`` in eval mode."""

    def __init__(self, drop_prob: float = 0.0) -> None:
        super().__init__()


def write_video(frames: Any, path: Path) -> str:
    """``frames`` (T, H, W, 3) RGB as a lossless FFV1 file (BGR, as OpenCV writes)."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"FFV1"), 10,
                             (frames.shape[2], frames.shape[1]))
    for frame in frames:
        writer.write(frame[:, :, ::-1].copy())
    writer.release()
    return str(path)


def importable(root: Path) -> None:
    """Make the release's ``metrics.video`` modules importable from ``root``: the upstream
    packages of ``.venv/ref-packages`` and the stand-ins of the module docstring."""
    checkout.reference_packages()
    checkout.stand_in_modules({
        **checkout.CLIP_METRIC_STAND_INS,
        "timm": {}, "timm.models": {},
        "timm.models.layers": {"DropPath": _DropPath},
        "timm.models.registry": {"register_model": lambda function: function},
        "pkg_resources": {"packaging": packaging},
    })
    sys.path.insert(0, str(root))


def tiny_towers(viclip: Any, vision: Any, text: Any, vocab: int) -> None:
    """Make ``ViCLIP`` build its towers at the tiny sizes, the release's other arguments kept."""

    def vision_tower(pretrained: bool = False, input_resolution: int = 224,
                     center: bool = True, **options: Any) -> Any:
        # as clip_joint_l14: the resolution and centring only matter for pretrained weights
        return vision.VisionTransformer(input_resolution=SIZE, patch_size=VISION["patch"],
                                        width=VISION["width"], layers=VISION["layers"], heads=1,
                                        output_dim=EMBED, **options).eval()

    def text_tower(pretrained: bool = False, **options: Any) -> Any:
        return text.CLIP_TEXT(EMBED, options["context_length"], vocab, TEXT["width"], 1,
                              TEXT["layers"], options["checkpoint_num"]).eval()

    viclip.clip_joint_l14, viclip.clip_text_l14 = vision_tower, text_tower


def released_numbers(folder: Path, videos: list[str]) -> dict[str, Any]:
    """The four constants, from the release's calculator and model on ``folder``'s checkpoint."""
    from metrics.video import CLIP_video
    from metrics.video.viclip import simple_tokenizer, viclip, viclip_text, viclip_vision

    vocabulary = folder / "bpe_simple_vocab_16e6.txt.gz"
    tokenizer = functools.partial(simple_tokenizer.SimpleTokenizer, bpe_path=str(vocabulary))
    viclip_text._Tokenizer = CLIP_video._Tokenizer = tokenizer
    tiny_towers(viclip, viclip_vision, viclip_text, len(tokenizer().encoder))
    checkpoint = str(folder / "ViClip-InternVid-10M-FLT.pth")
    calculators = {task: CLIP_video.ViCLIPCalculator(ckpt_path=checkpoint, task_type=task,
                                                     target_size=(SIZE, SIZE))
                   for task in ("T2V", "V2V")}
    _, t2v = calculators["T2V"].calculate_score({"pred_video": videos,
                                                 "caption": list(CAPTIONS)})
    _, v2v = calculators["V2V"].calculate_score({"pred_video": [videos[a] for a, _ in PAIRS],
                                                 "gt_video": [videos[b] for _, b in PAIRS]})
    model = calculators["T2V"].clip
    ids = model.text_encoder.tokenize(list(CAPTIONS), context_length=model.max_txt_l)
    frames = CLIP_video.sample_frames_from_video(videos[0], num_samples=8)
    feature = CLIP_video.get_vid_feat(CLIP_video.frames2tensor(
        frames, fnum=8, target_size=(SIZE, SIZE), device=torch.device("cpu")), model)
    return {"RELEASED_T2V": t2v, "RELEASED_V2V": v2v,
            "RELEASED_TOKENS": [row[row.nonzero()].flatten().tolist() for row in ids],
            "RELEASED_FEATURE0": feature[0].tolist()}


def real_vocabulary(root: Path) -> dict[str, Any]:
    """The release's and svgeval's ids of ``MIXED_CAPTIONS`` with the vocabulary the release
    ships."""
    from metrics.video.viclip.simple_tokenizer import SimpleTokenizer

    from svgeval.metrics.viclip import VOCABULARY, bpe_tokenizer, clean_caption

    path = root / "metrics" / "video" / "viclip" / VOCABULARY
    released = [SimpleTokenizer(bpe_path=str(path)).encode(text) for text in MIXED_CAPTIONS]
    ours = bpe_tokenizer(path)
    same = [ids == ours.encode(clean_caption(text), add_special_tokens=False).ids
            for ids, text in zip(released, MIXED_CAPTIONS)]
    return {"REAL_VOCABULARY_IDS": released, "REAL_VOCABULARY_SAME_IDS": same}


def main() -> None:
    root = checkout.from_command_line(RELEASE, __doc__)
    importable(root)
    with tempfile.TemporaryDirectory() as work, contextlib.redirect_stdout(sys.stderr):
        folder = save_tiny_viclip(Path(work) / "tiny_viclip")
        videos = [write_video(frames, Path(work) / f"video{i}.avi")
                  for i, frames in enumerate(sample_videos())]
        values = {**released_numbers(folder, videos), **real_vocabulary(root)}
    print(json.dumps(values, indent=1))


if __name__ == "__main__":
    main()
