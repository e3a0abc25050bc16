"""SVG folders read for the builders: the ``<svg>`` element of each file, in name order."""

from __future__ import annotations

from pathlib import Path

from svgeval.builders.svg_files import read_svg_folder, svg_element_text


def test_svg_element_text_drops_the_prolog() -> None:
    text = '<?xml version="1.0"?>\n<!-- made by hand -->\n<svg viewBox="0 0 1 1"><g/></svg>\n'
    assert svg_element_text(text) == '<svg viewBox="0 0 1 1"><g/></svg>'
    assert svg_element_text("<svg><svg/></svg>") is None
    assert svg_element_text("no svg") is None


def test_read_svg_folder_sorts_and_skips_unusable_files(tmp_path: Path) -> None:
    (tmp_path / "b.svg").write_text("<svg><rect/></svg>", encoding="utf-8")
    (tmp_path / "a.svg").write_text("<?xml version='1.0'?><svg><g/></svg>", encoding="utf-8")
    (tmp_path / "c.svg").write_bytes(b"\xff\xfe<svg></svg>")
    (tmp_path / "d.txt").write_text("<svg></svg>", encoding="utf-8")
    assert read_svg_folder(tmp_path) == {"a.svg": "<svg><g/></svg>", "b.svg": "<svg><rect/></svg>"}
