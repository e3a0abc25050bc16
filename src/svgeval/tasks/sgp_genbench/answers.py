"""SGP-GenBench's and SGP-CompBench's released answer rules and arithmetic, weight-free.

Read from ``Sphere-AI-Lab/SGP-RL`` at ``533171a`` (file:line in docs/suites/sgp_genbench.md):

* :func:`extract_genbench` -- ``svg_grader.render_response_to_image`` + ``svg.extract_svg``;
  :func:`recovered` -- the ``lxml`` recover-mode re-serialisation of ``svg.svg_to_image``.
* :func:`extract_compbench` -- ``generation.parse_svg_from_response``; :func:`well_formed` --
  ``util.check_svg_validity``.
* :func:`released_verdict` / :func:`strict_verdict` -- ``evaluation.get_model_result_safe``'s
  score reading and ours; :func:`numeracy_score` -- ``evaluation.process_entry``'s weights.
* :func:`diversity` -- ``evaluate_svg_model.py:642-700``; :func:`released_diversity_mean` --
  ``eval_utils.calculate_average_metrics:64``.
* :func:`tifa_choice` -- ours (the release maps a free-form VQA answer to a choice with SBERT).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from lxml import etree

from svgeval.svg.extract import Extraction, extraction_rule

_COMPLETE = re.compile(r"(<svg .*?</svg>)", re.DOTALL)
_TEXT_TAGS = ("</text>", "</tspan>", "</textPath>")
ALLOWED_VERDICTS = ("100", "50", "30", "0")
_STRICT = re.compile(r"[\s*_:]*(\d+)(?![\d.,]\d|\d)")


def formatted(response: str) -> bool:
    """``is_format_correct`` and ``no_text_in_response``: ``</think> <answer>`` in the reply, the
    reply ends with ``</answer>``, and no ``</text>``, ``</tspan>``, ``</textPath>``."""
    return ("</think> <answer>" in response and response.endswith("</answer>")
            and not any(tag in response for tag in _TEXT_TAGS))


def last_svg(text: str) -> str:
    """``extract_svg``: the last ``<svg ...</svg>`` (a space after ``<svg``), else from the last
    ``<svg`` to the end (a truncated SVG is kept), else ``""``."""
    found = _COMPLETE.findall(text)
    if found:
        return str(found[-1]).strip()
    start = text.rfind("<svg")
    return text[start:].strip() if start >= 0 else ""


@extraction_rule("sgp-genbench")
def extract_genbench(response: str) -> Extraction:
    """The released rule: in a formatted reply, the SVG after the last ``<answer>`` (with
    ``</answer>`` removed), else in the whole reply (:func:`last_svg`)."""
    text = response.split("<answer>")[-1].replace("</answer>", "") if formatted(
        response) else response
    svg = last_svg(text)
    return Extraction(svg or None, "sgp-genbench", None if svg else "no <svg in the response")


def recovered(svg: str) -> str | None:
    """``etree.tostring(etree.fromstring(svg, XMLParser(recover=True)))``: what the release
    hands to CairoSVG (a truncated SVG closed, junk dropped); None when nothing is left.
    Entities are not resolved and nothing is fetched (ours: svgeval's untrusted-input rule)."""
    parser = etree.XMLParser(recover=True, resolve_entities=False, no_network=True,
                             huge_tree=False)
    try:
        root = etree.fromstring(svg.encode("utf-8"), parser)
    except (etree.XMLSyntaxError, ValueError):
        return None
    return None if root is None else etree.tostring(root).decode("utf-8")


@extraction_rule("sgp-compbench")
def extract_compbench(response: str) -> Extraction:
    """``parse_svg_from_response``: from the first ``<svg`` to the first ``</svg>`` (searched
    from the start: an earlier ``</svg>`` gives an empty, invalid answer); a failure when
    either is missing."""
    start, end = response.find("<svg"), response.find("</svg>")
    if start == -1 or end == -1:
        return Extraction(None, "sgp-compbench", "no <svg and </svg> in the response")
    return Extraction(response[start : end + len("</svg>")], "sgp-compbench")


def well_formed(svg: str) -> bool:
    """``check_svg_validity``: the SVG parses as XML (entities not resolved)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    try:
        etree.fromstring(svg.encode("utf-8"), parser)
    except (etree.XMLSyntaxError, ValueError):
        return False
    return True


def released_verdict(reply: str) -> float:
    """The release's score: the first token after the first ``SCORE:`` if it is 100, 50, 30
    or 0; else the last of those four among every digit run of the reply; else 0 (scored as
    if the drawing failed)."""
    if "SCORE:" in reply:
        tokens = reply.split("SCORE:")[1].split()
        if tokens and tokens[0] in ALLOWED_VERDICTS:
            return float(tokens[0])
    found = [m for m in re.findall(r"(\d+)", reply) if m in ALLOWED_VERDICTS]
    return float(found[-1]) if found else 0.0


def strict_verdict(reply: str) -> float | None:
    """Ours: the integer right after the last ``SCORE:`` (``**``, ``:`` and spaces allowed
    between), one of 0, 30, 50, 100; anything else None (a judge failure, counted)."""
    marks = list(re.finditer(r"SCORE:", reply))
    if not marks:
        return None
    found = _STRICT.match(reply[marks[-1].end():])
    if found is None or found.group(1) not in ALLOWED_VERDICTS:
        return None
    return float(found.group(1))


def numeracy_score(total: float, item: float, bindings: Sequence[float]) -> float:
    """``int(0.2 total + 0.2 item + 0.6 mean(bindings))`` (``int`` truncates; no bindings:
    their mean is 0)."""
    mean = sum(bindings) / len(bindings) if bindings else 0.0
    return float(int(0.2 * float(total) + 0.2 * float(item) + 0.6 * float(mean)))


def diversity(features: np.ndarray) -> float | None:
    """``1 - mean`` of the pairwise cosines of the rows of ``features`` (one answer each, the
    DINO CLS features); None under two answers (the release's 0)."""
    if len(features) < 2:
        return None
    unit = features / np.linalg.norm(features, axis=1, keepdims=True)
    cosines = unit @ unit.T
    pairs = cosines[np.triu_indices(len(unit), k=1)]
    return float(1.0 - pairs.mean())


def released_diversity_mean(values: Sequence[float | None]) -> float | None:
    """``calculate_average_metrics``: the mean over the prompts whose diversity is above 0 (a
    prompt with under two valid answers counts as 0 and is left out, as is an exact 0)."""
    kept = [v for v in values if v is not None and v > 0]
    return sum(kept) / len(kept) if kept else None


def checked_diversity_mean(values: Sequence[float | None]) -> float | None:
    """Ours: the mean over every prompt with two valid answers or more, 0 included."""
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def tifa_choice(reply: str, choices: Sequence[str]) -> str | None:
    """The choice a VQA reply names: the reply itself when it is a choice (the release's first
    test), else the choice equal to it ignoring case and end punctuation, else the only choice
    it contains as a word; None otherwise (ours, in place of the release's SBERT nearest
    choice)."""
    if reply in choices:
        return reply
    plain = reply.strip().strip(".!\"'").strip().lower()
    equal = [c for c in choices if c.lower() == plain]
    if equal:
        return equal[0]
    within = [c for c in choices if re.search(rf"(?<!\w){re.escape(c.lower())}(?!\w)", plain)]
    return within[0] if len(within) == 1 else None


TIFA_PROMPT = ("Answer the multiple-choice question. Question: {question} "
               "Choices: {choices} Answer:")
"""``vqa_models.BLIP2.vqa`` (``:153-156``), the release's prompt for a model that reads the
choices: ``choices`` joined with ``", "``."""
