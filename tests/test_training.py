"""SvgevalCallback: the policy evaluated while it trains, training left as it was; and (opt-in)
a few GRPO steps with svgeval's rewards."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("accelerate")  # the Trainer's

from support.tiny_chat_models import END_ID, build_chat_llm

import svgeval
from svgeval.training import SvgevalCallback

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

TEXTS = ['<svg width="72" height="72"><circle cx="36" cy="36" r="30" fill="red"/></svg>',
         "Change the color of the icon to red.", "Answer with the SVG code in a ```svg block."]


class Probe(transformers.TrainerCallback):  # type: ignore[misc]
    """Records, at each step's end, what training looks like (added before and after the
    evaluating callback) and every log the loggers are given."""

    def __init__(self) -> None:
        self.steps: list[dict[str, Any]] = []
        self.logs: list[dict[str, float]] = []

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        model = kwargs["model"]
        self.steps.append({
            "step": state.global_step, "rng": torch.get_rng_state(), "grad": torch.is_grad_enabled(),
            "modes": [m.training for m in model.modules()],
            "requires_grad": [p.requires_grad for p in model.parameters()],
            "weights": {k: v.detach().clone() for k, v in model.state_dict().items()},
        })

    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:
        self.logs.append(dict(logs or {}))


def language_modelling_rows(tokenizer: Any) -> list[dict[str, Any]]:
    rows = []
    for text in TEXTS * 4:
        ids = tokenizer(text, add_special_tokens=False)["input_ids"][:24]
        rows.append({"input_ids": ids, "labels": ids})
    return rows


@pytest.fixture(scope="module")
def close_logits_llm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny chat model drawn with a narrow ``initializer_range``: its next tokens' logits are
    close, so that bf16 rounding changes greedy answers (it changed 2 of 6 at 16 tokens)."""
    return build_chat_llm(tmp_path_factory.mktemp("close_logits_llm"), initializer_range=0.02)


def language_model_trainer(checkpoint: Path, output_dir: Path,
                           **arguments: Any) -> tuple[Any, Any]:
    """A transformers ``Trainer`` of ``checkpoint`` on the language-modelling rows (one a step,
    on the CPU), with ``arguments`` for its ``TrainingArguments``; and its tokenizer."""
    model = transformers.AutoModelForCausalLM.from_pretrained(checkpoint)
    tokenizer = transformers.AutoTokenizer.from_pretrained(checkpoint)
    args = transformers.TrainingArguments(output_dir=str(output_dir), per_device_train_batch_size=1,
                                          report_to=[], use_cpu=True, seed=0, **arguments)
    trainer = transformers.Trainer(model=model, args=args,
                                   train_dataset=language_modelling_rows(tokenizer),
                                   processing_class=tokenizer)
    return trainer, tokenizer


def greedy_answers(model: Any, tokenizer: Any, run: Path, tokens: int = 3) -> dict[str, str]:
    """A hand-written greedy ``generate`` of ``tokens`` tokens for each sample of ``run``."""
    answers = {}
    for line in (run / "samples.jsonl").read_text().splitlines():
        sample = json.loads(line)
        ids = tokenizer.apply_chat_template(sample["prompt"], add_generation_prompt=True,
                                            return_tensors="pt", return_dict=True)["input_ids"]
        with torch.no_grad():
            out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=tokens,
                                 do_sample=False)[0, ids.shape[1]:].tolist()
        end = out.index(END_ID) if END_ID in out else len(out)
        answers[sample["id"]] = tokenizer.decode(out[:end], skip_special_tokens=True)
    return answers


def recorded_answers(run: Path) -> dict[str, str]:
    lines = (run / "responses.jsonl").read_text().splitlines()
    return {record["id"]: record["response"] for record in map(json.loads, lines)}


def test_the_callback_evaluates_every_n_steps_and_at_the_end_leaving_training_alone(
    tiny_chat_llm: Path, demo_data: Path, tmp_path: Path
) -> None:
    trainer, tokenizer = language_model_trainer(
        tiny_chat_llm, tmp_path / "train", max_steps=3, learning_rate=0.05, logging_steps=1,
        save_strategy="no")
    before, after = type("Before", (Probe,), {})(), type("After", (Probe,), {})()
    callback = SvgevalCallback(trainer, "svgeditbench", every_n_steps=2, limit=1,
                               data=demo_data, max_tokens=3, render_workers=2)
    for added in (before, callback, after):
        trainer.add_callback(added)
    trainer.train()

    assert sorted(callback.evaluations) == [2, 3] and not callback.failures  # step 2; the end
    runs = sorted(path.name for path in (tmp_path / "train" / "svgeval").iterdir())
    assert runs == ["step-000002", "step-000003"]
    for run in runs:
        results = json.loads((tmp_path / "train" / "svgeval" / run / "results.json").read_text())
        assert results["complete"] and results["n"] == 6
        assert results["model"] == f"transformers:{tiny_chat_llm}"
    logged = [entry for entry in trainer.state.log_history
              if "svgeval/svgeditbench/change_color/mse_all" in entry]
    assert [entry["step"] for entry in logged] == [2, 3]
    assert all(entry["svgeval/svgeditbench/valid"] == 0.0 for entry in logged)  # 3 tokens
    assert sum("svgeval/svgeditbench/seconds" in log for log in after.logs) == 2  # the loggers
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    assert len(losses) == 3 and all(math.isfinite(loss) for loss in losses)
    # what the evaluation at step 2 found is what training found again after it
    first, second = before.steps[1], after.steps[1]
    assert first["step"] == second["step"] == 2
    assert torch.equal(first["rng"], second["rng"]) and second["grad"]
    assert first["modes"] == second["modes"] and all(first["modes"])
    assert first["requires_grad"] == second["requires_grad"]
    assert all(torch.equal(weight, second["weights"][name])
               for name, weight in first["weights"].items())
    # the answers of step 2 are those of the weights of step 2, which differ from the start's
    at_step_2 = transformers.AutoModelForCausalLM.from_pretrained(tiny_chat_llm)
    at_step_2.load_state_dict(second["weights"])
    run = tmp_path / "train" / "svgeval" / "step-000002"
    assert recorded_answers(run) == greedy_answers(at_step_2, tokenizer, run)
    start = transformers.AutoModelForCausalLM.from_pretrained(tiny_chat_llm)
    assert recorded_answers(run) != greedy_answers(start, tokenizer, run)


def offline_answers(checkpoint: Path, data: Path, out: Path, tokens: int) -> dict[str, str]:
    """``hf:`` on a saved checkpoint, as ``svgeval run`` would run it."""
    svgeval.evaluate("svgeditbench", f"hf:{checkpoint}", data=data, limit=1, max_tokens=tokens,
                     out=out, render_workers=1)
    return recorded_answers(out)


def test_under_mixed_precision_the_policy_answers_as_its_saved_checkpoint(
    close_logits_llm: Path, demo_data: Path, tmp_path: Path
) -> None:
    trainer, tokenizer = language_model_trainer(
        close_logits_llm, tmp_path / "train", max_steps=1, learning_rate=1e-3, bf16=True,
        save_strategy="steps", save_steps=1)
    callback = SvgevalCallback(trainer, "svgeditbench", every_n_steps=1, limit=1,
                               data=demo_data, max_tokens=16, render_workers=1)
    trainer.add_callback(callback)
    trainer.train()

    assert "_original_forward" in vars(trainer.model)  # accelerate's bf16 autocast is in place
    run = tmp_path / "train" / "svgeval" / "step-000001"
    checkpoint = tmp_path / "train" / "checkpoint-1"
    saved = transformers.AutoModelForCausalLM.from_pretrained(checkpoint)
    by_hand = greedy_answers(saved, tokenizer, run, tokens=16)
    assert len(by_hand) == 6
    assert recorded_answers(run) == by_hand
    assert offline_answers(checkpoint, demo_data, tmp_path / "offline", 16) == by_hand
    # the policy's own forward, autocast and all, answers otherwise: the test has teeth
    assert greedy_answers(trainer.model, tokenizer, run, tokens=16) != by_hand


def test_every_n_steps_must_be_positive(tmp_path: Path) -> None:
    trainer = type("Trainer", (), {"args": type("Args", (), {"output_dir": str(tmp_path)})()})()
    with pytest.raises(ValueError, match="every_n_steps must be at least 1, got 0"):
        SvgevalCallback(trainer, "svgeditbench", every_n_steps=0)


@pytest.mark.slow
def test_grpo_steps_with_svg_rewards_and_the_callback_every_two_steps(
    close_logits_llm: Path, demo_data: Path, tmp_path: Path
) -> None:
    """At each evaluation the callback's 6 greedy answers are those of ``hf:`` on the checkpoint
    saved at that step and of a hand-written ``generate`` (TRL trains in bf16 autocast)."""
    trl = pytest.importorskip("trl")
    datasets = pytest.importorskip("datasets")
    from svgeval.rewards import svg_reward

    # half the rows rewarded by rendering (an SVG to draw), half by ROUGE against a caption made
    # of the tokenizer's words: random answers then earn rewards that differ, so the advantages
    # and the loss are not all zero
    circle = ('<svg xmlns="http://www.w3.org/2000/svg" width="72" height="72">'
              '<circle cx="36" cy="36" r="30" fill="red"/></svg>')
    dataset = datasets.Dataset.from_dict({
        "prompt": [[{"role": "user", "content": "Draw a red circle as SVG."}]] * 4
        + [[{"role": "user", "content": "Describe the icon."}]] * 4,
        "reference": [circle] * 4 + [" ".join(TEXTS[1:])] * 4,
        "task": ["text2svg"] * 4 + ["captioning-rouge"] * 4,
    })
    tokenizer = transformers.AutoTokenizer.from_pretrained(close_logits_llm)
    reward = svg_reward("by_task", weights={"lpips": 0.0}, workers=1)
    args = trl.GRPOConfig(output_dir=str(tmp_path / "grpo"), per_device_train_batch_size=4,
                          num_generations=4, max_completion_length=16, max_steps=4,
                          learning_rate=1e-3, logging_steps=1, report_to=[], use_cpu=True,
                          save_strategy="steps", save_steps=2, seed=0)
    assert args.bf16
    try:
        trainer = trl.GRPOTrainer(model=str(close_logits_llm), reward_funcs=[reward], args=args,
                                  train_dataset=dataset, processing_class=tokenizer)
        callback = SvgevalCallback(trainer, "svgeditbench", every_n_steps=2, limit=1,
                                   data=demo_data, max_tokens=16, render_workers=2)
        trainer.add_callback(callback)
        trainer.train()
    finally:
        reward.close()
    assert sorted(callback.evaluations) == [2, 4] and not callback.failures
    assert sorted(p.name for p in (tmp_path / "grpo" / "svgeval").iterdir()) == [
        "step-000002", "step-000004"]
    logged = [e for e in trainer.state.log_history if "svgeval/svgeditbench/valid" in e]
    assert [e["step"] for e in logged] == [2, 4]
    assert all("svgeval/svgeditbench/change_color/mse_all" in e for e in logged)
    losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
    assert len(losses) == 4 and all(math.isfinite(loss) for loss in losses)
    rewards = [e["reward"] for e in trainer.state.log_history if "reward" in e]
    assert len(rewards) == 4 and all(-1.0 <= r <= 1.0 for r in rewards)
    assert any(e.get("grad_norm", 0.0) > 0 for e in trainer.state.log_history)  # it learned
    for step in (2, 4):
        run = tmp_path / "grpo" / "svgeval" / f"step-{step:06d}"
        checkpoint = tmp_path / "grpo" / f"checkpoint-{step}"
        saved = transformers.AutoModelForCausalLM.from_pretrained(checkpoint)
        by_hand = greedy_answers(saved, tokenizer, run, tokens=16)
        assert len(by_hand) == 6
        assert recorded_answers(run) == by_hand
        assert offline_answers(checkpoint, demo_data, tmp_path / f"offline-{step}", 16) == by_hand
