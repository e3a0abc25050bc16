"""``vllm:``: a checkpoint in vLLM's offline engine (``vllm.LLM``), in this process.

vLLM is imported only when a ``vllm:`` model is asked for; without the package, or without a
CUDA GPU, the run stops before any sample with one line saying so (``hf:`` runs anywhere).
Requests the runner has in flight are handed to the engine together
(:class:`~svgeval.models.batching.BatchQueue`; the engine schedules them itself) through
``LLM.chat``, which applies the checkpoint's chat template and reads the prompt's images from
their ``data:`` URLs, as vLLM's server does.

Sampling: the checkpoint's ``generation_config`` defaults (``LLM.get_default_sampling_params``:
``top_p``, ``top_k``, ``min_p``, ``repetition_penalty``), with svgeval's temperature (0: greedy;
none: the checkpoint's),
token limit (``--max-tokens``, else the ``max_new_tokens`` option) and, when sampling, a seed
per answer (:func:`~svgeval.models.local_inputs.sample_seed`), so a rerun draws the same tokens.
Each answer records vLLM's finish reason, its prompt and completion token counts, its batch's
time (``latency_s``) and the time from the request to the answer (``total_s``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from svgeval.messages import has_images
from svgeval.models.base import (
    Generation,
    GenerationRequest,
    Model,
    ModelError,
    ModelUnavailable,
)
from svgeval.models.batching import BatchQueue
from svgeval.models.checkpoint_options import VLLMOptions, first_line
from svgeval.models.local_inputs import DEFAULT_MAX_NEW_TOKENS, sample_seed, text_messages

Asked = tuple[GenerationRequest, float]
"""A request and when it was asked (``time.perf_counter``)."""

KEPT_DEFAULTS = ("top_p", "top_k", "min_p", "repetition_penalty")
"""What svgeval keeps of the checkpoint's default sampling parameters."""


def load_vllm_model(spec: str, source: str, options: VLLMOptions,
                    default_batch_size: int) -> VLLMModel:
    """The ``vllm:`` backend of ``source`` (a folder or hub id:
    :func:`~svgeval.models.in_process.checkpoint_source`) with ``options``."""
    try:
        import vllm
    except ImportError:
        raise ModelUnavailable(
            f"{spec} needs vLLM, which is not installed: pip install 'svgeval[vllm]' on a "
            "machine with an NVIDIA GPU (hf: runs a checkpoint anywhere)"
        ) from None
    import torch

    if not torch.cuda.is_available():
        raise ModelUnavailable(
            f"{spec}: vLLM needs a CUDA GPU and none is visible; hf:{source} runs on the CPU"
        )
    try:
        llm = vllm.LLM(
            model=source, dtype=options.dtype, seed=0,
            tensor_parallel_size=options.tensor_parallel_size,
            gpu_memory_utilization=options.gpu_memory_utilization,
            max_model_len=options.max_model_len, trust_remote_code=options.trust_remote_code,
        )
    except Exception as error:  # noqa: BLE001 - vLLM raises many kinds; each stops the run
        raise ModelUnavailable(f"{spec}: vLLM cannot load the checkpoint ({first_line(error)})"
                               ) from None
    return VLLMModel(llm, spec=spec, batch_size=options.batch_size or default_batch_size,
                     max_new_tokens=options.max_new_tokens,
                     details={"source": source, "vllm": vllm.__version__})


class VLLMModel(Model):
    """A ``vllm.LLM`` answering the requests in flight together."""

    def __init__(self, llm: Any, *, spec: str, batch_size: int,
                 max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS,
                 details: dict[str, Any] | None = None) -> None:
        self.spec = spec
        self.llm = llm
        self.max_new_tokens = max_new_tokens
        self.details = details or {}
        model_config = getattr(llm.llm_engine, "model_config", None)
        self.accepts_images = bool(getattr(model_config, "is_multimodal_model", True))
        defaults = llm.get_default_sampling_params()
        self.defaults = {name: getattr(defaults, name) for name in KEPT_DEFAULTS}
        self.default_temperature = float(defaults.temperature)
        """The temperature of a request that sets none: the checkpoint's, or vLLM's default."""
        self.queue: BatchQueue[Asked, Asked, Generation] = BatchQueue(
            lambda asked: asked, self._answer, _prompt_size, batch_size, name=f"svgeval-{spec}"
        )

    async def generate(self, request: GenerationRequest) -> Generation:
        """Answer ``request`` with the requests handed to the engine with it."""
        return await self.queue.submit((request, time.perf_counter()))

    async def aclose(self) -> None:
        """Stop the batching thread (the engine stays loaded)."""
        self.queue.close()

    def report(self) -> dict[str, Any]:
        return {"backend": "vllm", "batch_size": self.queue.batch_size,
                "batches": len(self.queue.batches), **self.details}

    def sampling_params(self, request: GenerationRequest) -> Any:
        """vLLM's parameters for ``request`` (see the module's docstring)."""
        from vllm import SamplingParams

        temperature = (self.default_temperature if request.temperature is None
                       else request.temperature)
        return SamplingParams(
            **self.defaults, temperature=temperature,
            max_tokens=request.max_tokens or self.max_new_tokens,
            seed=sample_seed(request.seed, request.sample_id) if temperature > 0 else None,
        )

    def _answer(self, batch: Sequence[Asked]) -> list[Generation | Exception]:
        """The engine's answers; a prompt it refuses (``ValueError``: longer than the context,
        a bad image) fails alone, found by asking again one request at a time."""
        started = time.perf_counter()
        requests = [request for request, _ in batch]
        try:
            outputs = self.llm.chat(
                [request.messages if has_images(request.messages)
                 else text_messages(request.messages) for request in requests],
                sampling_params=[self.sampling_params(request) for request in requests],
                use_tqdm=False, add_generation_prompt=True,
            )
        except ValueError as error:
            if len(batch) == 1:
                return [ModelError(f"vLLM refused the prompt: {first_line(error)}")]
            return [answer for asked in batch for answer in self._answer([asked])]
        except Exception as error:
            raise ModelUnavailable(f"{self.spec}: generation failed ({first_line(error)})"
                                   ) from error
        done = time.perf_counter()
        answers: list[Generation | Exception] = [
            Generation(
                text=output.outputs[0].text,
                latency_s=done - started,
                usage={"prompt_tokens": len(output.prompt_token_ids or []),
                       "completion_tokens": len(output.outputs[0].token_ids)},
                finish_reason=output.outputs[0].finish_reason,
                total_s=done - asked_at,
            )
            for output, (_, asked_at) in zip(outputs, batch, strict=True)
        ]
        return answers


def _prompt_size(asked: Asked) -> int:
    """The characters of a request's text (images count as nothing): the order of a round."""
    return sum(len(str(message.get("content", ""))) for message in asked[0].messages)
