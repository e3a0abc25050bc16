"""Evaluating the policy while it trains: a ``TrainerCallback`` for transformers and TRL.

::

    from svgeval.training import SvgevalCallback

    trainer = GRPOTrainer(model=..., reward_funcs=[svg_reward("by_task")], ...)
    trainer.add_callback(SvgevalCallback(trainer, "svgeditbench", every_n_steps=50, limit=4,
                                         data="svgeditbench-data", max_tokens=1024))
    trainer.train()

Every ``every_n_steps`` optimizer steps, and once more when training ends (unless the last step
was just evaluated), the callback runs the task on the model being trained, in its current
weights (no copy to disk), through :func:`svgeval.evaluate` and the ``hf:`` backend: ``limit``
samples of each group, greedy by default. Each evaluation writes a run directory,
``<out>/step-000050`` for global step 50 (``out`` defaults to ``<output_dir>/svgeval``; a
folder already there gets ``-2``, ``-3``... after it), that ``svgeval report`` reads like any
other, and its numbers go through the trainer's loggers (TensorBoard,
W&B...) as ``svgeval/<task>/<group>/<metric>``, with ``svgeval/<task>/valid`` (the share of
usable answers) and ``svgeval/<task>/seconds``; they are also in ``trainer.state.log_history``.
They are logged with :meth:`transformers.Trainer.log` itself, not a subclass's override (TRL's
trainers add their pending training metrics to any log, and would lose them to ours).

The policy answers as the checkpoint saved at that step answers under ``hf:``: in its weights'
dtype, without the mixed-precision autocast that accelerate wraps around the model's
``forward`` for training (``bf16=True``, TRL's default): with it, the logits moved by 2e-3 and 2
of 6 greedy answers differed from ``hf:`` on the saved weights (:func:`full_precision_forward`).
Training is left as it was: each module's train/eval mode and the gradient mode are restored
(:func:`svgeval.models.hf.generating`), and so are torch's random number generators (CPU and
CUDA), so that dropout and sampling in training draw what they would have drawn; the autocast
wrapper is put back. Only the main
process evaluates. An evaluation that fails (out of memory, say) is reported as a warning and
training goes on; :attr:`SvgevalCallback.failures` keeps what happened.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import torch
import transformers
from transformers import TrainerCallback, TrainerControl, TrainerState, TrainingArguments

from svgeval.api import Evaluation, evaluate
from svgeval.run_request import DEFAULTS

logger = transformers.logging.get_logger(__name__)


@contextlib.contextmanager
def random_state_kept() -> Iterator[None]:
    """torch's CPU and CUDA random number generators as they were before, afterwards."""
    cpu = torch.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None
    try:
        yield
    finally:
        torch.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)


@contextlib.contextmanager
def full_precision_forward(model: Any) -> Iterator[None]:
    """``model``'s own ``forward`` in place of the mixed-precision one accelerate gave it.

    ``Accelerator.prepare`` with ``mixed_precision`` bf16 or fp16 keeps the model's forward as
    ``_original_forward`` and sets ``forward`` to it run under ``torch.autocast``
    (``accelerate.utils.extract_model_from_parallel`` undoes it for good; this, for a while).
    A model without that wrapper is left as it is."""
    attributes = vars(model)
    original, wrapped = attributes.get("_original_forward"), attributes.get("forward")
    if original is None or wrapped is None:
        yield
        return
    model.forward = original
    try:
        yield
    finally:
        model.forward = wrapped


class SvgevalCallback(TrainerCallback):
    """Evaluates ``trainer``'s model on ``task`` every ``every_n_steps`` steps and at the end.

    ``limit``, ``data``, ``tier``, ``options``, ``temperature``, ``max_tokens``, ``seed`` and
    ``concurrency`` are :func:`svgeval.evaluate`'s (the batch size is ``concurrency``);
    ``metrics``, when given, keeps only the numbers whose key or metric name (``mse`` of
    ``change_color/mse``) it lists.
    """

    def __init__(
        self,
        trainer: Any,
        task: str,
        *,
        every_n_steps: int,
        limit: int | None = 8,
        out: str | Path | None = None,
        data: str | Path | None = None,
        tier: str = DEFAULTS.tier,
        options: Mapping[str, object] | None = None,
        temperature: float = DEFAULTS.temperature,
        max_tokens: int | None = 1024,
        seed: int = DEFAULTS.seed,
        concurrency: int = DEFAULTS.concurrency,
        render_workers: int | None = DEFAULTS.render_workers,
        metrics: Sequence[str] | None = None,
    ) -> None:
        if every_n_steps < 1:
            raise ValueError(f"every_n_steps must be at least 1, got {every_n_steps}")
        self.trainer = trainer
        self.task = task
        self.every_n_steps = every_n_steps
        self.out = Path(out) if out is not None else Path(trainer.args.output_dir) / "svgeval"
        self.run_options: dict[str, Any] = {
            "limit": limit, "data": data, "tier": tier, "options": options,
            "temperature": temperature, "max_tokens": max_tokens, "seed": seed,
            "concurrency": concurrency, "render_workers": render_workers,
        }
        self.metrics = set(metrics) if metrics is not None else None
        self.evaluations: dict[int, Evaluation] = {}
        """Each evaluation by the global step it was made at."""
        self.failures: dict[int, str] = {}
        """Why an evaluation failed, by global step."""

    def on_step_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                    **kwargs: Any) -> None:
        if state.global_step % self.every_n_steps == 0:
            self.evaluate_now(state, control, kwargs)

    def on_train_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                     **kwargs: Any) -> None:
        done = state.global_step in self.evaluations or state.global_step in self.failures
        if state.global_step > 0 and not done:
            self.evaluate_now(state, control, kwargs)

    def evaluate_now(self, state: TrainerState, control: TrainerControl,
                     event: Mapping[str, Any]) -> Evaluation | None:
        """Evaluate the model of this training step and log its numbers (main process only).

        Logging clears ``control.should_log``, which the trainer reads after this step's
        callbacks to log its loss: it is set back as it was."""
        if not state.is_world_process_zero:
            return None
        model = event.get("model") or self.trainer.model
        processor = (event.get("processing_class") or event.get("tokenizer")
                     or getattr(self.trainer, "processing_class", None))
        step = state.global_step
        out = self.out / f"step-{step:06d}"
        suffix = 1
        while out.exists():  # a new training run in the same output folder
            suffix += 1
            out = self.out / f"step-{step:06d}-{suffix}"
        started = time.perf_counter()
        try:
            with random_state_kept(), full_precision_forward(model):
                evaluation = evaluate(self.task, model, processor=processor, out=out,
                                      **self.run_options)
        except Exception as error:  # noqa: BLE001 - an evaluation must not end the training
            self.failures[step] = f"{type(error).__name__}: {error}"
            logger.warning("svgeval: evaluating %s at step %d failed: %s", self.task, step,
                           self.failures[step])
            return None
        self.evaluations[step] = evaluation
        should_log = control.should_log
        transformers.Trainer.log(self.trainer, self.logged_numbers(
            evaluation, time.perf_counter() - started))
        control.should_log = self.trainer.control.should_log = should_log
        return evaluation

    def logged_numbers(self, evaluation: Evaluation, seconds: float) -> dict[str, float]:
        """The numbers of one evaluation as the trainer logs them."""
        prefix = f"svgeval/{self.task}"
        results = evaluation.results
        numbers = {
            f"{prefix}/{key}": value for key, value in results.metrics.items()
            if value is not None and (self.metrics is None or key in self.metrics
                                      or key.rsplit("/", 1)[-1] in self.metrics)
        }
        numbers[f"{prefix}/valid"] = results.n_valid / results.n if results.n else 0.0
        numbers[f"{prefix}/seconds"] = seconds
        return numbers
