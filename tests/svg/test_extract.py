from svgeval.svg.extract import extract_svg

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


def test_failures_say_why() -> None:
    assert extract_svg("no code here").error == "no SVG code in the response"
    truncated = extract_svg('<svg xmlns="http://www.w3.org/2000/svg"><rect')
    assert truncated.svg is None and "closing" in (truncated.error or "")


def test_svgeditbench_rule_rejects_none_or_several_blocks() -> None:
    assert extract_svg(SVG, rule="svgeditbench").error == "no ```svg block in the response"
    two = f"```svg\n{SVG}\n```\n```svg\n{SVG}\n```"
    assert extract_svg(two, rule="svgeditbench").error == "2 ```svg blocks in the response"
    assert extract_svg(f"```svg\n{SVG}\n```", rule="svgeditbench").svg == SVG
