"""VCode's stored example results (CSU-JPG/VCode ``0e6e023f``, ``example_results/``) scored again
by svgeval's rules with no model call: the answers the CodeVQA model gave, rebuilt here row by row
(letters and grades only), must give the scores VCode stored beside them.
``tests/upstream/vcode.py`` does the same on the whole folder; the stored values below are those
files' numbers."""

from __future__ import annotations

import statistics

import pytest

from svgeval.tasks.vcode.answers import cvbench_correct, mmmu_choice, mmvet_grade

# Qwen3-VL, CV-Bench Omni3D (gpt-4o-mini-2024-07-18_answers_omni.jsonl, questionId 0-59): the
# option each answer names ("-": IMAGE_NOT_FOUND, a missing render; "?": a refusal such as
# "I'm unable to see the image ...") and the gold option
DEPTH_ANSWERS = "AA-AAB?AAAA-AAA?A-AAAAAAAAAAAA"
DEPTH_GOLD = "ABBBABAAAABBBAAABBBBABBAAABAAA"
RELATIVE_ANSWERS = "AAABBABA?AAAAAAAAABAAAABAABAAB"
RELATIVE_GOLD = "AAAABBBBAABAAAABBABABABBBABAAB"
# gpt-4o-mini-2024-07-18_final_scores.csv
STORED_CVBENCH = {"Depth Order": 0.5, "Relative Distance": 0.6666666666666666,
                  "Omni3D Accuracy": 0.5833333333333334}

# Intern-S1, MMMU (predictions/<Subject>/output.json): responses and gold options; scores.csv
MMMU = {"Agriculture": ("ADBDC", "BCBDE"), "Art": ("CCBBA", "CBABC"),
        "Basic_Medical_Science": ("CDACD", "CDACD"), "Geography": ("BBACA", "ACBDC"),
        "Pharmacy": ("ABAB", "BDAC")}
STORED_MMMU = {"Agriculture": 0.4, "Art": 0.4, "Basic_Medical_Science": 1.0, "Geography": 0.0,
               "Pharmacy": 0.25}

# Qwen3-VL, MM-Vet (gpt-4o-mini_gpt-4-0613-grade-1runs.json, v1_0 .. v1_217): each grader reply
# in tenths ("X" 1.0, "m" a missing render stored as "no prediction"); the total of
# gpt-4o-mini_gpt-4-0613-cap-score-1runs.csv
MMVET_GRADES = ("000X00X900XXXX0XX0XXX00X00X0X00XX00X0X00XXXXXX0000X0XXX000XXXX09000XX0"
                "00009m0m0XX0m01000XXX87X0Xm00000000m0000mmXXX0mX00mXmX00X90m0mm6950901"
                "00000000X07990046000000006m000000000000000m000000000001000000000000067"
                "70977767")
STORED_MMVET_TOTAL = 31.1


def reply(code: str) -> str:
    if code == "-":
        return "IMAGE_NOT_FOUND"
    if code == "?":
        return "I'm unable to see the objects highlighted by the boxes in the image"
    return f"({code}) object"


def accuracy(answered: str, gold: str) -> float:
    return statistics.mean(cvbench_correct(reply(a), f"({g})") for a, g in zip(answered, gold))


def test_cvbench_omni3d_scores_of_qwen3_vl_are_reproduced() -> None:
    depth = accuracy(DEPTH_ANSWERS, DEPTH_GOLD)
    relative = accuracy(RELATIVE_ANSWERS, RELATIVE_GOLD)
    omni = accuracy(DEPTH_ANSWERS + RELATIVE_ANSWERS, DEPTH_GOLD + RELATIVE_GOLD)
    assert (depth, relative, omni) == (STORED_CVBENCH["Depth Order"],
                                       STORED_CVBENCH["Relative Distance"],
                                       STORED_CVBENCH["Omni3D Accuracy"])


@pytest.mark.parametrize("subject", sorted(MMMU))
def test_mmmu_subject_scores_of_intern_s1_are_reproduced(subject: str) -> None:
    responses, golds = MMMU[subject]
    parsed = [mmmu_choice(r, "ABCDE", {c: f"option {c}" for c in "ABCDE"}, None)
              for r in responses]
    assert parsed == list(responses)  # a bare letter is its own option
    right = [p == g for p, g in zip(parsed, golds)]
    assert round(statistics.mean(right), 3) == STORED_MMMU[subject]


def test_mmvet_total_of_qwen3_vl_counts_missing_renders_as_zero() -> None:
    replies = ["no prediction" if c == "m" else ("1.0" if c == "X" else f"0.{c}")
               for c in MMVET_GRADES]
    grades = [mmvet_grade(text) for text in replies]
    assert len(grades) == 218 and grades.count(None) == 15  # the 15 missing renders
    scores = [grade or 0.0 for grade in grades]
    assert round(100 * statistics.mean(scores), 1) == STORED_MMVET_TOTAL
    # leaving the missing renders out (what svgeval's codevqa did before) gives another total
    answered = [grade for grade in grades if grade is not None]
    assert round(100 * statistics.mean(answered), 1) == 33.3
