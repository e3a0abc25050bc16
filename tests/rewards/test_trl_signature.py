"""The TRL reward-function signature and the curriculum sampler."""

from __future__ import annotations

from collections import Counter

import pytest
from cases import PERTURBED, REFERENCE, UNRELATED

pytest.importorskip("torch", reason="the curriculum sampler is a torch Sampler (models extra)")

from svgeval.rewards import (
    CurriculumSampler,
    completion_text,
    curriculum_order,
    svg_reward,
)


def test_trl_signature_with_conversational_completions() -> None:
    reward = svg_reward("fast", workers=1)
    try:
        completions = [[{"role": "assistant", "content": c}]
                       for c in (REFERENCE, PERTURBED, UNRELATED, "no svg")]
        rewards = reward(prompts=["draw a house"] * 4, completions=completions,
                         completion_ids=[[1]] * 4, reference=[REFERENCE] * 4,
                         task=["text2svg"] * 4, trainer_state=None)
        assert reward.__name__ == "svg_reward_fast"
        assert rewards[0] == pytest.approx(1.0) and rewards[3] == -1.0
        assert rewards[0] > rewards[1] > rewards[2] > rewards[3]  # type: ignore[operator]
        assert reward.last_results[1].components["pixel"] < 1.0
        with pytest.raises(KeyError, match="reference"):
            reward(prompts=["p"], completions=["x"], solution=[REFERENCE])
    finally:
        reward.close()


def test_completion_text_forms() -> None:
    assert completion_text("abc") == "abc"
    assert completion_text([{"role": "assistant", "content": [{"type": "text", "text": "a"},
                                                              {"type": "text", "text": "b"}]}]) == "ab"
    assert completion_text([]) == ""


def test_curriculum_sorts_within_task_and_mixes_by_frequency() -> None:
    tasks = ["edit"] * 6 + ["caption"] * 3 + ["text2svg"] * 3
    lengths = [60, 10, 50, 20, 40, 30, 9, 3, 6, 300, 100, 200]
    order = curriculum_order(tasks, lengths)
    assert sorted(order) == list(range(12))
    for task in set(tasks):
        picked = [lengths[i] for i in order if tasks[i] == task]
        assert picked == sorted(picked)
    for end in range(4, 13, 4):  # every minibatch of 4 holds 2 edit, 1 caption, 1 text2svg
        counts = Counter(tasks[i] for i in order[end - 4 : end])
        assert counts == {"edit": 2, "caption": 1, "text2svg": 1}
    sampler = CurriculumSampler(tasks, lengths)
    assert list(sampler) == order and len(sampler) == 12
