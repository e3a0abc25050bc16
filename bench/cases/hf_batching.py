"""Generated tokens per second of ``hf:`` at batch 1 and at its default batch size, against the
floor: ``model.generate`` called by hand on the same prompts in the same batches.

The model is the tests' tiny Llama chat model (2 layers, hidden size 32, a byte-level BPE of 385
tokens; ``tests/support/tiny_chat_models.py``), built into a temporary folder. The prompts are
SVGEditBench's, built from svgeval's demo icons (72 prompts of 250-400 tokens). Each
configuration answers every prompt with ``--max-tokens`` new tokens at most (greedy, stopping at
the end token as ``hf:`` does); tokens/s counts the tokens generated, end tokens included.

* the floor: the prompts in the order ``hf:`` batches them (by length), ``batch`` at a time,
  left-padded by the tokenizer, one ``model.generate`` call each: no queue, no runner. It runs
  on a thread of its own, as ``hf:``'s batches do.
* ``hf:``: the backend answering all prompts sent together, ``concurrency`` in flight as the
  runner sends them (:class:`~svgeval.models.hf.HFModel`; its default batch size is the
  concurrency).

Each is reported in tokens per second of wall time and per second of this process's CPU time:
the machine these numbers come from is shared (other jobs keep its load average at 8-12 on two
cores), so the wall-time rates move with the load, the CPU-time rates much less. torch runs one
intra-op thread (``--threads``): on the loaded machine, ``generate`` called from the main thread
with two OpenMP threads took 10-50x longer than with one (5-13 s against 0.3-0.4 s for 8 prompts
x 32 tokens), its threads waiting on each other for a core.

    python -m bench hf-batching [--set runs=3] [--set max_tokens=128] [--set concurrency=8]
        [--set threads=1]

Needs torch and transformers (the ``models`` extra); skipped without them.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

from bench.measure import Figures, Scale, load, needs, test_helpers


def prompts(scratch: Path) -> list[list[dict[str, Any]]]:
    """The chat messages of the SVGEditBench cases built from the demo icons."""
    from svgeval.builders.svgeditbench.builder import build_cases, write_release
    from svgeval.svg.demo_corpus import write_demo_corpus
    from svgeval.tasks.base import CommonOptions
    from svgeval.tasks.svgeditbench import SvgEditBench

    names = write_demo_corpus(scratch / "icons")
    write_release(build_cases(sorted((scratch / "icons").glob("*.svg")), names=names),
                  scratch / "data")
    return [sample.messages for sample in SvgEditBench(CommonOptions(data=scratch / "data")).load()]


Rates = tuple[float, float]
"""Tokens per second of wall time, and per second of this process's CPU time."""


def timed(work: Any) -> Rates:
    """The rates of ``work()``, which returns the tokens it generated."""
    wall, cpu = time.perf_counter(), time.process_time()
    generated = work()
    return generated / (time.perf_counter() - wall), generated / (time.process_time() - cpu)


def floor(folder: Path, chats: list[list[dict[str, Any]]], batch: int, max_tokens: int) -> Rates:
    """The rates of ``model.generate`` by hand, ``batch`` prompts (sorted by length) a call, on
    a thread of its own."""
    rates: list[Rates] = []
    worker = threading.Thread(target=lambda: rates.append(
        generate_by_hand(folder, chats, batch, max_tokens)))
    worker.start()
    worker.join()
    return rates[0]


def generate_by_hand(folder: Path, chats: list[list[dict[str, Any]]], batch: int,
                     max_tokens: int) -> Rates:
    """What :func:`floor` times, on the calling thread."""
    import torch
    import transformers

    test_helpers()
    from support.tiny_chat_models import END_ID

    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForCausalLM.from_pretrained(folder).eval()
    texts = sorted((tokenizer.apply_chat_template(chat, add_generation_prompt=True,
                                                  tokenize=False) for chat in chats),
                   key=lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"]))

    def work() -> int:
        generated = 0
        for start in range(0, len(texts), batch):
            inputs = tokenizer(texts[start:start + batch], return_tensors="pt", padding=True,
                               padding_side="left", add_special_tokens=False)
            with torch.no_grad():
                out = model.generate(**inputs, max_new_tokens=max_tokens, do_sample=False)
            for row in out[:, inputs["input_ids"].shape[1]:].tolist():
                generated += row.index(END_ID) + 1 if END_ID in row else len(row)
        return generated

    return timed(work)


def backend(folder: Path, chats: list[list[dict[str, Any]]], batch: int | None,
            concurrency: int, max_tokens: int) -> Rates:
    """The rates of ``hf:`` answering every chat, ``concurrency`` in flight."""
    from svgeval.models import GenerationRequest, load_model
    from svgeval.models.hf import HFModel

    args = {"batch_size": str(batch)} if batch is not None else {}
    model = load_model(f"hf:{folder}", concurrency=concurrency, model_args=args)
    assert isinstance(model, HFModel)

    async def run() -> int:
        slots = asyncio.Semaphore(concurrency)

        async def one(index: int, chat: list[dict[str, Any]]) -> int:
            async with slots:
                answer = await model.generate(GenerationRequest(f"s{index}", chat,
                                                                max_tokens=max_tokens))
            return int(answer.usage["completion_tokens"])

        try:
            return sum(await asyncio.gather(*(one(i, chat) for i, chat in enumerate(chats))))
        finally:
            await model.aclose()

    rates = timed(lambda: asyncio.run(run()))
    expected = 1.0 if batch == 1 else float(concurrency)
    assert model.report()["mean_batch"] == expected, model.report()  # the batches were full
    return rates


def run(scale: Scale) -> Figures:
    needs("torch", "transformers", extra='pip install -e ".[models]"')
    import torch
    import transformers

    test_helpers()
    from support.tiny_chat_models import build_chat_llm

    runs, max_tokens = scale.pick("runs", 3, 1), scale.pick("max_tokens", 128, 2)
    concurrency, threads = scale.pick("concurrency", 8, 2), scale.pick("threads", 1, 1)
    torch.set_num_threads(threads)
    figures = Figures()
    figures.note(f"torch {torch.__version__} ({torch.get_num_threads()} intra-op threads), "
                 f"transformers {transformers.__version__}")
    folder = build_chat_llm(scale.workdir / "model")
    chats = prompts(scale.workdir)[: 2 * concurrency if scale.smoke else None]
    figures.note(f"{len(chats)} prompts, max_tokens {max_tokens}, concurrency {concurrency}")
    for run_ in range(1, runs + 1):
        figures.note(f"run {run_}: load average {load()} at its start")
        one_floor = floor(folder, chats, 1, max_tokens)
        one = backend(folder, chats, 1, concurrency, max_tokens)
        full_floor = floor(folder, chats, concurrency, max_tokens)
        full = backend(folder, chats, None, concurrency, max_tokens)
        for name, rates, floors in (("hf:, batch_size=1", one, one_floor),
                                    ("hf:, default batch size", full, full_floor)):
            batch = 1 if rates is one else concurrency
            for index, clock in enumerate(("wall", "CPU")):
                figures.add(f"run {run_}, {name}: tokens/s of {clock} time", rates[index],
                            "tokens/s", floors[index], f"model.generate by hand, batch {batch}")
    return figures
