"""UniSVG's released answer rules and weighted scores (VLMEvalKit
``vlmeval/dataset/utils/uni_svg.py``), written from the released behaviour.

Answer extraction (``extract_svg_from_text``): the first ``<svg ...>...</svg>``; else, from the
first ``<svg ...>`` to the end, repaired (``fix_svg``): a trailing unfinished tag is cut, every
opened container tag with no closing tag of its name is closed (innermost first; leaf shapes
are skipped), and ``</svg>`` is appended when the text does not end with it.

Understanding rules (``_evaluate_row``), each in [0, 1]:

* colour: ``|words(answer) & C| / |C|`` with ``C`` the lower-cased ground-truth colours minus
  ``white`` (0 when ``C`` is empty);
* category: 1 when any ground-truth category (lower-case or capitalised) is a substring of
  the answer;
* shape: the share of the ground truth's shape kinds (``<n> rect``, ``<n> circles``, ...) whose
  count the answer gives exactly (no kinds: 1 if the answer names none, else 0);
* size: 1 when the first two numbers of both texts agree, 0.5 when one does;
* transform: ``sum_k min(n_k(answer), n_k(truth)) / sum_k n_k(truth)`` over the substrings
  ``translate rotate scale skewX skewY matrix`` (1 when the truth has none).

Weighted scores (``evaluate_uni_svg``), from per-type means: :func:`generation_score` and
:func:`final_score`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from svgeval.render.picture import FloatImage
from svgeval.svg.extract import Extraction, extraction_rule

_CLOSED = re.compile(r"<svg[^>]*>(.*?)</svg>", re.DOTALL)
_OPEN = re.compile(r"<svg[^>]*>.*", re.DOTALL)
LEAF_TAGS = ("path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "image", "stop")
SHAPES = ("rect", "circle", "ellipse", "line", "polygon", "polyline", "path", "text")
_SHAPE_COUNT = re.compile(r"(\d+)\s+(" + "|".join(SHAPES) + r")s?")
TRANSFORMS = ("translate", "rotate", "scale", "skewX", "skewY", "matrix")
_NUMBER = re.compile(r"\d+\.\d+|\d+")


def fix_svg(text: str, leaves: tuple[str, ...] = LEAF_TAGS) -> str:
    """The released repair of a truncated SVG (see the module docstring); ``leaves`` are the
    tags it never closes (none in the authors' ``evaluation.py``, :mod:`.authors`)."""
    text = re.sub(r"<[^>]*$", "", text)
    closes = re.findall(r"</([a-zA-Z]+)>", text)
    unclosed = []
    for tag in re.findall(r"<([a-zA-Z]+)[^>]*>", text):
        if tag in leaves:
            continue
        if tag in closes:
            closes.remove(tag)
        else:
            unclosed.append(tag)
    text += "".join(f"</{tag}>" for tag in reversed(unclosed))
    return text if text.strip().endswith("</svg>") else text + "</svg>"


def extract_repaired(response: str, rule: str, leaves: tuple[str, ...]) -> Extraction:
    """The first ``<svg ...>...</svg>``, else the text from the first ``<svg ...>`` repaired by
    :func:`fix_svg` with ``leaves``, recorded as extracted by ``rule``."""
    closed = _CLOSED.search(response)
    if closed:
        return Extraction(closed.group(0), rule)
    opened = _OPEN.search(response)
    if opened:
        return Extraction(fix_svg(opened.group(0), leaves), rule)
    return Extraction(None, rule, "no <svg ...> in the response")


@extraction_rule("unisvg")
def extract_answer_svg(response: str) -> Extraction:
    """The released ``extract_svg_from_text`` (``extraction_rule`` ``unisvg``)."""
    return extract_repaired(response, "unisvg", LEAF_TAGS)


def released_psnr(a: FloatImage, b: FloatImage, identical: float = 100.0) -> float:
    """The released PSNR: ``10 log10(255^2 / mean((a - b)^2))`` evaluated on uint8 arrays, so
    the difference and its square wrap modulo 256 (numpy uint8 arithmetic); ``identical`` for
    equal images (VLMEvalKit's ``inf`` replacement 100; the authors' ``evaluation.py:330`` adds
    ``inf`` as 0)."""
    x = np.round(np.clip(a, 0, 1) * 255).astype(np.uint8)
    y = np.round(np.clip(b, 0, 1) * 255).astype(np.uint8)
    error = float(np.mean((x - y) ** 2))
    return identical if error == 0 else float(10 * np.log10(255**2 / error))


def colour_score(answer: str, metadata: Mapping[str, Any]) -> float:
    keywords = metadata.get("keywords") or {}
    colours = (keywords.get("colors") or {}).get("colors") or []
    if not colours and "colors" in metadata:
        colours = (metadata["colors"] or {}).get("colors") or []
    wanted = {str(c).lower() for c in colours if str(c).lower() != "white"}
    said = set(re.findall(r"\b\w+\b", answer.lower()))
    return len(said & wanted) / len(wanted) if wanted else 0.0


def category_score(answer: str, metadata: Mapping[str, Any]) -> float:
    """Released: a string category is iterated character by character, as Python does."""
    categories = (metadata.get("keywords") or {}).get("category") or []
    if not categories and "category" in metadata:
        categories = metadata["category"]
    forms = {str(c).lower() for c in categories} | {str(c).capitalize() for c in categories}
    return 1.0 if any(form in answer for form in forms) else 0.0


def shape_counts(text: str) -> dict[str, int]:
    counts = dict.fromkeys(SHAPES, 0)
    for number, shape in _SHAPE_COUNT.findall(text):
        counts[shape] = int(number)
    return counts


def shape_score(answer: str, truth: str) -> float:
    expected, given = shape_counts(truth), shape_counts(answer)
    kinds = [s for s in SHAPES if expected[s] > 0]
    if not kinds:
        return 1.0 if sum(given.values()) == 0 else 0.0
    return sum(expected[s] == given[s] for s in kinds) / len(kinds)


def size_score(answer: str, truth: str) -> float:
    def first_two(text: str) -> tuple[float | None, float | None]:
        numbers = [float(n) for n in _NUMBER.findall(text)]
        return (numbers[0], numbers[1]) if len(numbers) >= 2 else (None, None)

    (width, height), (true_width, true_height) = first_two(answer), first_two(truth)
    if width == true_width and height == true_height:
        return 1.0
    return 0.5 if width == true_width or height == true_height else 0.0


def transform_score(answer: str, truth: str) -> float:
    expected = {t: len(re.findall(t, truth)) for t in TRANSFORMS}
    given = {t: len(re.findall(t, answer)) for t in TRANSFORMS}
    total = sum(expected.values())
    return sum(min(given[t], expected[t]) for t in TRANSFORMS) / total if total else 1.0


EASY_TYPES = ("CSVGUN_size", "CSVGUN_shape", "CSVGUN_transform")
HARD_TYPES = ("ISVGUN_color", "CSVGUN_color", "ISVGUN_category", "CSVGUN_category")
TEXT_WEIGHTS: Mapping[str, float] = {
    "CSVGUN_usage": 200, "CSVGUN_description": 200, "ISVGUN_usage": 200,
    "ISVGUN_description": 200, "CSVGUN_rect": 100, "CSVGUN_circle": 100,
}
FINAL_WEIGHTS: Mapping[str, float] = {
    "isvgen_score": 0.45, "tsvgen_score": 0.45, "easy_acc": 0.01, "hard_acc": 0.02,
    "bertscore": 0.035, "sbert_score": 0.035,
}


def generation_score(ssim: float, lpips: float, clip: float) -> float:
    """``0.2 SSIM + 0.2 (1 - LPIPS) + 0.6 CLIP`` of one type's means (``calc_gen_score``)."""
    return 0.2 * ssim + 0.2 * (1.0 - lpips) + 0.6 * clip


def _weighted(means: Mapping[str, Mapping[str, float | None]], weights: Mapping[str, float],
              key: str, every_type: bool) -> float | None:
    present = [t for t in weights if t in means]
    if every_type and len(present) < len(weights):
        return None
    values = [means[t].get(key, 0.0) for t in present]
    if any(v is None for v in values):
        return None
    total = sum(weights[t] for t in present)
    return sum(weights[t] * float(v or 0.0) for t, v in zip(present, values)) / total if total \
        else 0.0


def final_score(means: Mapping[str, Mapping[str, float | None]],
                every_type: bool = False) -> dict[str, float | None]:
    """The released components and ``final_score`` from per-type means (type -> metric -> mean).

    ``<type>_score`` of ISVGEN/TSVGEN is :func:`generation_score` (0 when the type is absent);
    ``easy_acc`` is the mean ``accuracy`` of the easy types present, ``hard_acc`` that of the
    hard types (equal weights 50 and 100 in the release); ``bertscore``/``sbert_score`` are the
    means of the text types present weighted 200 (usage, description) and 100 (rect, circle);
    ``final_score = 0.45 isvgen + 0.45 tsvgen + 0.01 easy + 0.02 hard + 0.035 bertscore +
    0.035 sbert`` (VLMEvalKit's ``overall`` is 100 x ``final_score``). A component whose
    metric could not be computed (None) makes it and ``final_score`` None. With ``every_type``
    (the authors' ``evaluation.py:489-524``, which indexes each type and raises ``KeyError``
    on an absent one) a component missing one of its types is None instead.
    """
    parts: dict[str, float | None] = {}
    for kind in ("ISVGEN", "TSVGEN"):
        m = means.get(kind)
        values = (m.get("ssim", 0.0), m.get("lpips", 1.0), m.get("clip", 0.0)) if m else None
        parts[f"{kind.lower()}_score"] = (
            (None if every_type else 0.0) if values is None
            else None if any(v is None for v in values)
            else generation_score(*(float(v or 0.0) for v in values)))
    parts["easy_acc"] = _weighted(means, dict.fromkeys(EASY_TYPES, 50.0), "accuracy", every_type)
    parts["hard_acc"] = _weighted(means, dict.fromkeys(HARD_TYPES, 100.0), "accuracy", every_type)
    parts["bertscore"] = _weighted(means, TEXT_WEIGHTS, "bertscore", every_type)
    parts["sbert_score"] = _weighted(means, TEXT_WEIGHTS, "sbert", every_type)
    components = [parts[k] for k in FINAL_WEIGHTS]
    parts["final_score"] = None if any(v is None for v in components) else sum(
        FINAL_WEIGHTS[k] * float(parts[k] or 0.0) for k in FINAL_WEIGHTS)
    return parts
