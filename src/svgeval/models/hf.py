"""``hf:``: a transformers checkpoint answering in this process, in batches.

A text model gets its tokenizer's chat template; a vision-language model its processor's, with
each picture of the prompt passed to the processor as an image (never as text). Requests the
runner has in flight are answered together (:class:`~svgeval.models.batching.BatchQueue`):
prompts of similar length share a batch, padded on the left, and one ``model.generate`` call
answers the batch.

Decoding:

* ``--temperature 0``: greedy (the argmax at each step); the checkpoint's ``generation_config``
  still applies what is not sampling (a ``repetition_penalty``), as vLLM's server does.
* a temperature above 0: each answer draws its tokens with its own generator, seeded by
  :func:`~svgeval.models.local_inputs.sample_seed` from ``--seed``, the epoch and the sample id
  (:class:`SeededSampler`), from the softmax of the logits over the temperature, cut to the
  checkpoint's ``top_k`` and ``top_p`` where its ``generation_config.json`` sets them; so an
  answer does not depend on which prompts shared its batch, and a rerun gives it again.
* no temperature (``--omit-temperature``): the checkpoint's, when its ``generation_config``
  samples (``do_sample``), else greedy, as a server's default would be.
* an answer ends at an end-of-sequence token (the ``generation_config``'s, else the
  tokenizer's): ``finish_reason`` ``stop``; or at ``--max-tokens`` (else the ``max_new_tokens``
  option, or what is left of the model's context): ``length``.

Each answer records ``prompt_tokens`` (with the image tokens), ``completion_tokens`` (the end
token included), ``latency_s`` (its batch's generation) and ``total_s`` (from the request to the
answer, waiting for the batch included). The model is put in eval mode and run without
gradients for each batch, and every module's train/eval mode is restored after it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch
from transformers import (
    GenerationConfig,
    LogitsProcessor,
    LogitsProcessorList,
    TopKLogitsWarper,
    TopPLogitsWarper,
)

from svgeval.models.base import Generation, GenerationRequest, Model, ModelError, ModelUnavailable
from svgeval.models.batching import BatchQueue
from svgeval.models.local_inputs import (
    DEFAULT_MAX_NEW_TOKENS,
    message_images,
    sample_seed,
    template_messages,
    text_messages,
)

if TYPE_CHECKING:
    from PIL.Image import Image

NEUTRAL_SAMPLING = {"temperature": 1.0, "top_p": 1.0, "top_k": 50}
"""transformers' own defaults of the sampling flags, passed to its greedy search so that a
checkpoint's sampling defaults neither apply nor raise warnings: svgeval samples itself."""


@dataclass(frozen=True)
class Prompt:
    """A request ready for a batch: its chat-template text, pictures, length in tokens and
    token limit, and when it was asked."""

    request: GenerationRequest
    text: str
    images: list[Image]
    n_tokens: int
    max_new_tokens: int
    asked_at: float = field(compare=False)


class SeededSampler(LogitsProcessor):
    """Draws the next token of each sampled row with that row's own generator.

    Row ``i`` with ``temperatures[i] > 0`` draws from ``softmax(logits / t)``, cut to the
    ``top_k`` most likely tokens and the smallest set of probability ``top_p`` when given, with
    ``torch.Generator().manual_seed(seeds[i])``; its scores become 0 for the drawn token and
    -inf elsewhere, so the greedy step that follows picks it. Rows at temperature 0 are left to
    the greedy step.
    """

    def __init__(self, temperatures: Sequence[float], seeds: Sequence[int],
                 top_k: int | None = None, top_p: float | None = None) -> None:
        self.temperatures = list(temperatures)
        self.seeds = list(seeds)
        self.warpers = [*([TopKLogitsWarper(top_k)] if top_k else []),
                        *([TopPLogitsWarper(top_p)] if top_p is not None and top_p < 1 else [])]
        self._generators: list[torch.Generator | None] | None = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self._generators is None:  # made on the first step, on the logits' device
            self._generators = [
                torch.Generator(device=scores.device).manual_seed(seed) if t > 0 else None
                for t, seed in zip(self.temperatures, self.seeds, strict=True)
            ]
        for row, generator in enumerate(self._generators):
            if generator is None:
                continue
            logits = scores[row:row + 1].float() / self.temperatures[row]
            for warper in self.warpers:
                logits = warper(input_ids[row:row + 1], logits)
            token = torch.multinomial(torch.softmax(logits[0], -1), 1, generator=generator)
            scores[row] = -torch.inf
            scores[row, token] = 0.0
        return scores


@contextlib.contextmanager
def generating(model: torch.nn.Module) -> Iterator[None]:
    """``model`` in eval mode without gradients; each module's mode restored afterwards."""
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    try:
        with torch.no_grad():
            yield
    finally:
        for module, training in modes:
            module.training = training


class HFModel(Model):
    """A loaded transformers model and its tokenizer or processor, answering in batches.

    ``processor`` is the tokenizer of a text model or the processor of a vision-language model
    (one with an ``image_processor``; the model then accepts images), with a chat template
    (ModelUnavailable otherwise). ``batch_size`` prompts at most go into one ``generate``
    call; ``max_new_tokens`` is the limit of a request without ``max_tokens``. ``details`` is
    added to :meth:`report` (how the model was loaded).
    """

    def __init__(self, model: Any, processor: Any, *, spec: str, batch_size: int,
                 max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS,
                 details: dict[str, Any] | None = None) -> None:
        if not getattr(processor, "chat_template", None):
            raise ModelUnavailable(f"{spec}: the tokenizer or processor has no chat template; "
                                   "set its chat_template")
        self.spec = spec
        self.model = model
        self.processor = processor
        self.tokenizer = getattr(processor, "tokenizer", processor)
        self.accepts_images = getattr(processor, "image_processor", None) is not None
        self.max_new_tokens = max_new_tokens
        config = model.generation_config
        eos = config.eos_token_id if config.eos_token_id is not None else self.tokenizer.eos_token_id
        self.eos_ids = frozenset([] if eos is None else [eos] if isinstance(eos, int) else eos)
        pad = self.tokenizer.pad_token_id
        self.pad_id = pad if pad is not None else min(self.eos_ids, default=0)
        self.default_temperature = (config.temperature or 1.0) if config.do_sample else 0.0
        """The temperature of a request that sets none (``--omit-temperature``): the
        checkpoint's, as a server's default would be (0: greedy)."""
        self.top_k = config.top_k if isinstance(config.top_k, int) and config.top_k > 0 else None
        self.top_p = config.top_p if isinstance(config.top_p, float) else None
        text_config = model.config.get_text_config()
        self.context = getattr(text_config, "max_position_embeddings", None)
        self.details = details or {}
        self.queue: BatchQueue[tuple[GenerationRequest, float], Prompt, Generation] = BatchQueue(
            self._prepare, self._answer, lambda prompt: prompt.n_tokens, batch_size,
            name=f"svgeval-{spec}",
        )

    async def generate(self, request: GenerationRequest) -> Generation:
        """Answer ``request`` with the batch it joins."""
        return await self.queue.submit((request, time.perf_counter()))

    async def aclose(self) -> None:
        """Stop the batching thread (the model stays loaded: it may answer another run)."""
        self.queue.close()

    def report(self) -> dict[str, Any]:
        sizes = self.queue.batches
        return {
            "backend": "transformers",
            "model_class": type(self.model).__name__,
            "dtype": str(self.model.dtype).removeprefix("torch."),
            "device": str(self.model.device),
            "batch_size": self.queue.batch_size,
            "batches": len(sizes),
            "mean_batch": round(sum(sizes) / len(sizes), 2) if sizes else None,
            **self.details,
        }

    def _encode(self, texts: list[str], images: list[Image]) -> Any:
        """Token ids (padded on the left), attention mask and pixels of ``texts``, on the
        model's device."""
        common = {"return_tensors": "pt", "padding": True, "padding_side": "left",
                  "add_special_tokens": False}  # the chat template wrote the special tokens
        if not self.accepts_images:
            return self.tokenizer(texts, **common).to(self.model.device)
        encoded = self.processor(text=texts, images=images or None, **common)
        return encoded.to(self.model.device).to(self.model.dtype)

    def _prepare(self, asked: tuple[GenerationRequest, float]) -> Prompt:
        """The request's prompt text and pictures, counted in tokens; ModelError for a prompt
        this model cannot take (its template refuses it, it fills the context)."""
        request, asked_at = asked
        try:
            if self.accepts_images:
                messages = template_messages(request.messages)
                images = message_images(request.messages)
            else:
                messages, images = text_messages(request.messages), []
            text = self.processor.apply_chat_template(
                messages, add_generation_prompt=True, tokenize=False
            )
        except Exception as error:  # a template refusing a prompt fails it alone
            raise ModelError(f"the prompt could not be formatted: {error}") from error
        n_tokens = int(self._encode([text], images)["input_ids"].shape[1])
        limit = request.max_tokens or self.max_new_tokens
        if self.context is not None:
            if n_tokens >= self.context:
                raise ModelError(
                    f"the prompt has {n_tokens} tokens; the model's context is {self.context}"
                )
            limit = min(limit, self.context - n_tokens)
        return Prompt(request, text, images, n_tokens, limit, asked_at)

    def _answer(self, batch: Sequence[Prompt]) -> list[Generation | Exception]:
        """One ``generate`` call for ``batch``; out of memory, the halves one after the other."""
        try:
            return list(self._generate(batch))
        except torch.OutOfMemoryError:
            if len(batch) == 1:
                raise ModelUnavailable(
                    f"{self.spec}: out of memory generating {batch[0].request.sample_id} "
                    f"({batch[0].n_tokens} prompt tokens); lower --max-tokens or use a device "
                    "with more memory"
                ) from None
            middle = len(batch) // 2
            return self._answer(batch[:middle]) + self._answer(batch[middle:])
        except (ModelError, ModelUnavailable):
            raise
        except Exception as error:
            summary = (str(error).strip().splitlines() or [""])[0][:300]
            raise ModelUnavailable(
                f"{self.spec}: generation failed ({type(error).__name__}: {summary})"
            ) from error

    def _generate(self, batch: Sequence[Prompt]) -> list[Generation]:
        started = time.perf_counter()
        inputs = self._encode([prompt.text for prompt in batch],
                              [image for prompt in batch for image in prompt.images])
        temperatures = [self.default_temperature if p.request.temperature is None
                        else p.request.temperature for p in batch]
        processors = LogitsProcessorList()
        if any(t > 0 for t in temperatures):
            seeds = [sample_seed(p.request.seed, p.request.sample_id) for p in batch]
            processors.append(SeededSampler(temperatures, seeds, self.top_k, self.top_p))
        config = GenerationConfig(  # type: ignore[no-untyped-call]
            max_new_tokens=max(prompt.max_new_tokens for prompt in batch), do_sample=False,
            num_beams=1, eos_token_id=sorted(self.eos_ids) or None, pad_token_id=self.pad_id,
            use_cache=True, **NEUTRAL_SAMPLING,
        )
        with generating(self.model):
            output = self.model.generate(**inputs, generation_config=config,
                                         logits_processor=processors)
        new_tokens = output[:, inputs["input_ids"].shape[1]:].tolist()
        prompt_tokens = inputs["attention_mask"].sum(dim=1).tolist()
        elapsed = time.perf_counter() - started
        done = time.perf_counter()
        return [
            self._generation(tokens[:prompt.max_new_tokens], int(n_prompt), elapsed,
                             done - prompt.asked_at)
            for prompt, tokens, n_prompt in zip(batch, new_tokens, prompt_tokens, strict=True)
        ]

    def _generation(self, tokens: list[int], prompt_tokens: int, latency_s: float,
                    total_s: float) -> Generation:
        """The answer of one row: its tokens up to the first end token."""
        end = next((i for i, token in enumerate(tokens) if token in self.eos_ids), None)
        answer = tokens if end is None else tokens[:end]
        return Generation(
            text=self.tokenizer.decode(answer, skip_special_tokens=True),
            latency_s=latency_s,
            usage={"prompt_tokens": prompt_tokens,
                   "completion_tokens": len(tokens) if end is None else end + 1},
            finish_reason="length" if end is None else "stop",
            total_s=total_s,
        )
