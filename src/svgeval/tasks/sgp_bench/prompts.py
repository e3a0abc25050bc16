"""SGP-Bench prompts and answer extraction, word for word from the release
(``sgp-bench/sgp-bench`` e790639, adapted from openai/simple-evals).

* :data:`MCQ_TEMPLATE`: ``common.QUERY_TEMPLATE_MULTICHOICE`` (``common.py:12-21``), filled with
  ``str.format(**row)``; :data:`MNIST_TEMPLATE`: ``mnist_eval.QUERY_TEMPLATE`` (``:20-26``; the
  source's ``\\\\boxed`` in a plain string is one backslash); :data:`EQUALITY_TEMPLATE`:
  ``common.EQUALITY_TEMPLATE`` (``:39-97``), the MNIST answer check sent to a judge.
* System message: the OpenAI and Claude samplers send ``"You are a helpful assistant."``, the
  open-model sampler ``"You are a large language model trained."``, and ``demo.py`` sends none
  for gemma, mistral and starcoder (``--set system=helpful|open|none``).
* Extraction: ``re.search(r"(?i)Answer\\s*:\\s*([A-D])", response)``, the **first** match as it
  is (``answer: b`` gives ``b``, which the release then scores wrong) -- reading ``sgp-bench``;
  ``last`` (ours) takes the last match, upper-cased. MNIST: ``(?i)Answer\\s*:\\s*([^\\n]+)``.
"""

from __future__ import annotations

import re
from typing import Literal

MCQ_TEMPLATE = (
    "Answer the following multiple choice question. The last line of your response should be "
    "of the following format: 'Answer: $LETTER' (without quotes) where LETTER is one of ABCD. "
    "Think step by step before answering.\n\n{Question}\n\nA) {A}\nB) {B}\nC) {C}\nD) {D}"
)
MNIST_TEMPLATE = (
    "Solve the following problem step by step. The last line of your response should be of the "
    "form Answer: $ANSWER (without quotes) where $ANSWER is the answer to the problem.\n\n"
    "{Question}\n\nImportant, put your answer on its own line after \"Answer:\", and you do not "
    "need to use a \\boxed command."
)
EQUALITY_TEMPLATE = r"""Look at the following two expressions (answers to a math problem) and judge whether they are equivalent. Only perform trivial simplifications

Examples:

    Expression 1: $2x+3$
    Expression 2: $3+2x$

Yes

    Expression 1: 3/2
    Expression 2: 1.5

Yes

    Expression 1: $x^2+2x+1$
    Expression 2: $y^2+2y+1$

No

    Expression 1: $x^2+2x+1$
    Expression 2: $(x+1)^2$

Yes

    Expression 1: 3245/5
    Expression 2: 649

No
(these are actually equal, don't mark them equivalent if you need to do nontrivial simplifications)

    Expression 1: 2/(-3)
    Expression 2: -2/3

Yes
(trivial simplifications are allowed)

    Expression 1: 72 degrees
    Expression 2: 72

Yes
(give benefit of the doubt to units)

    Expression 1: 64
    Expression 2: 64 square feet

Yes
(give benefit of the doubt to units)

---

YOUR TASK


Respond with only "Yes" or "No" (without quotes). Do not include a rationale.

    Expression 1: %(expression1)s
    Expression 2: %(expression2)s"""

SystemMessage = Literal["helpful", "open", "none"]
SYSTEM_MESSAGES: dict[str, str | None] = {
    "helpful": "You are a helpful assistant.",
    "open": "You are a large language model trained.",
    "none": None,
}
Reading = Literal["sgp-bench", "last"]

_LETTER = re.compile(r"(?i)Answer\s*:\s*([A-D])")
_LINE = re.compile(r"(?i)Answer\s*:\s*([^\n]+)")


def extract_letter(response: str, reading: Reading) -> str | None:
    """The option letter under ``reading`` (None when ``Answer: <A-D>`` does not occur)."""
    found: list[str] = _LETTER.findall(response)
    if not found:
        return None
    return found[0] if reading == "sgp-bench" else found[-1].upper()


def extract_line(response: str) -> str | None:
    """MNIST's answer: the rest of the line after the first ``Answer:`` (None without one)."""
    found = _LINE.search(response)
    return str(found.group(1)) if found else None


def equality_verdict(reply: str) -> float:
    """``check_equality`` as a percentage: 100 when the judge's reply is ``yes`` (any case,
    stripped), else 0; every reply is a verdict, as released."""
    return 100.0 if reply.lower().strip() == "yes" else 0.0


def same_number(answer: str | None, gold: str) -> bool:
    """Ours (``accuracy_exact``): the answer line and the gold digit are the same integer once
    stripped (the same text when either is not an integer)."""
    if answer is None:
        return False
    try:
        return int(answer.strip()) == int(gold.strip())
    except ValueError:
        return answer.strip() == gold.strip()
