"""MMSVGBench's built-in sample: the bench's parquet files, drawn from svgeval's demo icons.

Two files under ``data/``, named so the loader finds their task: ``text2svg-00000-of-00001.parquet``
(``text``, ``type``, ``svg``), three icons and three illustrations to draw from a prompt, and
``image2svg-00000-of-00001.parquet`` (``image`` as an HF ``Image`` struct, ``type``, ``svg``),
two of each to redraw from a picture. An icon is one of svgeval's demo icons
(:mod:`svgeval.svg.demo_corpus`); an illustration is a scene of several placed on a background
drawn here. The prompts are svgeval's own. The ``svg`` column (the MMSVG datasets' schema) is
what the oracle answers; the pictures are those SVGs rendered on white at :data:`PICTURE_SIZE`,
the tasks' render size, so an answer's render is compared with a picture of its own size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from svgeval.messages import png_bytes
from svgeval.render.cairo import RenderSpec, render_svg_uint8
from svgeval.svg.demo_corpus import DEMO_ICONS, demo_svg
from svgeval.tasks.builtin import BUILTIN_SAMPLES, BuiltinSample
from svgeval.tasks.mmsvgbench.tasks import MMSVGBenchOptions

TEXT_FILE = "text2svg-00000-of-00001.parquet"
IMAGE_FILE = "image2svg-00000-of-00001.parquet"
PICTURE_SIZE = MMSVGBenchOptions.render_size
"""The side of the image-to-SVG pictures: the tasks' default render size (1024 px)."""
SIDE = 72
"""The side of an illustration's ``viewBox``."""
NIGHT = '<rect width="72" height="72" fill="#1C2A4A"/>'
"""A dark night sky (an illustration's background)."""
SKY = ('<rect width="72" height="72" fill="#BDE3F8"/>'
       '<rect y="54" width="72" height="18" fill="#A6D388"/>')
"""A pale blue sky over a strip of grass."""
SEA = f'{NIGHT}<rect y="40" width="72" height="32" fill="#2E8B87"/>'
"""The night sky over the sea."""
Placed = tuple[str, float, float, float]
"""A demo icon in an illustration: its name, the x and y of its top-left corner and its side."""
TEXT: Mapping[str, Sequence[tuple[str, str | tuple[str, Sequence[Placed]]]]] = {
    "icon": (
        ("An orange five-pointed star with a pale yellow disc in its centre.", "star"),
        ("A red heart with a small pink highlight on its upper left.", "heart"),
        ("A dark traffic light with red, yellow and green lights from top to bottom.",
         "traffic light"),
    ),
    "illustration": (
        (("A red-roofed house beside a green tree under a bright sun, on grass below a pale "
          "blue sky."), (SKY, (("sun", 48, 2, 22), ("house", 6, 22, 36), ("tree", 42, 22, 34)))),
        ("A blue fish swimming in the sea under a yellow crescent moon at night.",
         (SEA, (("moon", 44, 4, 24), ("fish", 10, 42, 30)))),
        ("A red balloon floating above a mushroom and a grey mug standing on the grass.",
         (SKY, (("balloon", 26, 2, 28), ("mushroom", 6, 34, 30), ("cup", 38, 36, 28)))),
    ),
}
"""Text-to-SVG: group -> (prompt, icon name or illustration (background, icons)) of its rows."""
IMAGE: Mapping[str, Sequence[str | tuple[str, Sequence[Placed]]]] = {
    "icon": ("flag", "cup"),
    "illustration": (
        (NIGHT, (("moon", 4, 4, 30), ("star", 44, 8, 14), ("star", 52, 36, 12),
                 ("star", 20, 48, 16))),
        (SKY, (("balloon", 4, 6, 26), ("balloon", 24, 2, 26), ("balloon", 44, 8, 26),
               ("tree", 30, 30, 30))),
    ),
}
"""Image-to-SVG: group -> the icon name or illustration (background, icons) of its rows (two
each: SSIM and LPIPS at 1024 px take seconds a picture on a CPU)."""


def illustration(background: str, icons: Sequence[Placed]) -> str:
    """A scene: ``background`` (SVG elements), then each icon scaled into its place."""
    body = "".join(f'<g transform="translate({x} {y}) scale({side / 36:g})">{DEMO_ICONS[name]}</g>'
                   for name, x, y, side in icons)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {SIDE} {SIDE}">'
            f"{background}{body}</svg>")


def drawing(spec: str | tuple[str, Sequence[Placed]]) -> str:
    """The SVG of a row: a demo icon by name, or an illustration."""
    return demo_svg(spec) if isinstance(spec, str) else illustration(*spec)


def picture(svg: str) -> dict[str, Any]:
    """``svg`` rendered on white at :data:`PICTURE_SIZE`, as an HF ``Image`` cell."""
    pixels = render_svg_uint8(svg, RenderSpec.square(PICTURE_SIZE))
    return {"bytes": png_bytes(pixels), "path": None}


def write_rows(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    """``rows`` as one parquet file at ``path`` (its folder made)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(list(rows)), path)
    return path


def write(folder: Path) -> None:
    """``folder/data/``: the text-to-SVG and the image-to-SVG file."""
    text = [{"text": prompt, "type": group, "svg": drawing(spec)}
            for group, rows in TEXT.items() for prompt, spec in rows]
    write_rows(folder / "data" / TEXT_FILE, text)
    image = [{"image": picture(svg), "type": group, "svg": svg}
             for group, specs in IMAGE.items() for svg in map(drawing, specs)]
    write_rows(folder / "data" / IMAGE_FILE, image)


SAMPLE = BuiltinSample(
    folder="mmsvgbench", write=write,
    provenance="svgeval's demo icons, alone (icon) or placed in scenes (illustration), with "
    "svgeval's own prompts: 6 text-to-SVG and 6 image-to-SVG rows",
)
for _task in ("mmsvgbench-text2svg", "mmsvgbench-img2svg"):
    BUILTIN_SAMPLES.register(SAMPLE, name=_task)
