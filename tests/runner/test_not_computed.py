"""A metric whose weights are missing is recorded as not computed (None + reason), never 0."""

from __future__ import annotations

import asyncio
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

from svgeval.metrics.dino import dino
from svgeval.models.baselines import OracleModel
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.runner import RunDir, Runner, RunSettings
from svgeval.svg.demo_corpus import demo_svg
from svgeval.svg.extract import extract_svg
from svgeval.tasks.base import CommonOptions, Sample, Task
from svgeval.tasks.outcome import Outcome


@dataclass(frozen=True)
class DinoOptions:
    weights: Path = field(default=Path("."), metadata={"help": "DINO weights folder"})


class DinoTask(Task):
    name = "dino-check"
    description = "renders the answer and compares it with DINO"
    Options = DinoOptions

    def load(self) -> list[Sample]:
        svg = demo_svg("sun")
        return [Sample(id="sun", group="g", messages=[], reference=f"```svg\n{svg}\n```", target={})]

    def score(self, sample: Sample, response: str, renderer: Renderer) -> Outcome:
        svg = extract_svg(response).svg or ""
        image = renderer.render(svg, RenderSpec.square(32)).floats  # type: ignore[union-attr]
        score = Outcome.of(sample, {"drawn": 1.0})
        weights = str(self.options.weights)
        score.add_metric("dino", lambda: dino([image], [image], model_path=weights)[0])
        return score


def test_missing_weights_are_recorded_as_not_computed(tmp_path: Path) -> None:
    weights = tmp_path / "no-such-dinov2"
    task = DinoTask(CommonOptions(extra={"weights": str(weights)}))
    runner = Runner(task, OracleModel(), RunDir(tmp_path / "run"), RunSettings())
    results = asyncio.run(runner.run(runner.prepare(resume=False))).model_dump(mode="json")
    assert results["metrics"] == {"g/dino": None, "g/drawn": 1.0}
    reason = results["not_computed"]["dino"]
    if all(importlib.util.find_spec(name) for name in ("torch", "transformers")):
        assert str(weights) in reason and "model" in reason.lower()
    else:  # without the models extra the reason names the extra to install
        assert 'pip install -e ".[models]"' in reason
