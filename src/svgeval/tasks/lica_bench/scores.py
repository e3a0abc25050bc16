"""The code-level scores LICA-Bench adds (``purvanshi/lica-bench`` c5c63dc,
``src/design_benchmarks/tasks/svg.py``), registered with their direction and source.

* :func:`edit_distance`: ``1 - difflib.SequenceMatcher(None, a, b).ratio()`` with difflib's
  defaults (autojunk on), ``normalized_edit_distance`` of ``utils/text_helpers.py:89-91``; the
  ratio is ``2 M / T`` (M matched characters, T the two lengths together). Not a Levenshtein
  distance.
* :func:`repair_accuracy`: 100 when that distance is below 0.05 (``_repair_accuracy``,
  ``:67-68``; the release's 1.0). :func:`same_markup` (ours, ``repair_exact``): the two SVGs are
  the same XML once canonicalised (C14N 2.0, whitespace-only text dropped).
* :func:`byte_ratio`: UTF-8 bytes of the answer over those of the original, 1.0 for an empty
  original (``_compression_ratio``, ``:75-78``): lower is smaller.
* :func:`weighted_complexity` (``_svg_weighted_complexity``, ``:205-226``).
"""

from __future__ import annotations

import difflib
import re

from svgeval.metrics.registry import MetricInfo, describe_metric

SOURCE = "LICA-Bench (purvanshi/lica-bench c5c63dc) src/design_benchmarks/tasks/svg.py"
REPAIR_THRESHOLD = 0.05

for _info in (
    MetricInfo("difflib_distance", "1 - difflib.SequenceMatcher ratio of two texts "
               "(1 - 2M/T; LICA-Bench's edit_distance)", "[0, 1]", False,
               f"{SOURCE}; utils/text_helpers.py:89-91"),
    MetricInfo("difflib_similarity", "difflib.SequenceMatcher ratio of two texts, 2M/T "
               "(LICA-Bench's repair_similarity)", "[0, 1]", True, f"{SOURCE}:71-72"),
    MetricInfo("repair_accuracy", "100 when the answer's difflib distance to the ground truth "
               "is below 0.05, else 0 (LICA-Bench's threshold), %", "[0, 100]", True,
               f"{SOURCE}:67-68", pass_fail=True),
    MetricInfo("canonical_match", "100 when the answer and the ground truth are the same XML "
               "once canonicalised (C14N 2.0, blank text dropped), else 0, %", "[0, 100]", True,
               "svgeval (an exact reading of LICA-Bench svg-3 beside its 0.05 threshold)",
               pass_fail=True),
    MetricInfo("byte_ratio", "UTF-8 bytes of the answer / bytes of the original SVG "
               "(LICA-Bench's compression_ratio)", "[0, inf); 1 is the original's size", False,
               f"{SOURCE}:75-78"),
    MetricInfo("weighted_complexity", "2 #paths + 0.01 len(d) + 1.5 #colours + #tag names + "
               "5 transform + 8 gradient + 8 clipPath + 0.001 bytes of the SVG text",
               "[0, inf)", False, f"{SOURCE}:205-226"),
    MetricInfo("code_bytes", "UTF-8 bytes of the answer's SVG text", "integer >= 0", False,
               f"{SOURCE}:562"),
):
    describe_metric(_info)

_PATH = re.compile(r"<path[\s>]", re.IGNORECASE)
_D_ATTRIBUTE = re.compile(r'\bd="([^"]*)"')
_HEX_COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}")
_RGB_COLOUR = re.compile(r"rgba?\([^)]+\)")
_TAG = re.compile(r"<(\w+)[\s/>]")
_GRADIENT = re.compile(r"<(linearGradient|radialGradient)")


def edit_distance(a: str, b: str) -> float:
    """``1 - SequenceMatcher(None, a, b).ratio()`` (0: equal texts, 1: nothing in common)."""
    return 1.0 - difflib.SequenceMatcher(None, a, b).ratio()


def repair_accuracy(distance: float) -> float:
    """100 when ``distance`` (:func:`edit_distance`) is below 0.05, else 0."""
    return 100.0 if distance < REPAIR_THRESHOLD else 0.0


def byte_ratio(original: str, answer: str) -> float:
    """``bytes(answer) / bytes(original)`` in UTF-8; 1.0 when the original is empty."""
    if not original:
        return 1.0
    return len(answer.encode("utf-8")) / len(original.encode("utf-8"))


def weighted_complexity(svg: str) -> float:
    """The release's complexity score of SVG text (see the module docstring): paths count 2,
    each character of ``d`` 0.01, each distinct ``#hex`` / ``rgb(a)()`` colour 1.5, each
    distinct tag name 1, a ``transform`` 5, a gradient 8, a ``clipPath`` 8, each byte 0.001."""
    colours = set(_HEX_COLOUR.findall(svg)) | set(_RGB_COLOUR.findall(svg))
    return (2.0 * len(_PATH.findall(svg))
            + 0.01 * sum(len(d) for d in _D_ATTRIBUTE.findall(svg))
            + 1.5 * len(colours)
            + 1.0 * len(set(_TAG.findall(svg)))
            + (5.0 if "transform" in svg else 0.0)
            + (8.0 if _GRADIENT.search(svg) else 0.0)
            + (8.0 if "clipPath" in svg else 0.0)
            + 0.001 * len(svg.encode("utf-8")))


def canonical_markup(svg: str) -> str | None:
    """``svg`` as canonical XML (C14N 2.0, whitespace-only text removed, comments dropped);
    None when it is not well-formed XML. Entities are not expanded and nothing is fetched."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, remove_blank_text=True,
                             remove_comments=True, load_dtd=False, huge_tree=False)
    try:
        root = etree.fromstring(svg.encode("utf-8"), parser)
    except (etree.XMLSyntaxError, ValueError):
        return None
    if root is None:
        return None
    try:
        return str(etree.tostring(root, method="c14n2", strip_text=True).decode("utf-8"))
    except Exception:  # noqa: BLE001 (lxml's C14N writer fails on unexpanded entities)
        return None


def same_markup(answer: str, truth: str) -> bool:
    """True when both are well-formed XML with the same canonical form."""
    canonical = canonical_markup(answer)
    return canonical is not None and canonical == canonical_markup(truth)
