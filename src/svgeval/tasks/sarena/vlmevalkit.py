"""Which SArena line a row of VLMEvalKit's prediction file answers.

VLMEvalKit's ``SArena`` dataset (``vlmeval/dataset/sarena.py``, open-compass/VLMEvalKit at
``e8e78f05``) asks its questions from ``SArena.tsv`` and scores the answers against the
unzipped release, one task file at a time (``TASK_CONFIGS_FULL`` of
``vlmeval/dataset/utils/sarena.py``: a level-1 name such as ``SArena-Icon`` and a level-2 name
such as ``Generation-I2SVG`` for each jsonl file). ``get_task_predictions_map`` picks the rows of
one file and keys them by the line's ``id``:

* a row belongs to (L1, L2) when its ``l2-category`` contains L2 and its ``l2-category``,
  ``category`` or ``dataset`` contains L1 (substrings, case ignored; a file without
  ``l2-category`` reads ``category`` for it, ``load_all_predictions_df``);
* its line id is the digits after the last ``_`` of ``l2-category``, else the ``id`` column,
  else the ``index`` column, whichever is all digits first (read as an integer).

:func:`line_id` is that rule; a task's samples are named by the same line ids (edit lines as
``<type>/<id>``), so a row maps to a sample id with no table in between. The hub's ``SArena.tsv``
itself was not read here: any layout VLMEvalKit's evaluation accepts is read the same way.
"""

from __future__ import annotations

from collections.abc import Mapping

LEVEL1 = {"icon": "SArena-Icon", "illustration": "SArena-Illustration",
          "chemistry": "SArena-Chemistry", "animation": "SArena-Animation"}
"""VLMEvalKit's level-1 name of each track."""
LEVEL2 = {"understanding": "Understanding", "text2svg": "Generation-T2SVG",
          "img2svg": "Generation-I2SVG", "text2sani": "Generation-T2SANI",
          "video2sani": "Generation-V2SANI"}
"""VLMEvalKit's level-2 name of each kind of task."""
EDIT_LEVEL2 = {
    "color_complex": "Edit-Color-Complex", "color_simple": "Edit-Color-Simple",
    "crop": "Edit-Crop", "flip": "Edit-Flip", "opacity": "Edit-Opacity",
    "outline": "Edit-Outline", "rotate": "Edit-Rotate", "scale": "Edit-Scale",
    "styletransform_openmoji": "Edit-StyleTransform", "translate": "Edit-Translate",
}
"""VLMEvalKit's level-2 name of each editing type."""


def line_id(row: Mapping[str, str], level1: str, level2: str) -> str | None:
    """The line id (digits, no leading zeros) that ``row`` answers in VLMEvalKit's task file
    (``level1``, ``level2``); None when the row is not of that file or names no line."""
    l2_category = row["l2-category"] if "l2-category" in row else row.get("category", "")
    if level2.lower() not in l2_category.lower():
        return None
    named = (l2_category, row.get("category", ""), row.get("dataset", ""))
    if not any(level1.lower() in cell.lower() for cell in named):
        return None
    candidates = (l2_category.rsplit("_", 1)[-1] if "_" in l2_category else "",
                  row.get("id", ""), row.get("index", ""))
    found = next((cell for cell in candidates if cell.isdigit()), None)
    return str(int(found)) if found is not None else None


def sample_id(row: Mapping[str, str], files: Mapping[str, tuple[str, str]]) -> str | None:
    """The sample id ``row`` answers among ``files`` (sample id prefix -> (L1, L2)), None when
    it answers none of them."""
    for prefix, (level1, level2) in files.items():
        found = line_id(row, level1, level2)
        if found is not None:
            return prefix + found
    return None
