"""Opt-in: a few GRPO steps with TRL on a tiny random model on CPU, rewarded by svg_reward."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from cases import REFERENCE

pytestmark = pytest.mark.slow


def test_grpo_steps_with_svg_rewards(tmp_path: Path) -> None:
    trl = pytest.importorskip("trl")
    datasets = pytest.importorskip("datasets")
    transformers = pytest.importorskip("transformers")
    import torch
    from support.tiny_models import WORDS, save_tokenizer

    from svgeval.rewards import CurriculumSampler, svg_reward

    torch.manual_seed(0)
    save_tokenizer(tmp_path / "model")
    config = transformers.GPT2Config(vocab_size=len(WORDS), n_positions=64, n_embd=32,
                                     n_layer=2, n_head=2, bos_token_id=2, eos_token_id=2,
                                     pad_token_id=0)
    transformers.GPT2LMHeadModel(config).save_pretrained(tmp_path / "model")
    tokenizer = transformers.AutoTokenizer.from_pretrained(tmp_path / "model")
    rows = 8
    dataset = datasets.Dataset.from_dict({
        "prompt": ["a red house"] * (rows // 2) + ["a blue circle"] * (rows // 2),
        "reference": [REFERENCE] * (rows // 2) + ["a blue circle"] * (rows // 2),
        "task": ["text2svg"] * (rows // 2) + ["captioning-rouge"] * (rows // 2),
    })
    sampler = CurriculumSampler(dataset["task"], [len(r) for r in dataset["reference"]])
    reward = svg_reward("by_task", weights={"lpips": 0.0}, workers=1)
    args = trl.GRPOConfig(output_dir=str(tmp_path / "out"), per_device_train_batch_size=4,
                          num_generations=4, max_completion_length=8, max_steps=2,
                          learning_rate=1e-3, logging_steps=1, report_to=[], use_cpu=True,
                          save_strategy="no", seed=0)
    try:
        trainer = trl.GRPOTrainer(model=str(tmp_path / "model"), reward_funcs=[reward],
                                  args=args, train_dataset=dataset, processing_class=tokenizer)
        trainer._get_train_sampler = lambda *a, **k: sampler
        trainer.train()
    finally:
        reward.close()
    logged = [e for e in trainer.state.log_history if "reward" in e]
    assert len(logged) == 2 and all(math.isfinite(e["reward"]) for e in logged)
    assert all(-1.0 <= e["reward"] <= 1.0 for e in logged)
    assert reward.last_results, "the reward function was called"
