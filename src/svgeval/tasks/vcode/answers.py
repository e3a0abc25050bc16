"""VCode's released answer rules, weight-free: the SVG clean-up of the model's reply and how each
benchmark's CodeVQA answer is read and graded.

* :func:`clean_svg` -- ``clean_svg_output`` of ``img2svg2render/img2svg.py`` (reply stripped).
* CV-Bench (``evaluation/cv-bench/eval/coco/api_eval_new.py:17-102``): :func:`cvbench_prompt`;
  the scorer (``calculate_score.py``) is not in the release we could read, so
  :func:`cvbench_correct` (the reply's leading option letter equals the gold ``(A)``) is ours.
* MMMU (``evaluation/mmmu/run_api_local_images.py``; its ``utils/`` and ``configs/api.yaml`` are
  stored only as ``.pyc``): MMMU's own reference rules, :func:`mmmu_prompt` (``construct_prompt``
  with MMMU's prompt formats), :func:`mmmu_choice` (``parse_multi_choice_response``) and
  :func:`mmmu_open_correct` (``parse_open_response`` + ``eval_open``).
* MM-Vet (lmms-eval's ``tasks/mmvet/utils.py``, which VCode's script name points to):
  :func:`mmvet_grader_prompt` and :func:`mmvet_grade` (``float(reply.split(" ")[0])`` in
  [0, 1]).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence

CVBENCH_EXTENSION = "Answer with the option's letter from the given choices directly."
MMMU_CHOICE_FORMAT = "{}\n\n{}\n\nAnswer with the option's letter from the given choices directly."
MMMU_OPEN_FORMAT = "{}\n\nAnswer the question using a single word or phrase."
MMVET_ASK = ("First please perform reasoning, and think step by step to provide best answer to "
             "the following question: \n\n")
"""``run_benchmark_gpt4o-mini_lmms-eval.py``: this text, then the question (space before
``\\n\\n`` included)."""
MMVET_PROMPT = """Compare the ground truth and prediction from AI models, to give a correctness score for the prediction. <AND> in the ground truth means it is totally right only when all elements in the ground truth are present in the prediction, and <OR> means it is totally right when any one element in the ground truth is present in the prediction. The correctness score is 0.0 (totally wrong), 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, or 1.0 (totally right). Just complete the last space of the correctness score.
gpt_query_prompt | Ground truth | Prediction | Correctness
--- | --- | --- | ---
What is x in the equation? | -1 <AND> -5 | x = 3 | 0.0
What is x in the equation? | -1 <AND> -5 | x = -1 | 0.5
What is x in the equation? | -1 <AND> -5 | x = -5 | 0.5
What is x in the equation? | -1 <AND> -5 | x = -5 or 5 | 0.5
What is x in the equation? | -1 <AND> -5 | x = -1 or x = -5 | 1.0
Can you explain this meme? | This meme is poking fun at the fact that the names of the countries Iceland and Greenland are misleading. Despite its name, Iceland is known for its beautiful green landscapes, while Greenland is mostly covered in ice and snow. The meme is saying that the person has trust issues because the names of these countries do not accurately represent their landscapes. | The meme talks about Iceland and Greenland. It's pointing out that despite their names, Iceland is not very icy and Greenland isn't very green. | 0.4
Can you explain this meme? | This meme is poking fun at the fact that the names of the countries Iceland and Greenland are misleading. Despite its name, Iceland is known for its beautiful green landscapes, while Greenland is mostly covered in ice and snow. The meme is saying that the person has trust issues because the names of these countries do not accurately represent their landscapes. | The meme is using humor to point out the misleading nature of Iceland's and Greenland's names. Iceland, despite its name, has lush green landscapes while Greenland is mostly covered in ice and snow. The text 'This is why I have trust issues' is a playful way to suggest that these contradictions can lead to distrust or confusion. The humor in this meme is derived from the unexpected contrast between the names of the countries and their actual physical characteristics. | 1.0
"""
_LEADING_LETTER = re.compile(r"\s*\(?([A-F])\)?(?![A-Za-z])")


def clean_svg(reply: str) -> str | None:
    """``clean_svg_output``: fences dropped, cut from the first ``<svg...>`` to the last
    ``</svg>``; None (no file written) unless the result starts with ``<svg`` and ends with
    ``</svg>``."""
    text = re.sub(r"^```svg\s*", "", reply.strip(), flags=re.MULTILINE)
    text = re.sub(r"^```\s*$", "", text, flags=re.MULTILINE)
    text = re.sub(r"```$", "", text).strip()
    if not text.startswith("<svg"):
        found = re.search(r"<svg[^>]*>", text)
        if found:
            text = text[found.start():]
    if not text.endswith("</svg>") and (end := text.rfind("</svg>")) != -1:
        text = text[: end + len("</svg>")]
    return text if text.startswith("<svg") and text.endswith("</svg>") else None


def cvbench_prompt(question: str, choices: Sequence[str]) -> str:
    """``f"{question} Select from the following choices.\\n{choices}\\n{extension}"``."""
    listed = "\n".join(f"({chr(65 + i)}) {choice}" for i, choice in enumerate(choices))
    return f"{question} Select from the following choices.\n{listed}\n{CVBENCH_EXTENSION}"


def cvbench_correct(reply: str, gold: str) -> bool:
    """Ours (``calculate_score.py`` is not released): the reply's leading letter, bracketed or
    not, equals the letter of the gold ``(A)``."""
    found = _LEADING_LETTER.match(reply)
    return found is not None and f"({found.group(1)})" == gold.strip()


def mmmu_prompt(question: str, question_type: str, options: Sequence[str]) -> str:
    """MMMU's ``construct_prompt``: each option ``(A) text`` on a line of its own (with its
    newline) in the multiple-choice format, else the open format."""
    if question_type == "multiple-choice":
        listed = "".join(f"({chr(65 + i)}) {option}\n" for i, option in enumerate(options))
        return MMMU_CHOICE_FORMAT.format(question, listed)
    return MMMU_OPEN_FORMAT.format(question)


def mmmu_choice(reply: str, choices: Sequence[str], index2ans: Mapping[str, str],
                rng: random.Random | None) -> str | None:
    """``parse_multi_choice_response``: ``(A)``, else `` A ``, else (replies over 5 words) an
    option's text; several found: the one found last; none: a random option (``rng``; None
    returns None, ours)."""
    for char in (",", ".", "!", "?", ";", ":", "'"):
        reply = reply.strip(char)
    reply = f" {reply} "
    found = [c for c in choices if f"({c})" in reply]
    bracketed = bool(found)
    if not found:
        found = [c for c in choices if f" {c} " in reply]
    by_text = False
    if not found and len(reply.split()) > 5:
        found = [i for i, ans in index2ans.items() if ans.lower() in reply.lower()]
        by_text = bool(found)
    if not found:
        return rng.choice(list(choices)) if rng is not None else None
    if by_text:
        return max(found, key=lambda c: reply.lower().rfind(index2ans[c].lower()))
    return max(found, key=lambda c: reply.rfind(f"({c})" if bracketed else f" {c} "))


def _numbers(text: str) -> list[str]:
    """``extract_numbers``: numbers with thousands commas, in scientific notation, plain."""
    commas = re.findall(r"-?\b\d{1,3}(?:,\d{3})+\b", text)
    scientific = re.findall(r"-?\d+(?:\.\d+)?[eE][+-]?\d+", text)
    plain = re.findall(r"-?(?:\d+\.\d+|\.\d+|\d+)(?![eE][+-]?\d+)(?![,\d])", text)
    return commas + scientific + plain


def _normalized(text: str) -> list[str | float]:
    """``normalize_str``: a number rounded to 2 places, else the lower-cased text (a single
    character padded with a space on either side, to avoid matching inside words)."""
    text = text.strip()
    try:
        return [round(float(text.replace(",", "")), 2)]
    except ValueError:
        text = text.lower()
        return [" " + text, text + " "] if len(text) == 1 else [text]


def _key_answers(reply: str) -> list[str]:
    """``get_key_subresponses``: per sentence, the shortest text after an answer indicator."""
    reply = reply.strip().strip(".").lower()
    sentences = re.split(r"\.\s(?=[A-Z])|\n", reply)
    keys = []
    for index, sentence in enumerate(sentences):
        markers = ["could be ", "so ", "is ", "thus ", "therefore ", "final ", "answer ", "result "]
        if index == len(sentences) - 1:
            markers.append("=")
        tails = [sentence.split(m)[-1].strip() for m in markers if m in sentence]
        shortest = min(tails, key=len) if tails else ""
        if shortest and shortest not in (":", ",", ".", "!", "?", ";", "'"):
            keys.append(shortest)
    return keys or [reply]


def mmmu_open_correct(reply: str, gold: str) -> bool:
    """``eval_open`` of ``parse_open_response(reply)``: a gold text inside a predicted text, or
    a gold number equal to a predicted one."""
    keys = _key_answers(reply)
    predicted: list[str | float] = []
    for text in keys + [n for key in keys for n in _numbers(key)]:
        predicted.extend(_normalized(text))
    golds = _normalized(gold)
    for guess in set(predicted):
        if isinstance(guess, str):
            if any(isinstance(g, str) and g in guess for g in golds):
                return True
        elif guess in golds:
            return True
    return False


def mmvet_grader_prompt(question: str, answer: str, prediction: str) -> str:
    """``f"{MM_VET_PROMPT}\\n{question} | {answer} | {pred} |"``, ``<AND>``/``<OR>`` spaced."""
    gold = answer.replace("<AND>", " <AND> ").replace("<OR>", " <OR> ")
    return f"{MMVET_PROMPT}\n{question} | {gold} | {prediction} |"


def mmvet_grade(reply: str) -> float | None:
    """``float(reply.strip().split(" ")[0])`` when it lies in [0, 1]; None otherwise (the
    release retries at higher temperatures and then gives 0.0)."""
    try:
        value = float(reply.strip().split(" ")[0].strip())
    except ValueError:
        return None
    return value if 0.0 <= value <= 1.0 else None
