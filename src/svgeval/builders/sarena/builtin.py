"""SArena's built-in sample, and the writers of the unzipped ``SArena.zip`` layout it shares with
the tests' small folders (:mod:`svgeval.tasks.sarena.data`, ``animation``).

Everything is drawn here from svgeval's demo icons (:mod:`svgeval.svg.demo_corpus`) and shapes
drawn in code, with svgeval's own prompts, captions and questions; nothing comes from the
release:

* ``Icon/generation``: four demo icons; ``illustration``: four scenes composed of demo icons;
  ``chemistry``: four skeletal formulas drawn as lines (atom letters as strokes, no font). Each
  track holds ``text2svg.jsonl``, ``img2svg.jsonl`` (the same drawings), ``caption.jsonl``
  (not chemistry) and the ground truth ``images/<id>.png`` (448 px on white) and ``svg/``.
* ``Icon/edit``: three editing types, two icons each, the target an SVG transform or recolouring
  of the input (never equal to it, so the unchanged answer scores below the reference).
* ``Icon/understanding/sarena_un.jsonl``: six questions in three subjects, worked out from the
  icons' code (what an icon shows, how many circles it has, its first element's colour).
* ``animation/`` (its own folder: drawing it needs Chromium and ffmpeg): four demo icons
  animated by SMIL, drawn by the released protocol (150 frames, H.264) at 448 px (``video/``)
  and 128 px (``overall/``), read by both animation tasks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from svgeval.builders.sarena.chemistry import MOLECULES, structure
from svgeval.svg.demo_corpus import DEMO_ICONS, demo_svg
from svgeval.tasks.builtin import BUILTIN_SAMPLES, BuiltinSample
from svgeval.tasks.sarena import data

if TYPE_CHECKING:
    from svgeval.tasks.sarena.animation_video import AnswerVideos

Key = TypeVar("Key", bound=int | str)
"""A line's ``id``."""

# --- the release's layout (shared with the tests) -----------------------------------------


def turns(prompt: str, answer: str) -> list[dict[str, str]]:
    """A ShareGPT conversation: the prompt, then the answer."""
    return [{"from": "human", "value": prompt}, {"from": "gpt", "value": answer}]


def write_lines(path: Path, records: Sequence[Mapping[str, Any]]) -> None:
    """``records`` as a jsonl file (its folder made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")


def write_truth(folder: Path, answers: Mapping[Key, str]) -> None:
    """The ground truth of each line: ``images/<id>.png`` (448 px on white, as the release's
    pictures) and ``svg/<id>.svg``."""
    from PIL import Image

    from svgeval.render.cairo import RenderSpec, render_svg_uint8

    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "svg").mkdir(parents=True, exist_ok=True)
    for key, svg in answers.items():
        pixels = render_svg_uint8(svg, RenderSpec.square(448, background="white"))
        Image.fromarray(pixels).save(folder / "images" / f"{key}.png")
        (folder / "svg" / f"{key}.svg").write_text(svg, encoding="utf-8")


@dataclass(frozen=True)
class Drawing:
    """One drawing of a generation track: its SVG, its text-to-SVG prompt and its caption
    (``caption.jsonl``'s text, written as given)."""

    id: int | str
    svg: str
    prompt: str
    caption: str = ""


def write_track(folder: Path, drawings: Sequence[Drawing], image_prompt: str,
                captions: bool = True) -> None:
    """A generation track: ``text2svg.jsonl``, ``img2svg.jsonl`` (``image_prompt`` and the
    drawing's picture), ``caption.jsonl`` (with ``captions``), ``images/`` and ``svg/``."""
    write_truth(folder, {drawing.id: drawing.svg for drawing in drawings})
    write_lines(folder / "text2svg.jsonl", [
        {"id": drawing.id, "conversations": turns(drawing.prompt, drawing.svg)}
        for drawing in drawings])
    write_lines(folder / "img2svg.jsonl", [
        {"id": drawing.id, "image": f"images/{drawing.id}.png",
         "conversations": turns(image_prompt, drawing.svg)}
        for drawing in drawings])
    if captions:
        write_lines(folder / "caption.jsonl", [
            {"image": f"{drawing.id}.png", "caption": [{"generated_text": drawing.caption}]}
            for drawing in drawings])


def write_edit(root: Path, kind: str, edits: Mapping[Key, tuple[str, str]]) -> None:
    """One editing type: ``Icon/edit/<kind>.jsonl`` from ``{id: (prompt, answer)}`` and the
    answers' ground truth under ``Icon/edit/data/<kind>/``."""
    write_truth(root / "Icon/edit/data" / kind, {key: answer for key, (_, answer) in edits.items()})
    write_lines(root / "Icon/edit" / f"{kind}.jsonl", [
        {"id": key, "conversations": turns(prompt, answer)}
        for key, (prompt, answer) in edits.items()])


BUILD_TIMEOUT_S = 600.0
"""The time limit of one drawing of the built-in animation sample (150 frames). The animations
are svgeval's own, so the limit only guards against a browser that stopped answering: a run's
limit (``DEFAULT_TIMEOUT_S``, 60 s) was too short on a loaded two-core machine (the test suite
in four workers) for a drawing that takes seconds on a quiet one."""


def released_video(videos: AnswerVideos, svg: str, size: int, path: Path) -> None:
    """``svg`` as the released renderer writes it (150 frames, moviepy's 149, H.264), drawn and
    kept as an answer's video is: an answer equal to ``svg`` is not drawn again."""
    from svgeval.render.picture import RenderFailure
    from svgeval.render.pool import RenderWorkersLost

    data = videos.mp4(svg, size)
    if isinstance(data, RenderFailure):  # svgeval's own animation: the browser failed, not it
        raise RenderWorkersLost(f"the browser could not draw the built-in animation sample "
                                f"({data.tag}: {data.message}); check that Chromium runs here")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def write_animation(root: Path, animations: Mapping[Key, tuple[str, str]],
                    video_ids: Sequence[Key], video_prompt: str) -> Path:
    """``root/animation/`` from ``{id: (animated SVG, text2sani prompt)}``: ``svg/``, the 128 px
    videos of ``overall/`` and ``text2sani.jsonl`` for every id; the 448 px ``video/`` and
    ``video2sani.jsonl`` (``video_prompt``) for ``video_ids``. Returns ``root``."""
    from svgeval.render.animation import at_once
    from svgeval.tasks.download import cache_dir
    from svgeval.tasks.sarena.animation_video import AnswerVideos

    folder = root / "animation"
    (folder / "svg").mkdir(parents=True, exist_ok=True)
    drawings = []
    for key, (svg, _) in animations.items():
        (folder / "svg" / f"{key}.svg").write_text(svg, encoding="utf-8")
        drawings.append((svg, 128, folder / "overall" / f"{key}.mp4"))
        if key in video_ids:
            drawings.append((svg, 448, folder / "video" / f"{key}.mp4"))
    videos = AnswerVideos(BUILD_TIMEOUT_S, cache=cache_dir() / "animations")
    try:
        at_once(lambda job: released_video(videos, *job), drawings)
    finally:
        videos.close()
    write_lines(folder / "text2sani.jsonl", [
        {"id": key, "conversations": turns(prompt, svg)}
        for key, (svg, prompt) in animations.items()])
    write_lines(folder / "video2sani.jsonl", [
        {"id": key, "video": f"video/{key}.mp4", "conversations": turns(video_prompt, svg)}
        for key, (svg, _) in animations.items() if key in video_ids])
    return root


# --- the built-in sample's drawings --------------------------------------------------------

_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}">{body}</svg>'
ICON_CAPTIONS = {
    "sun": "an orange sun with short yellow rays",
    "house": "a brown house with a red roof, a door and two windows",
    "flag": "a blue pennant flag on a grey pole",
    "traffic light": "a traffic light showing red, yellow and green lamps",
}
IMAGE_PROMPT = "<image>\nWrite SVG code that reproduces this picture."


def _icon_track() -> list[Drawing]:
    return [Drawing(index, demo_svg(name), f"Draw an SVG icon: {caption}.", caption)
            for index, (name, caption) in enumerate(ICON_CAPTIONS.items(), start=1)]


def _place(name: str, x: float, y: float, size: float) -> str:
    """Demo icon ``name`` drawn ``size`` units wide with its top left corner at (x, y)."""
    return f'<g transform="translate({x} {y}) scale({size / 36:g})">{DEMO_ICONS[name]}</g>'


SCENES: tuple[tuple[str, str, tuple[tuple[str, float, float, float], ...]], ...] = (
    ("a house with a tree beside it under the sun, on green grass below a light blue sky",
     ('<rect width="100" height="70" fill="#BDE3F7"/><rect y="70" width="100" height="30" '
      'fill="#77B255"/>'), (("sun", 66, 4, 28), ("house", 30, 36, 42), ("tree", 4, 40, 32))),
    ("a blue fish swimming in a dark sea under a crescent moon",
     ('<rect width="100" height="100" fill="#1C3D5A"/><rect y="45" width="100" height="55" '
      'fill="#2A6F97"/>'), (("moon", 8, 4, 30), ("fish", 40, 52, 46))),
    ("a red balloon floating above two mushrooms on a sandy ground",
     ('<rect width="100" height="100" fill="#FFF4D6"/><rect y="80" width="100" height="20" '
      'fill="#E0C080"/>'), (("balloon", 34, 4, 36), ("mushroom", 8, 56, 28),
                          ("mushroom", 64, 60, 24))),
    ("a blue flag planted on a green hill under a night sky with a star",
     ('<rect width="100" height="100" fill="#202040"/><ellipse cx="50" cy="100" rx="70" '
      'ry="34" fill="#5C913B"/>'), (("star", 8, 6, 24), ("flag", 46, 30, 40))),
)
"""The illustrations: (caption, background, (icon, x, y, size) placements)."""


def _illustration_track() -> list[Drawing]:
    drawings = []
    for index, (caption, background, placements) in enumerate(SCENES, start=1):
        body = background + "".join(_place(*placement) for placement in placements)
        drawings.append(Drawing(index, _SVG.format(size=100, body=body),
                                f"Draw an SVG illustration of {caption}.", caption))
    return drawings


def _chemistry_track() -> list[Drawing]:
    return [Drawing(index, structure(molecule),
                    f"Draw the skeletal formula of {molecule.name} (SMILES {molecule.smiles}) "
                    "as SVG code.")
            for index, molecule in enumerate(MOLECULES, start=1)]


EDITS: Mapping[str, tuple[tuple[str, str, str], ...]] = {
    "color_simple": (
        ("heart", "Recolour the red parts (#DD2E44) of this icon blue (#3B88C3).",
         "#DD2E44>#3B88C3"),
        ("tree", "Make the light green foliage (#77B255) of this icon orange (#F4900C).",
         "#77B255>#F4900C")),
    "flip": (("moon", "Mirror this icon horizontally.", "matrix(-1 0 0 1 36 0)"),
             ("fish", "Flip this icon left to right.", "matrix(-1 0 0 1 36 0)")),
    "rotate": (("flag", "Rotate this icon by 90 degrees clockwise about its centre.",
                "rotate(90 18 18)"),
               ("cup", "Turn this icon 90 degrees counterclockwise about its centre.",
                "rotate(-90 18 18)")),
}
"""Editing type -> (icon, instruction, change): a transform of the whole icon, or for
recolouring ``OLD>NEW`` colours."""


def _edited(name: str, change: str) -> str:
    """Demo icon ``name`` after ``change`` (see :data:`EDITS`)."""
    if ">" in change:
        old, new = change.split(">")
        return demo_svg(name).replace(f'fill="{old}"', f'fill="{new}"')
    return _SVG.format(size=36, body=f'<g transform="{change}">{DEMO_ICONS[name]}</g>')


def _write_edits(root: Path) -> None:
    for kind, edits in EDITS.items():
        write_edit(root, kind, {
            index: (f"{instruction}\n{demo_svg(name)}", _edited(name, change))
            for index, (name, instruction, change) in enumerate(edits, start=1)})


QUESTIONS = (  # (subject, icon, question, the options' kind)
    ("semantics", "cup", "What does this SVG depict?", "name"),
    ("semantics", "fish", "Which object is drawn by this SVG code?", "name"),
    ("counting", "traffic light", "How many <circle> elements does this SVG contain?", "count"),
    ("counting", "mushroom", "How many <circle> elements are in this SVG?", "count"),
    ("color", "sun", "What fill colour does the first element of this SVG use?", "color"),
    ("color", "heart", "Which colour fills the first shape of this SVG?", "color"),
)
_DISTRACTORS = {"name": ("a cup", "a fish", "a moon", "a flag", "a balloon"),
                "count": ("1", "2", "3", "4", "5"),
                "color": ("#FFAC33", "#DD2E44", "#3B88C3", "#77B255", "#292F33")}


def _truth_of(name: str, kind: str) -> str:
    """The correct option, read from the icon's code."""
    if kind == "name":
        return f"a {name}"
    if kind == "count":
        return str(DEMO_ICONS[name].count("<circle"))
    return DEMO_ICONS[name].split('fill="', 1)[1].split('"', 1)[0]


def _understanding_lines() -> list[dict[str, Any]]:
    """Each question with four options, the correct one at letter ``index % 4``."""
    lines = []
    for index, (subject, name, question, kind) in enumerate(QUESTIONS):
        correct = _truth_of(name, kind)
        options = [option for option in _DISTRACTORS[kind] if option != correct][:3]
        options.insert(index % 4, correct)
        listed = "\n".join(f"{letter}. {option}" for letter, option in zip("ABCD", options))
        prompt = (f"{demo_svg(name)}\n{question}\n{listed}\n"
                  "Answer with the letter of the correct option.")
        answer = f"{'ABCD'[index % 4]}. {correct}"
        lines.append({"id": index + 1, "Subject": subject, "conversations": turns(prompt, answer)})
    return lines


def write(folder: Path) -> None:
    """The image tasks' sample: ``folder/SArena`` in the unzipped release's layout."""
    root = folder / "SArena"
    write_track(root / data.TRACK_DIRS["icon"], _icon_track(), IMAGE_PROMPT)
    write_track(root / data.TRACK_DIRS["illustration"], _illustration_track(), IMAGE_PROMPT)
    write_track(root / data.TRACK_DIRS["chemistry"], _chemistry_track(), IMAGE_PROMPT,
                captions=False)
    _write_edits(root)
    write_lines(root / data.UNDERSTANDING_FILE, _understanding_lines())


def _animated(name: str, animation: str, centred: bool = False) -> str:
    """Demo icon ``name`` in a group that ``animation`` (a SMIL element) animates; ``centred``:
    about the icon's centre (the group moved to the origin between two translations)."""
    icon = DEMO_ICONS[name]
    if centred:
        return _SVG.format(size=36, body=f'<g transform="translate(18 18)"><g>{animation}'
                           f'<g transform="translate(-18 -18)">{icon}</g></g></g>')
    return _SVG.format(size=36, body=f"<g>{animation}{icon}</g>")


ANIMATIONS = {
    1: (_animated("sun", '<animateTransform attributeName="transform" type="rotate" '
                         'from="0 18 18" to="90 18 18" dur="2.5s" repeatCount="indefinite"/>'),
        "a sun turning a quarter turn clockwise, again and again"),
    2: (_animated("balloon", '<animateTransform attributeName="transform" type="translate" '
                             'values="0 6;0 -6;0 6" dur="2s" repeatCount="indefinite"/>'),
        "a red balloon bobbing up and down"),
    3: (_animated("heart", '<animateTransform attributeName="transform" type="scale" '
                           'values="0.8;1.1;0.8" dur="1.5s" repeatCount="indefinite"/>',
                  centred=True),
        "a red heart beating, swelling and shrinking about its centre"),
    4: (_animated("star", '<animate attributeName="opacity" values="1;0.2;1" dur="2s" '
                          'repeatCount="indefinite"/>'),
        "an orange star twinkling, fading out and back in"),
}
"""The animated demo icons: (animated SVG, instruction)."""


def write_animation_sample(folder: Path) -> None:
    """The animation tasks' sample: ``folder/SArena/animation`` (Chromium and ffmpeg draw its
    videos; without them, :class:`DataUnavailable` with their install line)."""
    from svgeval.render.animation import BrowserUnavailable
    from svgeval.render.video import VideoCodecUnavailable
    from svgeval.tasks.download import DataUnavailable

    texts = {key: (svg, f"Write an animated SVG for this scene. Instruction: {text}")
             for key, (svg, text) in ANIMATIONS.items()}
    try:
        write_animation(folder / "SArena", texts, tuple(ANIMATIONS),
                        "<video>\nWrite animated SVG code that plays like this video.")
    except (BrowserUnavailable, VideoCodecUnavailable) as error:
        raise DataUnavailable(f"SArena's animation sample needs a browser and ffmpeg: {error}"
                              ) from None


SAMPLE = BuiltinSample(
    folder="sarena", write=write, data="SArena",
    provenance="svgeval's demo icons (icons, edits, questions), scenes composed of them and "
               "skeletal formulas drawn in code, with svgeval's own prompts and captions",
)
ANIMATION_SAMPLE = BuiltinSample(
    folder="sarena-animation", write=write_animation_sample, data="SArena",
    provenance="four of svgeval's demo icons animated by SMIL, drawn by the released protocol "
               "(Chromium, 150 frames, H.264 at 448 and 128 px)",
)
for _task in ("icon-understanding", "icon-edit", "icon-text2svg", "icon-img2svg",
              "illustration-text2svg", "illustration-img2svg", "chemistry-text2svg",
              "chemistry-img2svg"):
    BUILTIN_SAMPLES.register(SAMPLE, name=f"sarena-{_task}")
for _task in ("text2sani", "video2sani"):
    BUILTIN_SAMPLES.register(ANIMATION_SAMPLE, name=f"sarena-animation-{_task}")
