"""Generated tokens per second of ``hf:`` at batch 1 and at its default batch size, against the
floor: ``model.generate`` called by hand on the same prompts in the same batches.

The model is the tests' tiny Llama chat model (2 layers, hidden size 32, a byte-level BPE of 385
tokens; ``tests/support/tiny_chat_models.py``), built into a temporary folder. The prompts are
SVGEditBench's, built from svgeval's demo icons (72 prompts of 250-400 tokens). Each
configuration answers every prompt with ``--max-tokens`` new tokens at most (greedy, stopping at
the end token as ``hf:`` does); tokens/s counts the tokens generated, end tokens included.

* ``floor``: the prompts in the order ``hf:`` batches them (by length), ``batch`` at a time,
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

Run from the repository root: ``.venv/bin/python bench/bench_hf_batching.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import torch
import transformers

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.tiny_chat_models import END_ID, build_chat_llm

from svgeval.builders.svgeditbench.builder import build_cases, write_release
from svgeval.models import GenerationRequest, load_model
from svgeval.models.hf import HFModel
from svgeval.svg.demo_corpus import write_demo_corpus
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.svgeditbench import SvgEditBench


def prompts(scratch: Path) -> list[list[dict[str, Any]]]:
    """The chat messages of the SVGEditBench cases built from the demo icons."""
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1, help="torch's intra-op threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, torch {torch.__version__} ({torch.get_num_threads()} "
          f"intra-op threads), transformers {transformers.__version__}")
    with tempfile.TemporaryDirectory() as scratch:
        folder = build_chat_llm(Path(scratch) / "model")
        chats = prompts(Path(scratch))
        print(f"{len(chats)} prompts, --max-tokens {args.max_tokens}, "
              f"--concurrency {args.concurrency}; tokens/s of wall time | of CPU time")
        for run in range(1, args.runs + 1):
            rows = {
                "floor, batch 1": floor(folder, chats, 1, args.max_tokens),
                "hf:, batch_size=1": backend(folder, chats, 1, args.concurrency,
                                             args.max_tokens),
                f"floor, batch {args.concurrency}": floor(folder, chats, args.concurrency,
                                                          args.max_tokens),
                "hf:, default batch size": backend(folder, chats, None, args.concurrency,
                                                   args.max_tokens),
            }
            for name, (wall, cpu) in rows.items():
                print(f"run {run}  {name:26s} {wall:8.1f} | {cpu:8.1f}")
            one, default = rows["hf:, batch_size=1"], rows["hf:, default batch size"]
            hand = rows[f"floor, batch {args.concurrency}"]
            print(f"run {run}  hf: default batch / batch 1: {default[0] / one[0]:.1f}x wall, "
                  f"{default[1] / one[1]:.1f}x CPU; hf: / floor at the default batch: "
                  f"{default[0] / hand[0]:.2f} wall, {default[1] / hand[1]:.2f} CPU; "
                  f"load average {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
