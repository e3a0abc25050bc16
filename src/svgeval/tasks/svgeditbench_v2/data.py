"""SVGEditBench V2 data: the released triplet folders and the emoji names CLIP scores against.

The benchmark (github.com/mti-lab/SVGEditBenchV2) ships ``assets/dataset.json`` (id, before and
after emoji file names, instruction, distance) and takes the SVGs from three emoji sets added
as git submodules (Twemoji, Noto Emoji, Fluent UI Emoji); ``src/restore_dataset.py`` writes one
folder per item, ``triplets/<id:04>/`` holding ``before.svg``, ``after.svg``, ``before.png``,
``after.png``, ``instruction.txt`` and ``metadata.json`` (``after``, ``before``, ``distance``).
That folder is what the released inference and ``9_calculate_metrics.py`` read, and what
``--data PATH`` points at. The data is not on the Hugging Face hub, and restoring it needs the
three emoji repositories, so svgeval downloads nothing here.

CLIP's caption is the name of the *after* emoji derived from its file name, as the released
``src/emojinames.py:get_name``: Fluent UI ``fluentui_flat_<words>_flat`` and
``fluentui_highcontrast_<words>_high_contrast`` give the words; Noto ``noto-emoji_emoji_u<cp>_..``
and Twemoji ``twemoji_<cp>-<cp>..`` give code points, named by Unicode (one code point), by
``emoji-zwj-sequences.txt`` (Unicode 16.0; ``--set zwj_sequences=PATH``), as ``keycap: <name>``
(ending in U+20E3), without a trailing U+FE0F, or else by joining the names of the parts between
U+200D with `` + ``.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.download import DataUnavailable

FILES = ("before.svg", "after.svg", "instruction.txt", "metadata.json")


@dataclass(frozen=True)
class Triplet:
    """One edit: the original SVG, the instruction, the target SVG and the target's name."""

    id: str
    before_svg: str
    after_svg: str
    instruction: str
    after_file: str


def load_triplets(root: Path | None) -> list[Triplet]:
    """Every triplet folder under ``root`` (ordered by name)."""
    if root is None:
        raise DataUnavailable(
            "SVGEditBench V2 is not downloadable as one file: restore its triplets folder with "
            "the released src/restore_dataset.py (github.com/mti-lab/SVGEditBenchV2) and pass "
            "--data PATH/triplets")
    if not root.is_dir():
        raise DataUnavailable(f"{root} is not a folder; pass --data PATH/triplets (the folder "
                              "src/restore_dataset.py writes)")
    triplets = [_read(folder) for folder in sorted(root.iterdir())
                if folder.is_dir() and (folder / "before.svg").is_file()]
    if not triplets:
        raise MalformedData(f"{root} holds no <id>/before.svg folders; pass --data PATH/triplets")
    return triplets


def _read(folder: Path) -> Triplet:
    texts: dict[str, str] = {}
    for name in FILES:
        try:
            texts[name] = (folder / name).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise MalformedData(f"{folder} has no {name}") from None
        except UnicodeDecodeError as error:
            raise MalformedData(f"{folder / name} is not UTF-8 ({error.reason})") from None
    try:
        metadata = json.loads(texts["metadata.json"])
        after = str(metadata["after"])
    except (json.JSONDecodeError, KeyError, TypeError):
        raise MalformedData(f"{folder / 'metadata.json'} is not an object with an 'after' "
                            "file name") from None
    return Triplet(id=folder.name, before_svg=texts["before.svg"], after_svg=texts["after.svg"],
                   instruction=texts["instruction.txt"], after_file=after)


def read_zwj_sequences(path: Path) -> dict[str, str]:
    """Names by code point sequence (upper-case hex joined by spaces) from Unicode's
    ``emoji-zwj-sequences.txt``: ``<code points> ; <type> ; <name> # <comment>`` lines."""
    names: dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise DataUnavailable(f"cannot read {path} ({error.strerror}); check --set "
                              "zwj_sequences") from None
    for line in lines:
        fields = line.split(";")
        if line.startswith("#") or not line.strip() or len(fields) < 3:
            continue
        names[fields[0].strip()] = fields[2].split("#")[0].strip()
    return names


def codepoints_name(codepoints: list[str], zwj: Mapping[str, str]) -> str:
    """The released ``get_name_from_codepoint``; ValueError when there is no name."""
    codes = [code.upper() for code in codepoints]
    if len(codes) == 1:
        value = int(codes[0], 16)
        if 0xE000 <= value <= 0xF8FF or 0xF0000 <= value <= 0xFFFFF:
            raise ValueError("emoji in a Private Use Area")
        return unicodedata.name(chr(value))
    if " ".join(codes) in zwj:
        return zwj[" ".join(codes)]
    if codes[-1] == "20E3":
        return "keycap: " + codepoints_name(codes[:-1], zwj)
    if codes[-1] == "FE0F":
        return codepoints_name(codes[:-1], zwj)
    if "200D" not in codes:
        raise ValueError("unknown sequence")
    parts, start = [], 0
    for end in [i for i, code in enumerate(codes) if code == "200D"] + [len(codes)]:
        parts.append(codepoints_name(codes[start:end], zwj))
        start = end + 1
    return " + ".join(parts)


def emoji_name(filename: str, zwj: Mapping[str, str]) -> str:
    """The caption of an emoji from its file name (released ``get_name``); ValueError when
    the file name is of no known set or its code points have no name."""
    words = filename.split(".")[0].split("_")
    source = words[0]
    if source == "fluentui" and len(words) > 1 and words[1] in ("flat", "highcontrast"):
        return " ".join(words[2:-1] if words[1] == "flat" else words[2:-2])
    if source == "noto-emoji":
        return codepoints_name([code.removeprefix("u") for code in words[2:]], zwj)
    if source == "twemoji" and len(words) > 1:
        return codepoints_name(words[1].split("-"), zwj)
    raise ValueError(f"unknown emoji set in {filename!r}")
