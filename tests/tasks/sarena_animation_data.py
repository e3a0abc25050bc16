"""A tiny ``SArena/animation/`` folder in the layout of the unzipped ``SArena.zip`` (InternSVG
README "SArena Benchmark"): ShareGPT lines, ground-truth SVGs, 448 px videos in ``video/`` and
128 px videos in ``overall/``, drawn as the released ``utils/svg_animate.py`` draws them
(Chromium, 150 frames at t = i / 30, moviepy's 149 of them as H.264)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from svgeval.svg.animation import AnimationSpec, BrowserRenderer
from svgeval.svg.video import encode_mp4, moviepy_frame_indices

NS = 'xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"'
ANIMATIONS = {
    1: f'<svg {NS}><rect width="20" height="20" fill="#d02020"><animate attributeName="x" '
       'from="0" to="80" dur="2s" repeatCount="indefinite"/></rect></svg>',
    2: f'<svg {NS}><style>@keyframes s {{ from {{ transform: scale(0.2) }} to {{ transform: '
       'scale(1) } } circle { animation: s 3s linear infinite; transform-origin: 50px 50px }'
       '</style><circle cx="50" cy="50" r="40" fill="#2040c0"/></svg>',
    3: f'<svg {NS}><rect x="30" y="30" width="40" height="40" fill="#20a040"><animate '
       'attributeName="fill" values="#20a040;#f0c000;#20a040" dur="4s" repeatCount="indefinite"/>'
       '</rect></svg>',
}
TEXTS = {1: "a red square sliding right", 2: "a blue circle growing",
         3: "a green square turning yellow and back"}
TEXT_PROMPT = ("Generate an animated SVG according to the following description. "
               "Instruction: {}")
VIDEO_PROMPT = "<video>\nWrite animated SVG code that reproduces this video."


def turns(prompt: str, answer: str) -> list[dict[str, str]]:
    return [{"from": "human", "value": prompt}, {"from": "gpt", "value": answer}]


def write_lines(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")


def released_video(renderer: BrowserRenderer, svg: str, size: int, path: Path) -> None:
    """``svg`` as the released renderer writes it: 150 frames, moviepy's 149, H.264."""
    frames = renderer.animate(svg, AnimationSpec(size, size)).frames
    assert frames is not None
    path.parent.mkdir(parents=True, exist_ok=True)
    encode_mp4(np.ascontiguousarray(frames[moviepy_frame_indices(len(frames))]), path)


def build_animation(root: Path, video_ids: tuple[int, ...] = (1, 2)) -> Path:
    """``root/animation/``: text2sani (all three), video2sani (``video_ids``); returns root."""
    folder = root / "animation"
    with BrowserRenderer(workers=1) as renderer:
        for key, svg in ANIMATIONS.items():
            (folder / "svg").mkdir(parents=True, exist_ok=True)
            (folder / "svg" / f"{key}.svg").write_text(svg, encoding="utf-8")
            released_video(renderer, svg, 128, folder / "overall" / f"{key}.mp4")
            if key in video_ids:
                released_video(renderer, svg, 448, folder / "video" / f"{key}.mp4")
    write_lines(folder / "text2sani.jsonl", [
        {"id": key, "conversations": turns(TEXT_PROMPT.format(TEXTS[key]), svg)}
        for key, svg in ANIMATIONS.items()])
    write_lines(folder / "video2sani.jsonl", [
        {"id": key, "video": f"video/{key}.mp4", "conversations": turns(VIDEO_PROMPT, svg)}
        for key, svg in ANIMATIONS.items() if key in video_ids])
    return root
