"""The least an identity run of SVGEditBench could cost: its essential work, nothing else.

    python -m bench.lean_pipeline DATA RENDERER   # prints the process's wall time

A fresh process that does what a run of ``svgeval run svgeditbench --model identity`` must do,
in the cheapest arrangement we know, and leaves out everything else a run does:

- done: start the interpreter and the render workers' server with the renderer preloaded;
  import svgeval's records; list the release and hash it (a run's identity needs the hash);
  score every case inside the isolated workers, in chunks of 16 (render the answer and the
  input, MSE there: only a float comes back, and each worker keeps the originals it drew);
  write each answer and score as a ``ResponseRecord`` and a ``SampleRecord`` JSON line.
- left out: the command line (typer, rich), the model interface and its event loop, the
  scoring threads, the run-wide render memory and the batcher, fsync, progress, resume checks,
  the results and their table.

A run does all this and more; the one thing it does more cheaply is drawing the 100 originals
(per copy of the release) once for the whole run, where here each worker draws those it meets
(at most 100 renders more, about 0.1 s of CairoSVG on two workers). So on the same machine a
run's ratio to the floor can hardly go below this one's. The ``scoring-breakdown`` case times
it next to the floor (:func:`bench.floors.fresh_floor`: the safe renders alone) and the runs.
"""

from __future__ import annotations

import sys
import time
from typing import Any

STARTED = time.perf_counter()
CHUNK = 16

_originals: dict[str, Any] = {}
"""The originals this worker drew, by SVG (``uint8`` pixels: 100 per copy of the release)."""


def score_chunk(pairs: list[tuple[str, str]], renderer: str) -> list[float]:
    """MSE of each (output, answer) pair at 72 px, rendered in this worker: an identity run's
    output is an original, drawn once per worker; each answer is drawn once."""
    from svgeval.metrics.pixel import mse
    from svgeval.render.backends import render_function
    from svgeval.render.cairo import RenderSpec
    from svgeval.render.picture import Picture

    draw, spec = render_function(renderer), RenderSpec.square(72)

    def original(svg: str) -> Any:
        if svg not in _originals:
            _originals[svg] = draw(svg, spec)
        return Picture(_originals[svg]).floats

    return [mse(original(output), Picture(draw(answer, spec)).floats) for output, answer in pairs]


def main() -> None:
    from svgeval.render.forkserver import render_context, start_early

    data, renderer = sys.argv[1], sys.argv[2]
    start_early(renderer)
    import os
    import tempfile
    from pathlib import Path

    from pebble import ProcessPool

    from bench.lean_pipeline import score_chunk as by_name  # pickled by its module's name
    from svgeval.runner.identity import dataset_hash, prompt_hash
    from svgeval.runner.records import ResponseRecord, SampleRecord
    from svgeval.tasks.svgeditbench.data import load_release

    samples = load_release(Path(data))
    dataset_hash(samples)
    with ProcessPool(max_workers=os.cpu_count() or 1, context=render_context()) as pool, \
            tempfile.TemporaryDirectory() as out:
        chunks = [list(samples[start:start + CHUNK]) for start in range(0, len(samples), CHUNK)]
        scored = [pool.schedule(by_name, args=(
            [(s.input_svg or "", s.target.answer_svg) for s in chunk], renderer))
            for chunk in chunks]
        with open(Path(out, "responses.jsonl"), "w") as responses, \
                open(Path(out, "samples.jsonl"), "w") as records:
            for chunk, future in zip(chunks, scored):
                for sample, value in zip(chunk, future.result()):
                    digest = prompt_hash(sample)
                    response = ResponseRecord(id=sample.id, prompt_hash=digest,
                                              response=sample.input_svg)
                    responses.write(response.model_dump_json() + "\n")
                    records.write(SampleRecord(
                        id=sample.id, group=sample.group, prompt=sample.messages,
                        prompt_hash=digest, response=sample.input_svg,
                        extracted=sample.input_svg, metrics={"mse": value, "mse_all": value},
                    ).model_dump_json() + "\n")
    print(f"{len(samples)} cases, {time.perf_counter() - STARTED:.2f} s")


if __name__ == "__main__":
    main()
