"""The inputs of SGP-Bench's released-value checks: ``tests/tasks/test_sgp_bench.py`` asserts on
them and ``tests/upstream/sgp_bench.py`` runs the release on them."""

from __future__ import annotations

PROMPT_ROW = {"Question": "<svg>…</svg> What is drawn?", "A": "cat", "B": "dog", "C": "car",
              "D": "tree"}
"""A question whose multiple-choice prompt the test compares word for word."""
EXTRACTION_REPLIES = ("Answer: B", "answer: b", "Answer : C\n",
                      "The answer: A. On reflection...\nAnswer: D", "**Answer:** B",
                      "Answer: (B)", "I think B.", "ANSWER:D", "Answer:\nB")
"""Replies whose letter the release reads (or not)."""
AGGREGATED = (("Color", 1.0), ("Color", 0.0), ("Shape", 1.0), ("Color", 1.0))
"""(subject, score) per answered question, aggregated per subject."""
CONSISTENCY_GOLD = "A"
CONSISTENCY_ANSWERS = {"inv": "AAB", "inv_t0": "AAB", "inv_t1": "ABC", "inv_t2": "AAD",
                       "inv_t3": "ABB", "inv_t4": "AAC"}
"""The letters answered to three questions (gold ``CONSISTENCY_GOLD``) in the translation
invariance splits."""
