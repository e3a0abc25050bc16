"""ViCLIP (``svgeval.metrics.viclip``) on a tiny random checkpoint in the released layout
(``tests/support/tiny_viclip.py``): loading, the numbers of InternSVG's released ViCLIP code, and what
the architecture implies.

Released numbers: InternSVG 77a891e's ``metrics/video/CLIP_video.py`` (``ViCLIPCalculator``
``calculate_score`` for T2V and V2V, ``frames2tensor``, ``get_vid_feat``) and
``metrics/video/viclip/*`` (``ViCLIP``, loading the tiny ``.pth`` strictly, its own
``CLIP_TEXT.tokenize``), unmodified, on the three videos of :func:`tiny_viclip.sample_videos`
written as lossless FFV1 files and read back by its ``sample_frames_from_video``; its
``VisionTransformer`` and ``CLIP_TEXT`` built at the tiny sizes (its ``clip_joint_l14`` and
``clip_text_l14`` hard-code L/14), its ``SimpleTokenizer`` given the tiny vocabulary, timm's
``DropPath`` (the identity in eval mode) stubbed because timm's torchvision import does not load
with this CPU torch: ``tests/upstream/viclip.py`` (``PYTHONPATH=tests python -m upstream.viclip``,
in the test environment with einops and ftfy from ``.venv/ref-packages``; torch 2.13.0+cpu,
OpenCV 5.1.0, NumPy 2.4.6) runs it and prints the constants below, bit for bit when last run.
On the real vocabulary the release ships (``metrics/video/viclip/bpe_simple_vocab_16e6.txt.gz``)
the same script compares its ``SimpleTokenizer.encode`` with svgeval's tokenizer on the five
mixed captions of ``support.tiny_viclip.MIXED_CAPTIONS`` (accents, CJK, an emoji, curly quotes,
entities, SVG code): the same ids for each when last run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("cv2")
pytest.importorskip("ftfy")

from support.tiny_viclip import CAPTIONS, sample_videos, save_tiny_viclip, tiny_viclip_state

from svgeval.metrics import _models, viclip
from svgeval.metrics.model_settings import ModelSettings
from svgeval.metrics.registry import MetricUnavailable

RELEASED_T2V = [24.25046730041504, 20.922067642211914, 1.1379239559173584]
RELEASED_V2V = [100.00001525878906, 76.39823913574219, 76.39823913574219, 84.4692611694336]
"""(0, 0), (1, 2), (2, 1), (0, 1) of the sample videos."""
RELEASED_TOKENS = [
    [587, 320, 513, 518, 524, 528, 588],
    [587, 320, 564, 566, 261, 320, 262, 70, 512, 68, 333, 262, 536, 267, 571, 575, 580, 582, 586,
     256, 588],
    [587, 582, 80, 84, 72, 66, 330, 65, 81, 78, 86, 333, 69, 78, 343, 73, 84, 76, 79, 338, 78, 85,
     68, 337, 582, 75, 64, 89, 344, 565, 326, 588],
]
RELEASED_FEATURE0 = [0.04527539759874344, -0.3614561855792999, -0.09425553679466248,
                     0.24519570171833038, -0.22079819440841675, 0.2441280484199524,
                     -0.02828674577176571, -0.15972472727298737, 0.18548262119293213,
                     -0.19769085943698883, -0.14131610095500946, 0.274138480424881,
                     -0.4818721413612366, -0.3518655598163605, 0.2414105385541916,
                     -0.2841395139694214]


@pytest.fixture()
def loaded(tiny_viclip_dir: Path) -> viclip.ViCLIP:
    return viclip.viclip_model(model_path=str(tiny_viclip_dir), device="cpu")


def test_the_released_code_gives_the_same_numbers(tiny_viclip_dir: Path,
                                                  loaded: viclip.ViCLIP) -> None:
    videos = sample_videos()
    kw = {"model_path": str(tiny_viclip_dir), "device": "cpu"}
    assert viclip.viclip_t2v(videos, list(CAPTIONS), **kw) == pytest.approx(RELEASED_T2V, abs=1e-4)
    pairs = [(0, 0), (1, 2), (2, 1), (0, 1)]
    v2v = viclip.viclip_v2v([videos[a] for a, _ in pairs], [videos[b] for _, b in pairs], **kw)
    assert v2v == pytest.approx(RELEASED_V2V, abs=1e-4)
    ids = viclip.token_ids(loaded.tokenizer, list(CAPTIONS))
    assert [row[row.nonzero()].flatten().tolist() for row in ids] == RELEASED_TOKENS
    assert ids.shape == (3, 32) and ids[2, -1] == 588  # cut to 32, the end token kept last
    feature = viclip.video_embeddings(loaded, videos[:1])[0].tolist()
    assert feature == pytest.approx(RELEASED_FEATURE0, abs=1e-5)


def test_what_the_architecture_implies(loaded: viclip.ViCLIP, tiny_viclip_dir: Path) -> None:
    videos = sample_videos()
    kw = {"model_path": str(tiny_viclip_dir), "device": "cpu"}
    same = viclip.viclip_v2v(videos, videos, **kw)
    assert same == pytest.approx([100.0] * 3, abs=1e-4)
    forth = viclip.viclip_v2v(videos[:2], videos[1:], **kw)
    back = viclip.viclip_v2v(videos[1:], videos[:2], **kw)
    assert forth == pytest.approx(back, abs=1e-5)  # symmetric
    # the per-frame embeddings make frame order matter: the ramp played backwards differs ...
    ramp = videos[1][np.linspace(0, 29, 8, dtype=int)]  # 8 frames: all of them are read
    reversed_ramp = ramp[::-1].copy()
    assert viclip.viclip_v2v([ramp], [reversed_ramp], **kw)[0] < 99.9
    # ... and with them zeroed the video is a bag of frames: order no longer matters
    flat = viclip.ViCLIP(loaded.clip, loaded.temporal * 0, loaded.tokenizer, "cpu")
    a, b = viclip.video_embeddings(flat, [ramp, reversed_ramp])
    assert float((a * b).sum()) == pytest.approx(1.0, abs=1e-5)
    # a constant-per-frame table is the same shift for every token: also order-free
    shifted = viclip.ViCLIP(loaded.clip, loaded.temporal[:, :1].expand_as(loaded.temporal),
                            loaded.tokenizer, "cpu")
    a, b = viclip.video_embeddings(shifted, [ramp, reversed_ramp])
    assert float((a * b).sum()) == pytest.approx(1.0, abs=1e-5)


def test_batches_and_precision_do_not_change_the_values(tiny_viclip_dir: Path) -> None:
    videos = sample_videos()
    kw = {"model_path": str(tiny_viclip_dir), "device": "cpu"}
    one = viclip.viclip_t2v(videos, list(CAPTIONS), batch_size=1, **kw)
    assert one == pytest.approx(RELEASED_T2V, abs=1e-4)
    low = viclip.viclip_t2v(videos, list(CAPTIONS), model_settings=ModelSettings("bf16"), **kw)
    assert low != pytest.approx(RELEASED_T2V, abs=1e-6)  # autocast did run in bfloat16
    assert low == pytest.approx(RELEASED_T2V, abs=3.0)


def test_loads_from_a_folder_or_the_file_and_a_wrong_checkpoint_fails_with_one_line(
    tiny_viclip_dir: Path, tmp_path: Path
) -> None:
    import torch

    videos = sample_videos()[:1]
    by_file = viclip.viclip_t2v(videos, CAPTIONS[:1], device="cpu",
                                model_path=str(tiny_viclip_dir / viclip.CHECKPOINT))
    assert by_file == pytest.approx(RELEASED_T2V[:1], abs=1e-4)
    state = tiny_viclip_state(589)
    del state["vision_encoder.temporal_positional_embedding"]
    state["vision_encoder.extra"] = torch.zeros(1)
    wrong = save_tiny_viclip(tmp_path / "wrong")
    torch.save({"model": state}, wrong / viclip.CHECKPOINT)
    clip_like = save_tiny_viclip(tmp_path / "clip")
    torch.save({k.replace("vision_encoder.", "visual."): v for k, v in tiny_viclip_state(589).items()},
               clip_like / viclip.CHECKPOINT)
    no_vocabulary = tmp_path / "alone"
    no_vocabulary.mkdir()
    (no_vocabulary / viclip.CHECKPOINT).write_bytes((tiny_viclip_dir / viclip.CHECKPOINT).read_bytes())
    _models.clear_cache()
    for folder, says in ((wrong, ("missing ['vision_encoder.temporal_positional_embedding'], "
                                  "unexpected ['vision_encoder.extra']")),
                         (clip_like, "is not a ViCLIP checkpoint (InternVid layout)"),
                         (no_vocabulary, viclip.VOCABULARY),
                         (tmp_path / "nowhere", "no such file or directory")):
        with pytest.raises(MetricUnavailable) as error:
            viclip.viclip_t2v(videos, CAPTIONS[:1], model_path=str(folder), device="cpu")
        message = str(error.value)
        assert "\n" not in message and says in message and "viclip" in message, message


def test_preprocessing_is_frames2tensor() -> None:
    import cv2

    video = sample_videos()[2]
    pixels = viclip.video_pixels(video, size=28)
    assert pixels.shape == (8, 3, 28, 28) and pixels.dtype == np.float32
    frame = video[np.linspace(0, 29, 8, dtype=int)[3]]
    by_hand = (cv2.resize(frame, (28, 28)) / 255.0 - [0.485, 0.456, 0.406]) / [0.229, 0.224, 0.225]
    assert np.allclose(pixels[3], by_hand.transpose(2, 0, 1), atol=1e-6)
    assert viclip.clean_caption("  A&amp;amp;B\u2019s  \n Cat ") == "a&b's cat"
