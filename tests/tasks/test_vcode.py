"""VCode: the released clean-up, prompts and answer rules, and end-to-end runs of the three
CodeVQA tasks judged by a real local HTTP server.

How the expected values were obtained:
* ``clean_svg``: ``clean_svg_output`` of CSU-JPG/VCode ``img2svg2render/img2svg.py`` @ 296e42a,
  loaded unmodified through ``ast`` and run on ``support.vcode_data.CLEAN_REPLIES`` by
  ``tests/upstream/vcode_clean.py``, which prints ``RELEASED_CLEAN`` (equal when last run).
* CV-Bench prompt: the f-string of ``evaluation/cv-bench/eval/coco/api_eval_new.py`` written out
  by hand for the first record of the release's ``annotations.jsonl``.
* MMMU rules, MM-Vet grade, SigLIP/success aggregation: hand-computed from the released rules
  (MMMU's ``eval_utils.py``, lmms-eval's ``mmvet/utils.py``, VCode's ``metrics.py:69-122``),
  each worked out in a comment beside the assertion.
"""

from __future__ import annotations

import base64
import io
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from support.fake_openai_server import FakeOpenAIServer, message_images, message_text
from support.vcode_data import CLEAN_REPLIES
from typer.testing import CliRunner

from svgeval.builders.vcode import builtin
from svgeval.builders.vcode.builtin import cvbench_record, mmmu_record, write_json
from svgeval.cli import app
from svgeval.tasks import get_task
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.vcode import answers
from svgeval.tasks.vcode.data import MMMU_FOLDER
from svgeval.tasks.vcode.task import PROMPT, render_size

QUESTION = ("Which object is closer to the camera taking this photo, the stationery (highlighted "
            "by a red box) or the bin (highlighted by a blue box)?")


# tests/upstream/vcode_clean.py: the released clean_svg_output on each of CLEAN_REPLIES
RELEASED_CLEAN = {'```svg\n<svg viewBox="0 0 1 1"></svg>\n```': '<svg viewBox="0 0 1 1"></svg>',
                  "Here it is: <svg></svg> thanks": "<svg></svg>", "<svg><rect/>": None,
                  "```xml\n<svg></svg>\n```": "<svg></svg>"}


def test_clean_svg_is_the_released_clean_up() -> None:
    assert {reply: answers.clean_svg(reply) for reply in CLEAN_REPLIES} == RELEASED_CLEAN


def test_the_answering_prompts_word_for_word() -> None:
    assert answers.cvbench_prompt(QUESTION, ["stationery", "bin"]) == (
        QUESTION + " Select from the following choices.\n(A) stationery\n(B) bin\n"
        "Answer with the option's letter from the given choices directly.")
    assert answers.mmmu_prompt("What is x? <image 1>", "multiple-choice", ["1", "2"]) == (
        "What is x? <image 1>\n\n(A) 1\n(B) 2\n\n\n"
        "Answer with the option's letter from the given choices directly.")
    assert answers.mmmu_prompt("Name it.", "open", []) == (
        "Name it.\n\nAnswer the question using a single word or phrase.")
    assert "explanations  \n" in PROMPT and PROMPT.endswith("Generate the SVG now:")
    grader = answers.mmvet_grader_prompt("Q?", "a<AND>b", "pred")
    assert grader.endswith("| 1.0\n\nQ? | a <AND> b | pred |")


def test_cvbench_letter_rule() -> None:
    assert answers.cvbench_correct("(A)", "(A)") and answers.cvbench_correct("A. stationery", "(A)")
    assert not answers.cvbench_correct("B", "(A)") and not answers.cvbench_correct("Answer: A", "(A)")
    assert not answers.cvbench_correct("IMAGE_NOT_FOUND", "(A)")


def test_mmmu_rules_by_hand() -> None:
    choices, index2ans = ["A", "B", "C"], {"A": "red", "B": "blue", "C": "green"}
    # "(B)" found first by the bracket rule; "(A) or (C)": both bracketed, the last one wins
    assert answers.mmmu_choice("The answer is (B).", choices, index2ans, None) == "B"
    assert answers.mmmu_choice("(A) or maybe (C)", choices, index2ans, None) == "C"
    # no letter; over 5 words: option texts, the one found last ("green" at 24 > "blue" at 11)
    assert answers.mmmu_choice("it is not blue, it looks green to me", choices, index2ans,
                               None) == "C"
    # nothing: the release picks at random (seeded here), the corrected reading gives None
    assert answers.mmmu_choice("no idea", choices, index2ans, None) is None
    assert answers.mmmu_choice("no idea", choices, index2ans, random.Random(0)) in choices
    # open: "the answer is 3.50" -> key "3.50" -> 3.5 equals the gold "3.5"; "35" does not
    assert answers.mmmu_open_correct("The answer is 3.50", "3.5")
    assert not answers.mmmu_open_correct("The answer is 35", "3.5")
    assert answers.mmmu_open_correct("So the animal is a zebra.", "Zebra")


def test_mmvet_grade_as_released() -> None:
    # float(reply.split(" ")[0]) in [0, 1]; "0.5." and 1.5 are not grades
    assert answers.mmvet_grade("0.7") == 0.7 and answers.mmvet_grade(" 1.0 correct") == 1.0
    assert answers.mmvet_grade("0.5.") is None and answers.mmvet_grade("1.5") is None
    assert answers.mmvet_grade("") is None


def test_render_size_is_three_times_the_svgs_own() -> None:
    assert render_size('<svg width="10" height="4"/>') == (30, 12)
    assert render_size('<svg viewBox="0 0 20 10"/>') == (60, 30)
    assert render_size('<svg width="1in" height="1in"/>') == (288, 288)
    assert render_size("<svg/>") == (300, 300)  # ours: 100 x 100 without a size


def picture(path: Path, colour: tuple[int, int, int], size: tuple[int, int] = (24, 12)) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, colour).save(path)


def build_data(root: Path) -> Path:
    """One question per benchmark part, in the repository's data/ layout, pictures all red."""
    data = root / "data"
    red = (220, 20, 20)
    picture(data / "mm-vet/images/rec/v1_0.png", red)
    picture(data / "mm-vet/images/ocr/v1_1.png", red)
    write_json(data / "mm-vet/mm-vet.json", {
        "v1_1": {"imagename": "v1_1.png", "question": "Colour?", "answer": "red<OR>crimson",
                 "capability": "rec"},
        "v1_0": {"imagename": "v1_0.png", "question": "Main colour?", "answer": "red",
                 "capability": "rec,ocr"}})
    for dim, task, source in (("2D", "count", "COCO"), ("2D", "relation", "ADE20K"),
                              ("3D", "depth", "Omni3D")):
        record = cvbench_record(dim, task, source, 1, QUESTION, ["stationery", "bin"], "(A)",
                                suffix=".jpg")
        picture(data / "cv-bench/img" / record["image_path"], red)
        write_json(data / f"cv-bench/img/{dim}/{task}/annotations.jsonl", [record], lines=True)
    math = data / MMMU_FOLDER / "Math"
    picture(math / "dev_Math_1_img1.png", red)
    picture(math / "dev_Math_2_img1.png", red)
    write_json(math / "output.json", [
        mmmu_record("dev_Math_1", "Which colour? <image 1>", ["red", "blue"], "A"),
        mmmu_record("dev_Math_2", "Name the colour. <image 1>", [], "red")])
    return root


def is_red(body: dict[str, Any]) -> bool:
    images = [u for m in body["messages"] for u in message_images(m)]
    if not images:
        return False
    png = base64.b64decode(images[0].split(",", 1)[1])
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    return bool(((pixels[..., 0] > 180) & (pixels[..., 1] < 60)).mean() > 0.9)


def vqa(body: dict[str, Any]) -> str:
    """Answers right from a red picture, wrong otherwise; grades MM-Vet by the word red."""
    text = message_text(body["messages"][-1])
    if text.startswith("Compare the ground truth"):
        return "1.0" if text.endswith("| red |") else "0.0"
    right = is_red(body)
    if "Select from the following choices" in text or "option's letter" in text:
        return "(A)" if right else "(B)"
    return "red" if right else "blue"


def run(task: str, data: Path, out: Path, model: str, server: FakeOpenAIServer) -> dict[str, Any]:
    result = CliRunner().invoke(app, [
        "run", task, "--data", str(data), "--model", model, "--out", str(out),
        "--judge", "openai-compatible:vqa", "--judge-base-url", server.base_url])
    assert result.exit_code == 0, result.output
    return dict(json.loads((out / "results.json").read_text()))


def replay(path: Path, ids: list[str], svg: str) -> str:
    path.write_text("".join(json.dumps({"id": i, "response": svg}) + "\n" for i in ids))
    return f"replay:{path}"


BLUE = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="4"><rect width="8" height="4" fill="#1428dc"/></svg>'
CASES = [("vcode-mmvet", ["v1_0", "v1_1"], "all"), ("vcode-cvbench",
          ["2D/count/images/coco_1", "2D/relation/images/ade20k_1", "3D/depth/images/omni3d_1"],
          "all"), ("vcode-mmmu", ["dev_Math_1", "dev_Math_2"], "all")]


@pytest.mark.parametrize(("task", "ids", "group"), CASES)
def test_oracle_scores_best_and_wrong_or_empty_answers_lower(
        task: str, ids: list[str], group: str, tmp_path: Path, tiny_siglip_dir: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVGEVAL_SIGLIP_MODEL", str(tiny_siglip_dir))
    data = build_data(tmp_path)
    with FakeOpenAIServer(reply=vqa) as server:
        best = run(task, data, tmp_path / "o", "oracle", server)["metrics"]
        if task == "vcode-mmvet":
            best = {k.replace("mm-vet/", "all/"): v for k, v in best.items()}
        assert best[f"{group}/codevqa"] == 100.0 and best[f"{group}/codevqa_all"] == 100.0
        assert best[f"{group}/success_rate"] == 100.0
        assert best[f"{group}/siglip"] == pytest.approx(1.0, abs=1e-4)
        assert best[f"{group}/tokens"] > 0
        wrong = run(task, data, tmp_path / "w", replay(tmp_path / "w.jsonl", ids, BLUE),
                    server)["metrics"]
        wrong = {k.replace("mm-vet/", "all/"): v for k, v in wrong.items()}
        assert wrong[f"{group}/codevqa"] == 0.0 and wrong[f"{group}/success_rate"] == 100.0
        assert wrong[f"{group}/siglip"] < best[f"{group}/siglip"]
        # 40: len(tiktoken.get_encoding("cl100k_base").encode(BLUE)), tiktoken's own encoding
        # definition run on the same text (its BPE file placed in TIKTOKEN_CACHE_DIR)
        assert wrong[f"{group}/tokens"] == 40.0
        empty = run(task, data, tmp_path / "e", "identity", server)["metrics"]
        empty = {k.replace("mm-vet/", "all/"): v for k, v in empty.items()}
        assert empty[f"{group}/success_rate"] == 0.0 and empty[f"{group}/codevqa_all"] == 0.0
        assert empty[f"{group}/siglip"] is None and empty[f"{group}/siglip_all"] == 0.0
        # a missing render is wrong everywhere (MM-Vet's released grade file scores it 0)
        assert empty[f"{group}/codevqa"] == 0.0


def test_missing_data_is_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "vcode-cvbench", "--model", "oracle",
                                      "--out", str(tmp_path / "r")])
    assert result.exit_code != 0 and "pass --data" in result.output


def test_samples_carry_the_picture_first_then_the_prompt(tmp_path: Path) -> None:
    data = build_data(tmp_path)
    sample = get_task("vcode-mmvet")(CommonOptions(data=data)).load()[0]
    assert sample.id == "v1_0"  # ids in the order of the integer after "_"
    (part, text) = sample.messages[0]["content"]
    assert part["image_url"]["url"].startswith("data:image/png;base64,") and text["text"] == PROMPT


def test_an_mmmu_field_of_the_wrong_type_is_one_line(tmp_path: Path) -> None:
    data = build_data(tmp_path)
    output = data / "data/mmmu/mmmu_dev_processed_single_img_subset/Math/output.json"
    records = json.loads(output.read_text())
    records[0]["index2ans"] = ["red", "blue"]  # a list where the letters' mapping belongs
    output.write_text(json.dumps(records))
    with pytest.raises(MalformedData, match=r"dev_Math_1: index2ans: ") as raised:
        get_task("vcode-mmmu")(CommonOptions(data=data)).load()
    assert "\n" not in str(raised.value)


def test_the_builtin_data_draws_back_at_three_times(tmp_path: Path) -> None:
    """The built-in sample: four MM-Vet questions, two CV-Bench questions per source and two
    MMMU questions per subject, each gold among its options, and every oracle SVG a third of
    its picture's size, so the 3 x render is the picture's size."""
    builtin.write(tmp_path)
    groups = {"vcode-mmvet": {"mm-vet": 4}, "vcode-cvbench": dict.fromkeys(
        ("COCO", "ADE20K", "Omni3D"), 2), "vcode-mmmu": {"Art": 2, "Math": 2}}
    for name, expected in groups.items():
        samples = get_task(name)(CommonOptions(data=tmp_path)).load()
        assert Counter(sample.group for sample in samples) == expected, name
        for sample in samples:
            target: Any = sample.target
            assert Image.open(target.image).size == render_size(sample.reference), sample.id
            if name == "vcode-cvbench":
                assert target.answer in [f"({chr(65 + i)})" for i in range(len(target.choices))]
            elif name == "vcode-mmmu" and target.question_type == "multiple-choice":
                assert target.answer in target.all_choices
