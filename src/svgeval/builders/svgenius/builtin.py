"""SVGenius' built-in sample: svgeval's twelve demo icons through the suite's own pipeline.

The icons (:mod:`svgeval.svg.demo_corpus`) are split by complexity into the three tiers, four
each (:data:`TIER_ICONS`), and redrawn path-only in the release's style (:func:`source_svg`:
every shape a ``<path>``, ``width="200" height="200"`` over the viewBox, as the released
icons are), written with their 625 px PNGs under ``src/data/<tier>/process/``. From them, in the
task files of the release (:data:`~svgeval.tasks.svgenius.data.TASK_FILES`):

* bug fixing, code optimization and style editing: the suite's generators
  (:mod:`.bug_injector`, :mod:`.optimize_generator`, :mod:`.style_edit_generator`, seed 0),
  four cases per tier;
* text-to-SVG and image-to-SVG: our captions (:data:`CAPTIONS`) of two icons per tier
  (:data:`TWO_ICONS`), the icon as the answer;
* style transfer: the four icons of each tier with our captions, the four styles in turn;
* understanding: our three questions about two icons per tier (:data:`QUESTIONS`), four
  samples per tier with the paper's two question types (six with ``--set questions=all``).

:func:`style_transfer_items` is shared with the tests' style-transfer files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lxml import etree

from svgeval.builders.svg_files import write_cases
from svgeval.render.cairo import RenderSpec
from svgeval.svg.demo_corpus import demo_svg
from svgeval.tasks.builtin import BUILTIN_SAMPLES, BuiltinSample
from svgeval.tasks.svgenius.data import TASK_FILES, TIERS

if TYPE_CHECKING:
    from svgeval.render.isolated import Renderer

TIER_ICONS: Mapping[str, tuple[str, ...]] = {
    "easy": ("heart", "moon", "star", "tree"),
    "medium": ("sun", "flag", "fish", "cup"),
    "hard": ("house", "mushroom", "traffic light", "balloon"),
}
"""The demo icons of each tier, from two or three shapes (easy) to four or five (hard)."""

STYLES = ("Cartoon Style", "Pixel-art", "Line-art", "3D-style")
"""The released style-transfer targets, handed out in turn."""

CAPTIONS: Mapping[str, str] = {
    "sun": "a sun icon: an orange disc with six short yellow rays around it",
    "house": "a house icon: a brown wall under a red pointed roof, with a dark door and two "
    "light blue windows",
    "tree": "a tree icon: two stacked green triangles on a short brown trunk",
    "heart": "a heart icon: a red heart with a small pink highlight on its upper left",
    "star": "a star icon: an orange five-pointed star with a pale yellow dot in its centre",
    "flag": "a flag icon: a blue pennant with a white dot on a grey pole",
    "moon": "a moon icon: a yellow crescent on a round dark night sky",
    "mushroom": "a mushroom icon: a red cap with two white spots on a pale grey stem",
    "cup": "a cup icon: a grey mug with a handle on the right and a brown band of coffee",
    "fish": "a fish icon: a blue fish facing left, with a darker tail and a black eye",
    "traffic light": "a traffic light icon: a dark rounded box with red, yellow and green lights "
    "from top to bottom",
    "balloon": "a balloon icon: a red balloon with a white shine, on a wavy grey string",
}
"""Our caption of each icon (the generation prompts and the style-transfer descriptions)."""

Question = tuple[str, tuple[str, str, str, str], str]
"""A multiple-choice question: its text, options A to D, and the correct letter."""

QUESTIONS: Mapping[str, tuple[Question, Question, Question]] = {
    "heart": (
        ("What colour is the small oval on the heart?", ("Yellow", "Pink", "Blue", "Black"), "B"),
        ("What does this icon most often stand for in an app?",
         ("Deleting an item", "Liking or saving as a favourite", "Opening the settings",
          "Playing a video"), "B"),
        ("Why is the small oval lighter than the heart and placed on its upper left?",
         ("To hide a gap in the outline", "To show a second, smaller heart",
          "To suggest a glossy, rounded surface catching the light", "To mark the centre"),
         "C"),
    ),
    "star": (
        ("How many points does the star have?", ("Four", "Six", "Eight", "Five"), "D"),
        ("Where would this icon most likely be used?",
         ("A rating or favourites button", "A battery indicator", "A trash bin",
          "A volume slider"), "A"),
        ("Why does the star have a pale dot in its centre?",
         ("To show where the star will be cut", "To give the flat star a sense of glow",
          "To hold a number", "To mark a hole for a pin"), "B"),
    ),
    "sun": (
        ("How many rays surround the orange disc?", ("Four", "Six", "Eight", "Twelve"), "B"),
        ("Which feature would this icon best represent?",
         ("Sunny weather or screen brightness", "A music player", "A shopping cart",
          "A calendar"), "A"),
        ("Why are the rays drawn in a lighter yellow than the disc?",
         ("To show that the rays are further away", "To make the rays look like sparks",
          "To keep the disc as the focus while the rays read as light",
          "To mark the rays as buttons"), "C"),
    ),
    "fish": (
        ("Which way is the fish facing?", ("Right", "Up", "Left", "Down"), "C"),
        ("Which topic would this icon stand for?",
         ("Flights", "Fishing or seafood", "Banking", "Gardening"), "B"),
        ("Why is the tail a darker blue than the body?",
         ("To separate the tail from the body at a glance", "To show the tail is wet",
          "To mark the tail as broken", "To make the fish look older"), "A"),
    ),
    "house": (
        ("How many windows does the house have?", ("None", "One", "Three", "Two"), "D"),
        ("What would tapping this icon in an app most likely do?",
         ("Go to the home screen", "Start a call", "Open the camera", "Share a file"), "A"),
        ("Why is the door darker than the wall?",
         ("To show that the door is locked", "To make the entrance stand out from the wall",
          "To show the door is made of metal", "To hide a window"), "B"),
    ),
    "traffic light": (
        ("Which colour is the lowest light?", ("Red", "Yellow", "Green", "Blue"), "C"),
        ("Where would this icon most likely appear?",
         ("A cooking app", "A driving or road-traffic app", "A music app", "A weather app"), "B"),
        ("Why are the three lights placed on a dark box?",
         ("To make the box look heavy", "To hide the wiring",
          "To save ink", "To make the coloured lights stand out"), "D"),
    ),
}
"""Our questions about each understanding icon: perceptual, semantic, design."""

TWO_ICONS: Mapping[str, tuple[str, str]] = {
    "easy": ("heart", "star"),
    "medium": ("sun", "fish"),
    "hard": ("house", "traffic light"),
}
"""Two icons of each tier, for the tasks whose samples cost most (text- and image-to-SVG: PSS
on every answer, model metrics) or multiply (understanding: two or three questions an icon)."""

ERROR_FAMILIES: tuple[tuple[str, ...], ...] = (
    ("misspell_tag_name", "remove_closing_tag", "add_strange_chars"),
    ("attribute_value_error", "attribute_name_error"),
    ("invalid_path_command", "path_data_format_error"),
)
"""The paper's three error families (tag, attribute, path command), given to a tier's icons in
turn: each tier's bugs come from all three."""

_SVG_NS = "http://www.w3.org/2000/svg"
_GEOMETRY = ("cx", "cy", "r", "rx", "ry", "x", "y", "width", "height")
"""The attributes of a shape that its path data replaces."""
_PNG_SPEC = RenderSpec.square(625, background=None)
"""The released PNGs: 625 px, transparent."""


def _number(value: float) -> str:
    """A coordinate as the icons write it (no trailing zeros)."""
    return f"{value:g}"


def _ellipse_path(cx: float, cy: float, rx: float, ry: float) -> str:
    """An ellipse as two absolute arcs, from its top point round to it."""
    top, bottom = f"{_number(cx)} {_number(cy - ry)}", f"{_number(cx)} {_number(cy + ry)}"
    arc = f"A{_number(rx)} {_number(ry)} 0 1 0"
    return f"M{top}{arc} {bottom}{arc} {top}Z"


def _rect_path(x: float, y: float, width: float, height: float, radius: float) -> str:
    """A rectangle, its corners rounded by ``radius``, in absolute commands."""
    if radius == 0:
        return f"M{_number(x)} {_number(y)}H{_number(x + width)}V{_number(y + height)}H{_number(x)}Z"
    r, right, bottom = _number(radius), x + width, y + height
    corner = f"A{r} {r} 0 0 1"
    return (
        f"M{_number(x + radius)} {_number(y)}H{_number(right - radius)}"
        f"{corner} {_number(right)} {_number(y + radius)}V{_number(bottom - radius)}"
        f"{corner} {_number(right - radius)} {_number(bottom)}H{_number(x + radius)}"
        f"{corner} {_number(x)} {_number(bottom - radius)}V{_number(y + radius)}"
        f"{corner} {_number(x + radius)} {_number(y)}Z"
    )


def _shape_path(element: etree._Element) -> str:
    """The path data of a ``<path>``, ``<circle>``, ``<ellipse>`` or ``<rect>``."""
    tag = etree.QName(element).localname
    number = {name: float(value) for name, value in element.attrib.items() if name in _GEOMETRY}
    if tag == "path":
        return str(element.get("d", ""))
    if tag == "circle":
        return _ellipse_path(number["cx"], number["cy"], number["r"], number["r"])
    if tag == "ellipse":
        return _ellipse_path(number["cx"], number["cy"], number["rx"], number["ry"])
    if tag == "rect":
        return _rect_path(number.get("x", 0.0), number.get("y", 0.0), number["width"],
                          number["height"], number.get("rx", 0.0))
    raise ValueError(f"no path for <{tag}>")


def source_svg(name: str) -> str:
    """The demo icon ``name`` as the released icons are written: only ``<path>`` elements
    (``d`` first, then the paint), ``width="200" height="200"`` over the viewBox."""
    root = etree.fromstring(demo_svg(name))
    paths = []
    for element in root:
        paint = "".join(f' {key}="{value}"' for key, value in element.attrib.items()
                        if key != "d" and key not in _GEOMETRY)
        paths.append(f'<path d="{_shape_path(element)}"{paint}/>')
    view_box = root.get("viewBox")
    return (f'<svg xmlns="{_SVG_NS}" viewBox="{view_box}" width="200" height="200">'
            + "".join(paths) + "</svg>")


def stem(name: str) -> str:
    """The file name (without extension) of an icon."""
    return name.replace(" ", "-")


def release_path(tier: str, name: str, extension: str) -> str:
    """An icon's file as the released task files name it, relative to the task file."""
    return f"../../../data/{tier}/process/{stem(name)}.{extension}"


def style_transfer_items(names: Sequence[str], tier: str) -> list[dict[str, Any]]:
    """Style-transfer records of ``names`` (released fields), the styles in turn."""
    return [
        {
            "description": [CAPTIONS[name]],
            "question": STYLES[index % len(STYLES)],
            "code": source_svg(name),
            "image_path": release_path(tier, name, "png"),
        }
        for index, name in enumerate(names)
    ]


def caption_items(tier: str) -> list[dict[str, Any]]:
    """Text- and image-to-SVG records of a tier: our caption, the icon, its PNG."""
    return [
        {"question": [CAPTIONS[name]], "answer": source_svg(name),
         "image": release_path(tier, name, "png")}
        for name in TWO_ICONS[tier]
    ]


def understanding_items(tier: str) -> list[dict[str, Any]]:
    """Understanding records of a tier: the icon's PNG path, caption and three questions."""
    items = []
    for index, name in enumerate(TWO_ICONS[tier]):
        questions = {
            f"question{number}": {"question": text, "option": dict(zip("ABCD", options)),
                                  "answer": answer}
            for number, (text, options, answer) in enumerate(QUESTIONS[name], start=1)
        }
        items.append({"index": index, "image_path": release_path(tier, name, "png"),
                      "caption": CAPTIONS[name], "questions": questions})
    return items


def _write_icons(data: Path, tier: str, pool: Renderer) -> None:
    """The tier's icons as ``<stem>.svg`` and ``<stem>.png`` under ``data/<tier>/process``."""
    from svgeval.messages import png_bytes
    from svgeval.render.picture import RenderFailure

    folder = data / tier / "process"
    folder.mkdir(parents=True, exist_ok=True)
    for name in TIER_ICONS[tier]:
        svg = source_svg(name)
        picture = pool.render(svg, _PNG_SPEC)
        if isinstance(picture, RenderFailure):
            raise RuntimeError(f"the demo icon {name!r} did not render")  # noqa: TRY004
        (folder / f"{stem(name)}.svg").write_text(svg, encoding="utf-8")
        (folder / f"{stem(name)}.png").write_bytes(png_bytes(picture.pixels))


def _bugfix_cases(svgs: Mapping[str, str], pool: Renderer) -> list[dict[str, Any]]:
    """Bug-fixing cases of ``svgs`` in their order, the :data:`ERROR_FAMILIES` in turn."""
    from svgeval.builders.svgenius.bug_injector import build_bugfix_cases

    names = list(svgs)
    cases = [
        case
        for number, family in enumerate(ERROR_FAMILIES)
        for case in build_bugfix_cases(
            {name: svgs[name] for name in names[number :: len(ERROR_FAMILIES)]},
            error_types=family, renderer=pool,
        )
    ]
    return sorted(cases, key=lambda case: names.index(case["svg_path"]))


def _generated_files(tier: str, pool: Renderer) -> dict[str, list[dict[str, Any]]]:
    """The tier's bug-fixing, optimization and style-editing cases (task key -> items), made
    by the suite's generators from the tier's icons (seed 0), one case per icon."""
    from svgeval.builders.svgenius.optimize_generator import build_optimize_cases
    from svgeval.builders.svgenius.style_edit_generator import build_style_edit_cases

    by_path = {release_path(tier, name, "svg"): source_svg(name) for name in TIER_ICONS[tier]}
    by_file = {f"{stem(name)}.svg": source_svg(name) for name in TIER_ICONS[tier]}
    bugs, optimized = _bugfix_cases(by_path, pool), build_optimize_cases(by_path, renderer=pool)
    for case in (*bugs, *optimized):
        case["png_path"] = case["svg_path"].removesuffix(".svg") + ".png"
    files = {"bugfix": bugs, "optimize": optimized,
             "style_edit": build_style_edit_cases(by_file, renderer=pool)}
    for task, cases in files.items():
        if len(cases) != len(by_path):
            raise RuntimeError(f"{task}, {tier}: {len(cases)} cases from {len(by_path)} icons")
    return files


def write(folder: Path) -> None:
    """The release's layout under ``folder``: ``src/data/<tier>/process`` and every task file
    of ``src/tasks``."""
    from svgeval.builders.render_checks import GENERATOR_TIMEOUT_S
    from svgeval.render.isolated import Renderer

    tasks, data = folder / "src" / "tasks", folder / "src" / "data"
    with Renderer(workers=2, timeout_s=GENERATOR_TIMEOUT_S) as pool:
        for tier in TIERS:
            _write_icons(data, tier, pool)
            files = {
                **_generated_files(tier, pool),
                "understanding": understanding_items(tier),
                "text2svg": caption_items(tier),
                "img2svg": caption_items(tier),
                "style_transfer": style_transfer_items(TIER_ICONS[tier], tier),
            }
            for task, items in files.items():
                write_cases(items, tasks / TASK_FILES[task][tier])


SAMPLE = BuiltinSample(
    folder="svgenius", write=write,
    provenance="svgeval's 12 demo icons redrawn path-only, 4 per tier, through the suite's "
    "bug, optimization and style-edit generators (seed 0), with our captions and questions",
)
for _task in ("understanding", "bugfix", "optimize", "style-edit", "text2svg", "img2svg",
              "style-transfer"):
    BUILTIN_SAMPLES.register(SAMPLE, name=f"svgenius-{_task}")
