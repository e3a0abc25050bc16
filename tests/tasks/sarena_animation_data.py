"""A tiny ``SArena/animation/`` folder in the layout of the unzipped ``SArena.zip`` (InternSVG
README "SArena Benchmark"), written with the built-in sample's writer
(:func:`svgeval.builders.sarena.builtin.write_animation`): ShareGPT lines, ground-truth SVGs,
448 px videos in ``video/`` and 128 px videos in ``overall/``, drawn as the released
``utils/svg_animate.py`` draws them (Chromium, 150 frames at t = i / 30, moviepy's 149 of them
as H.264)."""

from __future__ import annotations

from pathlib import Path

from svgeval.builders.sarena.builtin import write_animation

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


def build_animation(root: Path, video_ids: tuple[int, ...] = (1, 2)) -> Path:
    """``root/animation/``: text2sani (all three), video2sani (``video_ids``); returns root."""
    return write_animation(root, {key: (svg, TEXT_PROMPT.format(TEXTS[key]))
                                  for key, svg in ANIMATIONS.items()}, video_ids, VIDEO_PROMPT)
