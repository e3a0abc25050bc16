"""The UniSVG authors' own scorer, ``evaluation.py`` in ``Ryanlijinke/unisvg.github.io`` at
``b7ab49b``, as the reading ``--set reading=authors`` (the default is VLMEvalKit's).

Where it differs from VLMEvalKit (line numbers of ``evaluation.py``):

* repair (``fix_svg``, ``:114-139``): every opened tag without a closing tag of its name is
  closed, leaf shapes included, so ``<path .../>`` gets a ``</path>`` and a truncated icon of
  self-closing paths no longer parses (:func:`extract_answer_svg`);
* an answer whose repaired SVG does not render is skipped before the row is counted
  (``:314-315``); PSNR ``inf`` (identical renders) is added as 0 (``:330``);
* colour rows read ``keywords.colors.colors`` and category rows ``keywords.category`` with no
  fallback (``:264``, ``:275``): metadata not under ``keywords`` raises ``KeyError``, a colour
  row whose only colour is white raises ``ZeroDivisionError`` (``:270``), and the row is dropped
  (``:402-405``) (:func:`colour_score`, :func:`category_score`: None);
* answers come from JSON, so an empty answer is ``""`` and the rules score it (``:176``,
  ``:393``);
* the final score indexes every type (``:489-524``): one with no counted row makes it fail.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from svgeval.svg.extract import Extraction, extraction_rule
from svgeval.tasks.unisvg.rules import extract_repaired

DROPPED = (KeyError, TypeError, AttributeError, ZeroDivisionError)
"""What ``evaluation.py``'s colour and category rules raise on such metadata (all caught by its
``except Exception``, ``:402-405``)."""


@extraction_rule("unisvg-authors")
def extract_answer_svg(response: str) -> Extraction:
    """``evaluation.py:291-301``: the first ``<svg ...>...</svg>``, else the text from the first
    ``<svg ...>`` repaired by its ``fix_svg`` (every unclosed tag closed, leaves included)."""
    return extract_repaired(response, "unisvg-authors", leaves=())


def colour_score(answer: str, metadata: Mapping[str, Any]) -> float | None:
    """``evaluation.py:263-270``: ``|words(answer) & C| / |C|``, ``C`` the lower-cased
    ``keywords.colors.colors`` minus ``white``; None (row dropped) when that raises."""
    try:
        wanted = {c.lower() for c in metadata["keywords"]["colors"]["colors"]
                  if c.lower() != "white"}
        said = set(re.findall(r"\b\w+\b", answer.lower()))
        return len(said & wanted) / len(wanted)
    except DROPPED:
        return None


def category_score(answer: str, metadata: Mapping[str, Any]) -> float | None:
    """``evaluation.py:275-281``: 1 when a ``keywords.category`` entry, lower-case or
    capitalised, is a substring of the answer (a string is iterated by character); None (row
    dropped) when that raises."""
    try:
        categories = metadata["keywords"]["category"]
        forms = {c.lower() for c in categories} | {c.capitalize() for c in categories}
    except DROPPED:
        return None
    return 1.0 if any(form in answer for form in forms) else 0.0
