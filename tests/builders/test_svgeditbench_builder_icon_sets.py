"""SVGEditBench's builder on icon sets unlike Twemoji: outline icons, a logo, mixed colour spellings.

Expectations come from the corpus itself (which icons have fill colours, which look the same
upside down) and from the release, never from the builder's own output.
"""

from __future__ import annotations

import json
import re
import types
from pathlib import Path

import pytest
from lxml import etree
from support.generator_corpus import (
    CORPUS,
    EMOJI,
    EMOJI_STEM,
    OUTLINE_ICONS,
    VERTICALLY_SYMMETRIC,
    write_corpus,
)
from support.shared_paths import shared_release
from typer.testing import CliRunner

from svgeval.builders.svgeditbench import emoji_names
from svgeval.builders.svgeditbench.builder import TARGET_COLORS, answer_for, build_benchmark
from svgeval.cli import app
from svgeval.render.isolated import Renderer
from svgeval.tasks.svgeditbench.data import load_release
from svgeval.tasks.svgeditbench.prompts import build_prompt

cli = CliRunner()
NO_FILL = sorted([*OUTLINE_ICONS, "droplet-logo"])
"""Icons without a fill colour: the outline set (``fill="none"``) and the logo (no ``fill``)."""


def test_a_set_without_fill_colours_builds_runs_and_says_what_it_skipped(tmp_path: Path) -> None:
    icons, built = write_corpus(tmp_path / "icons"), tmp_path / "built"
    result = cli.invoke(app, ["svgeditbench", "build", str(icons), "--out", str(built)])
    assert result.exit_code == 0, result.output
    expected = 6 * len(CORPUS) - 2 * len(NO_FILL) - len(VERTICALLY_SYMMETRIC)
    assert f"wrote {expected} cases to {built}" in result.output
    shown = ", ".join(NO_FILL[:3])
    for subtask in ("change_color", "set_contour"):
        line = f"skipped {len(NO_FILL)} {subtask} cases: no fill colour (e.g. {shown}, ...)"
        assert line in result.output
    assert f"skipped {len(VERTICALLY_SYMMETRIC)} upside_down cases: the edit does not " in (
        result.output
    )
    assert len(load_release(built)) == expected
    for model in ("identity", "oracle"):
        run = tmp_path / model
        args = ["run", "svgeditbench", "--data", str(built), "--model", model, "--out", str(run)]
        outcome = cli.invoke(app, args)
        assert outcome.exit_code == 0, outcome.output
        results = json.loads((run / "results.json").read_text())
        assert results["complete"] and results["n"] == results["n_valid"] == expected
    oracle = json.loads((tmp_path / "oracle" / "results.json").read_text())["metrics"]
    assert all(value == 0.0 for key, value in oracle.items() if "mse" in key)


def test_flips_that_change_nothing_are_left_out(tmp_path: Path, renderer: Renderer) -> None:
    build = build_benchmark(sorted(write_corpus(tmp_path).glob("*.svg")), renderer=renderer)
    unchanged = {
        skip.source
        for skip in build.skipped.entries
        if skip.reason == "the edit does not change the render"
    }
    assert unchanged == set(VERTICALLY_SYMMETRIC)
    flipped = {case.case_id for case in build.cases if case.subtask == "upside_down"}
    assert flipped == {Path(name).stem for name in CORPUS} - set(VERTICALLY_SYMMETRIC)


def test_one_colour_in_several_spellings_is_recoloured_everywhere() -> None:
    answer = answer_for(EMOJI, "change_color", "#fff", "red")
    assert answer is not None
    fills = [element.get("fill") for element in etree.fromstring(answer).iter()]
    # #fff, white and #FFFFFF are one colour: the teeth and both eye highlights
    assert fills.count("red") == 3 and fills.count("#664500") == 3
    cheeks = answer_for(EMOJI, "set_contour", "#F4ABBA", None)
    assert cheeks is not None and cheeks.count('stroke="black" stroke-width="1"') == 2


@pytest.mark.parametrize(("style", "green"), [("release", "#008000"), ("paper", "#0f0")])
def test_the_target_colour_is_never_the_source(
    tmp_path: Path, renderer: Renderer, style: str, green: str
) -> None:
    """The only fill is what the style writes for green: every other target can be drawn."""
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8">'
        f'<rect width="6" height="4" fill="{green}"/></svg>'
    )
    for number in range(40):
        (tmp_path / f"icon-{number}.svg").write_text(svg, encoding="utf-8")
    build = build_benchmark(
        sorted(tmp_path.glob("*.svg")), seed=5, colors=style, renderer=renderer  # type: ignore[arg-type]
    )
    queries = [case.query for case in build.cases if case.subtask == "change_color"]
    assert len(queries) == 40
    drawn = {re.search(r" to (\w+)\.", query).group(1) for query in queries}  # type: ignore[union-attr]
    assert drawn == set(TARGET_COLORS) - {"green"}


def _unicodedata_without_names() -> types.SimpleNamespace:
    """A stand-in for a Python whose Unicode table names nothing."""
    return types.SimpleNamespace(name=lambda char, default="": default, unidata_version="0")


def test_emoji_names_never_fall_back_to_code_points(monkeypatch: pytest.MonkeyPatch) -> None:
    assert emoji_names.emoji_name("1f600") == "grinning face"  # this Python's table
    assert emoji_names.emoji_name("31-20e3") == "digit one combining enclosing keycap"
    for word in ("cafe", "face", "404", "2024", "traffic-light"):  # hex-looking words stay words
        assert emoji_names.emoji_name(word) == word.replace("-", " ")
    monkeypatch.setattr(emoji_names, "unicodedata", _unicodedata_without_names())
    assert emoji_names.emoji_name("1f3a9") == "top hat"  # bundled: the release's code points
    assert emoji_names.emoji_name("1f600") is None


def test_bundled_names_agree_with_this_pythons_table() -> None:
    import unicodedata

    for code_point, name in emoji_names.RELEASE_NAMES.items():
        known = unicodedata.name(chr(code_point), "")
        assert known.lower() in ("", name), hex(code_point)


def test_icons_without_a_name_are_left_out_and_reported(
    tmp_path: Path, renderer: Renderer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(emoji_names, "unicodedata", _unicodedata_without_names())
    for stem in (EMOJI_STEM, "1f600"):  # the first is in the bundled table, the second is not
        (tmp_path / f"{stem}.svg").write_text(EMOJI, encoding="utf-8")
    build = build_benchmark(sorted(tmp_path.glob("*.svg")), renderer=renderer)
    assert {case.case_id for case in build.cases} == {EMOJI_STEM}
    assert "smiling face with smiling eyes" in build.cases[0].query
    (line,) = build.skipped.lines()
    assert line.startswith("skipped 1 source: names emoji that neither the bundled table nor")
    assert line.endswith("(1f600)")


@pytest.mark.shared_data
@pytest.mark.parametrize("table", ["python", "bundled only"])
def test_the_600_released_prompts_are_rebuilt_byte_for_byte(
    table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if table == "bundled only":
        monkeypatch.setattr(emoji_names, "unicodedata", _unicodedata_without_names())
    samples = load_release(shared_release("svgeditbench"))
    assert len(samples) == 600
    for sample in samples:
        query = sample.messages[0]["content"]
        found = re.search(r"with a (\S+) color(?: to (\w+))?", query)
        color, target = (found.group(1), found.group(2)) if found else (None, None)
        name = emoji_names.emoji_name(sample.id.split("/")[1])
        assert name is not None, sample.id
        rebuilt = build_prompt(sample.group, name, sample.input_svg or "", color, target)
        assert rebuilt == query, sample.id
