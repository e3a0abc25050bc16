"""``--executor ray`` on a real local Ray instance (two CPUs, started once for the module): the
same records as the local executor, hostile SVGs included; a killed worker loses no finished
sample and ``--resume`` completes the run; the endpoint limiter never grants more than its slots;
the run's ``--precision``, ``--preprocess`` and ``--model-path`` reach the scoring and metric
workers, with nothing written to the driver's environment.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

ray = pytest.importorskip("ray")

HERE = Path(__file__).resolve().parent

from support.hostile import counting_server, hostile_corpus  # noqa: F401
from typer.testing import CliRunner

from svgeval.cli import app
from svgeval.metrics.model_settings import PRECISIONS, PREPROCESSINGS
from svgeval.models import load_model
from svgeval.models.base import Generation, GenerationRequest, Model
from svgeval.models.baselines import IdentityModel
from svgeval.render.isolated import Renderer
from svgeval.render.picture import RenderFailure
from svgeval.runner import RunDir, Runner, RunSettings
from svgeval.runner.executors import ExecutorError
from svgeval.runner.ray_executor import ClusterLimitedModel, endpoint_limiter
from svgeval.runner.records import SampleRecord
from svgeval.runner.units import select_samples
from svgeval.tasks.base import BatchItem, CommonOptions, MetricContext, Sample
from svgeval.tasks.outcome import MetricValues, Outcome
from svgeval.tasks.svgeditbench import SvgEditBench
from svgeval.tasks.svgeditbench.task import RENDER

LIMIT = 3
"""Samples per SVGEditBench group: 18 in all."""


@pytest.fixture(scope="module", autouse=True)
def ray_instance() -> Iterator[None]:
    """One local Ray instance for the module; its workers import this folder's modules and the
    shared helpers (``support``)."""
    path = os.pathsep.join(filter(None, [str(HERE), str(HERE.parent), os.environ.get("PYTHONPATH")]))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             object_store_memory=100 * 1024 * 1024, runtime_env={"env_vars": {"PYTHONPATH": path}})
    yield
    ray.shutdown()


class InkedEdit(SvgEditBench):
    """SVGEditBench with a batched metric (the mean ink of the drawn output, rendered in the
    metric worker's isolation) and a set-level metric (its mean per group)."""

    batched_metrics = ("ink",)
    set_metrics = ("mean_ink",)

    def batch_score(self, items: Sequence[BatchItem], context: MetricContext) -> list[MetricValues]:
        scores = []
        for item in items:
            if item.output_svg is None:  # a failed answer: no ink, as on a blank canvas
                scores.append(MetricValues(metrics={"ink": 0.0}))
                continue
            drawn = context.renderer.render(item.output_svg, RENDER)
            ink = (None if isinstance(drawn, RenderFailure)
                   else round(float(1.0 - drawn.floats.mean()), 12))
            scores.append(MetricValues(metrics={"ink": ink}))
        return scores

    def set_score(self, groups: Mapping[str, Sequence[BatchItem]], context: MetricContext) -> (
        MetricValues
    ):
        return MetricValues(metrics={f"{group}/mean_ink": float(len(items))
                              for group, items in groups.items()})


WEIGHTS = {"clip": "/models/clip", "tokenizer": "/models/tokenizer"}
"""The local weights the run of :class:`SettingsSeen` is given (``--model-path``)."""


class SettingsSeen(SvgEditBench):
    """SVGEditBench whose records say what the model metrics of the scoring worker
    (``score_paths``: the task's local weights) and of the metric worker (``batch_*``: the
    precision and preprocessing, as their indices in the allowed values, and the local weights
    of its :class:`MetricContext`) would compute with."""

    batched_metrics = ("batch_precision", "batch_preprocess", "batch_paths")

    def score_many(self, items: Sequence[tuple[Sample, str]], renderer: Renderer) -> list[Outcome]:
        outcomes = super().score_many(items, renderer)  # SvgEditBench.score is a batch of one
        for outcome in outcomes:
            outcome.metrics["score_paths"] = float(
                self.common.model_settings().model_paths == WEIGHTS)
        return outcomes

    def batch_score(self, items: Sequence[BatchItem], context: MetricContext) -> list[MetricValues]:
        how = context.model_settings
        seen = {"batch_precision": float(PRECISIONS.index(how.precision)),
                "batch_preprocess": float(PREPROCESSINGS.index(how.preprocess)),
                "batch_paths": float(how.model_paths == WEIGHTS)}
        return [MetricValues(metrics=dict(seen)) for _ in items]


def hostile_answers(tmp_path: Path, server: str) -> list[tuple[str, str]]:
    """The hostile corpus that a model can answer: text (SVG code and its failure tag)."""
    return [(svg, tag) for svg, tag in hostile_corpus(tmp_path, server).values()
            if isinstance(svg, str)]


def answers(tmp_path: Path, data: Path, server: str) -> Path:
    """A replay file for the samples of a run with ``--limit LIMIT``: the hostile corpus first
    (one SVG per sample), then the references, and answers with no SVG."""
    samples = select_samples(SvgEditBench(CommonOptions(data=data)).load(), LIMIT)
    hostile = hostile_answers(tmp_path, server)
    lines = []
    for index, sample in enumerate(samples):
        if index < len(hostile):
            response = f"```svg\n{hostile[index][0]}\n```"
        else:
            response = "no svg here" if index % 7 == 0 else f"```svg\n{sample.reference}\n```"
        lines.append(json.dumps({"id": sample.id, "response": response}))
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def records(run: Path) -> dict[str, dict[str, Any]]:
    """The run's records by id, without the fields that time the run."""
    lines = (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    parsed = [SampleRecord.model_validate_json(line).model_dump(mode="json") for line in lines]
    return {r["id"]: {k: v for k, v in r.items() if k not in ("timing", "created_at")}
            for r in parsed}


def results(run: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((run / "results.json").read_text(encoding="utf-8"))
    return {key: loaded[key] for key in ("metrics", "counts", "n", "n_valid", "not_computed")}


def run_args(data: Path, out: Path, replay: Path, *extra: str) -> list[str]:
    return ["run", "svgeditbench", "--data", str(data), "--out", str(out), "--limit", str(LIMIT),
            "--model", f"replay:{replay}", "--render-workers", "2", *extra]


def test_ray_gives_the_local_records_hostile_corpus_included(
    demo_data: Path, tmp_path: Path, counting_server: tuple[str, list[str]]  # noqa: F811
) -> None:
    base_url, hits = counting_server
    replay = answers(tmp_path, demo_data, base_url)
    cli = CliRunner()
    for executor in ("local", "ray"):
        result = cli.invoke(app, run_args(demo_data, tmp_path / executor, replay,
                                          "--executor", executor))
        assert result.exit_code == 0, result.output
    local, on_ray = records(tmp_path / "local"), records(tmp_path / "ray")
    assert on_ray == local and len(local) == 6 * LIMIT
    assert results(tmp_path / "ray") == results(tmp_path / "local")
    ordered = [json.loads(line)["id"] for line in replay.read_text().splitlines()]
    expected = [tag for _, tag in hostile_answers(tmp_path, base_url)][: len(ordered)]
    failures = [on_ray[i]["failure"] or {} for i in ordered]
    tags = [f"{failure.get('kind')}:{failure.get('reason')}" for failure in failures]
    assert tags[: len(expected)] == [f"render:{tag}" for tag in expected]
    assert hits == []
    config = json.loads((tmp_path / "ray" / "config.json").read_text())
    assert config["settings"]["executor"] == "ray"


def test_a_killed_worker_loses_no_finished_sample_and_resume_completes(
    demo_data: Path, tmp_path: Path
) -> None:
    replay = answers(tmp_path, demo_data, "http://127.0.0.1:9")
    task = InkedEdit(CommonOptions(data=demo_data))
    settings = RunSettings(limit=LIMIT, render_workers=1, executor="ray")  # one scorer
    seen: dict[str, SampleRecord] = {}

    def kill_after_three(record: SampleRecord) -> None:
        seen[record.id] = record
        if len(seen) == 3:
            for named in ray.util.list_named_actors(all_namespaces=True):
                if named["name"].startswith("svgeval-scorer-"):
                    actor = ray.get_actor(named["name"], namespace=named["namespace"])
                    ray.kill(actor, no_restart=True)
                    until_dead(actor)  # dead before the run goes on

    run = RunDir(tmp_path / "run")
    runner = Runner(task, load_model(f"replay:{replay}"), run, settings, progress=kill_after_three)
    with pytest.raises(ExecutorError, match="--resume"):
        asyncio.run(runner.run(runner.prepare(resume=False)))
    kept = records(run.root)
    assert 3 <= len(kept) < 6 * LIMIT
    assert kept == records_of(seen)

    resumed = Runner(task, load_model(f"replay:{replay}"), run, settings)
    completed = asyncio.run(resumed.run(resumed.prepare(resume=True)))
    assert completed.complete
    local = RunDir(tmp_path / "local")
    reference = Runner(task, load_model(f"replay:{replay}"), local,
                       RunSettings(limit=LIMIT, render_workers=2))
    # the batched and set-level metrics ran on the metric actor: the same values as locally
    assert asyncio.run(reference.run(reference.prepare(resume=False))).metrics == completed.metrics
    assert completed.metrics["change_color/mean_ink"] == float(LIMIT)
    final = records(run.root)
    assert final == records(local.root)
    ink = [record["metrics"]["ink"] for record in final.values()]
    assert len(ink) == 6 * LIMIT and all(value is not None and 0 <= value < 1 for value in ink)


def until_dead(actor: Any, calls: int = 200) -> None:
    """Call ``actor`` until it answers with RayActorError. ``ray.kill`` only asks Ray to end it:
    a call made just after may still be answered (seen once in five full runs)."""
    for _ in range(calls):
        try:
            ray.get(actor.pid.remote(), timeout=30)
        except ray.exceptions.RayActorError:
            return
    pytest.fail(f"the killed actor still answered {calls} calls")


def records_of(seen: Mapping[str, SampleRecord]) -> dict[str, dict[str, Any]]:
    return {key: {k: v for k, v in record.model_dump(mode="json").items()
                  if k not in ("timing", "created_at")} for key, record in seen.items()}


class Gated(Model):
    """A model whose calls wait until the test opens them, counting the calls in flight."""

    spec = "gated"

    def __init__(self) -> None:
        self.in_flight = self.most = self.finished = 0
        self.changed = asyncio.Condition()
        self.gates: list[asyncio.Event] = []

    async def generate(self, request: GenerationRequest) -> Generation:
        gate = asyncio.Event()
        async with self.changed:
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
            self.gates.append(gate)
            self.changed.notify_all()
        await gate.wait()
        async with self.changed:
            self.in_flight -= 1
            self.finished += 1
            self.changed.notify_all()
        return Generation(text=request.sample_id)


def test_endpoint_limiter_never_grants_more_than_its_slots() -> None:
    slots, calls = 3, 14

    async def main() -> tuple[int, list[str], dict[str, int]]:
        inner = Gated()
        key = "http://example.invalid/v1 limiter-test"
        # two drivers of one endpoint: the same named limiter, each its own holder
        drivers = [ClusterLimitedModel(inner, endpoint_limiter(key, slots), f"driver-{i}")
                   for i in range(2)]
        jobs = [asyncio.ensure_future(drivers[i % 2].generate(GenerationRequest(str(i), [])))
                for i in range(calls)]
        for opened in range(calls):
            def settled(opened: int = opened) -> bool:  # the calls opened so far are done
                return inner.finished == opened and inner.in_flight >= min(slots, calls - opened)

            async with inner.changed:
                await inner.changed.wait_for(settled)
            inner.gates[opened].set()
        texts = [generation.text for generation in await asyncio.gather(*jobs)]
        state = await drivers[0].limiter.state.remote()
        ray.kill(drivers[0].limiter)
        return inner.most, texts, state

    most, texts, state = asyncio.run(main())
    assert most == slots
    assert sorted(texts, key=int) == [str(i) for i in range(calls)]
    assert state == {"limit": slots, "in_flight": 0, "waiting": 0, "max_in_flight": slots}


@pytest.mark.parametrize("executor", ["local", "ray"])
def test_the_runs_model_settings_reach_every_worker_and_its_config(
    executor: str, demo_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SVGEVAL_PRECISION", "fp32")  # the driver's environment says fp32
    monkeypatch.setenv("SVGEVAL_PREPROCESS", "cpu")
    before = dict(os.environ)
    settings = RunSettings(limit=1, render_workers=1, executor=executor, precision="bf16",
                           preprocess="device", model_paths=WEIGHTS)
    runner = Runner(SettingsSeen(CommonOptions(data=demo_data, model_paths=WEIGHTS)),
                    IdentityModel(), RunDir(tmp_path), settings)
    results = asyncio.run(runner.run(runner.prepare(resume=False)))
    assert results.n == 6 and results.metrics["change_color/score_paths"] == 1.0
    seen = {tuple(r["metrics"][key] for key in ("score_paths", *SettingsSeen.batched_metrics))
            for r in records(tmp_path).values()}
    # PRECISIONS[1] == "bf16", PREPROCESSINGS[1] == "device": in the scorers and the metric worker
    assert seen == {(1.0, 1.0, 1.0, 1.0)}
    config = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    assert config["settings"]["precision"] == "bf16"
    assert config["settings"]["preprocess"] == "device"
    assert config["settings"]["model_paths"] == WEIGHTS
    assert dict(os.environ) == before  # nothing of the run went into the driver's environment
