import random
import re
import subprocess
import sys

import pytest

from svgeval.svg.extract import _ANSWER, extract_svg, fenced_blocks, may_hold_answer, svg_element

SVG = '<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>'


def test_fenced_block_is_preferred() -> None:
    result = extract_svg(f"Here you go:\n```svg\n{SVG}\n```\nDone.")
    assert (result.svg, result.rule) == (SVG, "fenced")


def test_xml_fence_and_untagged_fence() -> None:
    assert extract_svg(f"```xml\n{SVG}\n```").svg == SVG
    assert extract_svg(f"```\n<?xml version='1.0'?>\n{SVG}\n```").svg == SVG


def test_answer_prefix_uses_the_last_answer() -> None:
    other = SVG.replace('width="1"', 'width="2"')
    result = extract_svg(f"Answer: draft {other} ... final\nAnswer: {SVG}")
    assert (result.svg, result.rule) == (SVG, "answer_prefix")


def test_bare_element_and_self_closing() -> None:
    assert extract_svg(f"text {SVG} more").rule == "bare"
    assert extract_svg('x <svg width="3"/> y').svg == '<svg width="3"/>'


ONE_REGEX = re.compile(r"<svg\b(?:[^<>]*?/>|[^>]*?>.*?</svg\s*>)", re.DOTALL | re.IGNORECASE)
"""What an SVG element is (module doc of svgeval.svg.extract), as one regex."""


def test_the_element_search_finds_what_the_one_regex_finds() -> None:
    pieces = ["<svg", "<SVG", "<ſvg", "<svgx", "</svg>", "</SVG \n>", "</svg", "/>", ">", "<",
              " a='/>'", '"', "x", "\n", "é", "```"]
    rng = random.Random(7)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
             for _ in range(20_000)]
    texts += ['<svg a="<svg/>" b', "<svg><svg/>", "<svg <svg/></svg>", "<svg>" * 50 + "<svg/>"]
    for text in texts:
        for start in {0, len(text) // 2}:
            found = ONE_REGEX.search(text, start)
            assert svg_element(text, start) == (found.group(0) if found else None), text


ONE_FENCE_REGEX = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)
"""What a Markdown code block is (``fenced_blocks``), as one regex."""


def test_the_block_search_finds_what_the_one_regex_finds() -> None:
    pieces = ["```", "```svg\n", "``", "`", "svg", "Xml", "c++", "é", " ", "\t", "\n", "\r\n",
              "<svg/>", "x y"]
    rng = random.Random(3)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 16)))
             for _ in range(20_000)]
    texts += ["```\t svg-1 title\n<svg/>```", "````svg\n<a/>```", "```svg```\nx```", "```svg"]
    assert sum(len(ONE_FENCE_REGEX.findall(text)) > 1 for text in texts) > 300
    assert sum(any(language for language, _ in ONE_FENCE_REGEX.findall(text))
               for text in texts) > 1_000
    for text in texts:
        assert list(fenced_blocks(text)) == ONE_FENCE_REGEX.findall(text), repr(text)


def test_the_answer_check_misses_no_answer_the_regex_finds() -> None:
    pieces = ["answer", "ANSWER", "AnSwEr", "anſwer", "ANſWER", "answe", "nswer", ":", "：", " ",
              "\n", "x", "Ä", "İ", "ſ", "a"]
    rng = random.Random(11)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 8))) for _ in range(20_000)]
    assert sum(bool(_ANSWER.search(text)) for text in texts) > 1_000
    for text in texts:
        if _ANSWER.search(text):
            assert may_hold_answer(text), text
    assert not may_hold_answer(f"<p>no such word</p>{SVG}")
    assert extract_svg(f"ANſWER : {SVG}").rule == "answer_prefix"


def test_failures_say_why() -> None:
    assert extract_svg("no code here").error == "no SVG code in the response"
    truncated = extract_svg('<svg xmlns="http://www.w3.org/2000/svg"><rect')
    assert truncated.svg is None and "closing" in (truncated.error or "")


def test_svgeditbench_rule_rejects_none_or_several_blocks() -> None:
    assert extract_svg(SVG, rule="svgeditbench").error == "no ```svg block in the response"
    two = f"```svg\n{SVG}\n```\n```svg\n{SVG}\n```"
    assert extract_svg(two, rule="svgeditbench").error == "2 ```svg blocks in the response"
    assert extract_svg(f"```svg\n{SVG}\n```", rule="svgeditbench").svg == SVG


@pytest.mark.e2e  # a fresh interpreter
def test_a_suites_rule_is_found_through_its_entry_point_in_a_fresh_process() -> None:
    code = ("import sys; from svgeval.svg.extract import extract_svg;"
            "e = extract_svg('x Answer:<svg>a</svg> <svg>b</svg>', 'svgenius');"
            "print(e.svg, e.rule, 'svgeval.tasks.svgenius' in sys.modules,"
            " 'svgeval.tasks.vectorgym' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["<svg>a</svg>", "svgenius:answer", "True", "False"]


def test_an_unknown_rule_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="unknown extraction rule 'nope'; known: auto, "):
        extract_svg("<svg/>", "nope")
