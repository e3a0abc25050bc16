"""Every registered task through every command a user has, on its built-in sample.

A class per task is made from the registry (a new suite joins by registering its tasks and
its built-in sample; no test changes), so pytest-xdist spreads the tasks over its workers.
For each task, the offline baselines the task declares (``oracle``, ``identity`` where the
samples carry an input SVG, ``empty``, ``hostile``) answer the built-in sample through
``svgeval run``, and then:

* every sample has exactly one record in every run, and the run is complete;
* the oracle is strictly better than every other baseline on every directed metric both have a
  value for, but where the task declares the metric degenerate for that baseline
  (:attr:`svgeval.tasks.base.Task.degenerate`); metrics whose value with the tests' random tiny
  weights says nothing of the answer (:data:`NOISE_WITH_RANDOM_WEIGHTS`) are left out of the
  ordering;
* the empty and hostile answers are recorded failures of the model (an extraction or a render
  refused), never a scorer's error (a task that scores the text alone,
  :attr:`~svgeval.tasks.base.Task.scores_text_only`, scores a hostile SVG as a wrong answer,
  and a released repair chain may turn one into a harmless drawing it records as repaired);
* ``--resume`` asks nothing and changes nothing, and ``svgeval score`` gives ``results.json``'s
  numbers exactly, on the runs of :data:`SCORED_AGAIN` (every answer drawn, every answer
  refused: the other baselines' records are of these two kinds); ``report``, ``leaderboard``
  (md, csv, html, latex) and ``compare`` open the runs;
* the task pickles after a run, as Ray sends it to its actors;
* two shards merged give the unsharded numbers; ``svgeval.evaluate`` with two epochs gives
  each epoch, and the run, the CLI's one-epoch numbers (one run for both checks: a run of
  every task costs the suite about a minute); ``--executor ray`` too, where Ray is
  installed, for each suite's task with the most model metrics (every task is checked to
  pickle as Ray sends it). By default those that score many answers at once run through Ray
  (:func:`_ray_by_default`);
  the rest are ``slow`` (``pytest -m slow``): a Ray run starts actors that import torch, 20-50
  s each on a loaded 2-core machine, and every suite's took the suite past 10 minutes.

The pytest timeout of each test is the guard against a hang.
"""

from __future__ import annotations

import json
import math
import os
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import svgeval
from svgeval.cli import app
from svgeval.metrics.registry import METRICS
from svgeval.render.isolated import Renderer
from svgeval.tasks import all_tasks
from svgeval.tasks.base import CommonOptions, Task
from svgeval.tasks.builtin import BUILTIN, builtin_sample

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

cli = CliRunner()

NOISE_WITH_RANDOM_WEIGHTS = frozenset({
    "clip_score", "clip_t2i", "aesthetic", "hps", "rclip", "tifa", "siglip_score", "viclip_t2v",
})
"""Registered metrics that compare an answer with a text through learned weights: with the
tests' randomly initialised models their values order nothing, so they are computed (checked
finite) but not ordered."""

SCORED_AGAIN = ("oracle", "hostile")
"""The runs resumed and scored again (``svgeval score``): every answer drawn, and every answer
refused (resuming every baseline's run too cost about 2 minutes of test time). The
hostile run is the one reported (its gallery holds the refused answers beside the reference
pictures; a report's distribution plots, two files a metric, are most of its time); the
leaderboard and ``compare`` read every run."""

MODEL_FAILURES = frozenset({"extract", "render", "truncated"})
"""The failure kinds of a wrong answer (the model's), as opposed to a data or scorer problem."""


@pytest.fixture(scope="session")
def tiny_weights(tiny_clip_dir: Path, tiny_dino_dir: Path, tiny_siglip_dir: Path,
                 tiny_text_encoder_dir: Path, tiny_hps_dir: Path,
                 tiny_dreamsim_dir: Path, tiny_viclip_dir: Path) -> dict[str, str]:
    """``--model-path`` names -> the tests' tiny random weights; the metrics whose only weights
    here are real ones that cost seconds a batch on a CPU (the aesthetic head, SVGauge) turned
    off (``none``: not computed), each checked by its own tests; FID and FVD too, whose
    Inception v3 and I3D are full size even with random weights. The set-level path they take
    through shards, epochs and rescoring is CLIP-FID's, computed here with the tiny CLIP beside
    them (SVGenius, StarVector); their numbers are checked by their own tests
    (``tests/metrics/test_fid.py``, ``test_frechet_variants.py``, ``test_video_metrics.py``,
    the suites' released-model tests). LPIPS is off too: its tiny network
    (``tiny_lpips_dir``) still costs seconds over the animation tasks' frames, and the suites'
    own tests run it."""
    tiny = {"clip": tiny_clip_dir, "clip_fid": tiny_clip_dir, "tokenizer": tiny_clip_dir,
            "dino": tiny_dino_dir, "siglip": tiny_siglip_dir,
            "bge_m3": tiny_text_encoder_dir, "bertscore": tiny_text_encoder_dir,
            "hps": tiny_hps_dir, "dreamsim": tiny_dreamsim_dir, "viclip": tiny_viclip_dir}
    return {**{name: str(path) for name, path in tiny.items()},
            **dict.fromkeys(("lpips", "aesthetic", "aesthetic_head", "svgauge", "fid", "i3d"),
                            "none")}


def invoke(*args: str) -> str:
    """Run the CLI in process; its output, asserting exit code 0."""
    result = cli.invoke(app, list(args))
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.output


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def records(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in
            (run / "samples.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


def repaired(record: dict[str, Any]) -> bool:
    """A hostile answer the released repair chain (StarVector's, VectorGym's) turned into a
    harmless drawing, recorded as such (``vectorgym+repaired``): scored, as released."""
    return record.get("failure") is None and str(record.get("extraction_rule")).endswith(
        "+repaired")


def differences(first: dict[str, float | None], second: dict[str, float | None],
                tolerance: tuple[float, float] = (0.0, 0.0)) -> list[str]:
    """The keys whose values differ (NaN equal to NaN; within ``tolerance``, relative and
    absolute, of each other counts as equal), each with both values; a key one side lacks
    too."""
    rel, abs_ = tolerance

    def same(a: float | None, b: float | None) -> bool:
        if a is None or b is None:
            return a is b
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=rel, abs_tol=abs_)
    return [f"{key}: {first.get(key)!r} against {second.get(key)!r}"
            for key in sorted(first.keys() | second.keys())
            if key not in first or key not in second or not same(first[key], second[key])]


BATCHING = (1e-6, 1e-5)
"""How far (relative, absolute) a model metric's float32 forward pass may move when its batch
holds other samples (a shard's batches are not the whole run's, nor two epochs' or a Ray
actor's): the merge of two shards, the epochs and the Ray run are held to this, the rest to
equality. The absolute part is a cosine of float32 unit vectors (about 1e-7) on CLIP score's
0-100 scale: near 0, as the tiny random weights put it, a relative bound alone is no bound
(svgenius-text2svg ``hard/clip`` 1.3421118 merged against 1.3421092 whole)."""


def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One ``$SVGEVAL_CACHE`` for every class of the session, pytest-xdist's workers included:
    a built-in sample (a suite's, written once for all its tasks) and the answers' drawn
    animations are written once, each renamed into place, so workers writing at once are safe."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "conformance-cache"


@pytest.fixture(scope="class")
def runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
         tiny_weights: dict[str, str]) -> Iterator[dict[str, dict[str, Path]]]:
    """Each task's baseline runs: task -> baseline -> run directory, every model metric with
    the tests' tiny weights (or none: not computed)."""
    tasks: tuple[str, ...] = request.cls.tasks
    root = tmp_path_factory.mktemp(request.cls.__name__)
    made: dict[str, dict[str, Path]] = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SVGEVAL_CACHE", str(shared_cache(tmp_path_factory)))
        for metric, path in tiny_weights.items():
            patch.setenv(f"SVGEVAL_{metric.upper()}_MODEL", path)
        for name in tasks:
            made[name] = {}
            for baseline in all_tasks()[name].baselines():
                out = root / name / baseline
                invoke("run", name, "--data", "builtin", "--model", baseline, "--out",
                       str(out), "--render-workers", "1")
                made[name][baseline] = out
        yield made


class TaskChecks:
    """The tests of one task; the subclasses made below name it."""

    tasks: tuple[str, ...] = ()

    def each(self, runs: dict[str, dict[str, Path]]) -> Iterator[tuple[type[Task], dict[str, Path]]]:
        for name, by_baseline in runs.items():
            yield all_tasks()[name], by_baseline

    def test_every_sample_has_one_record_in_a_complete_run(
            self, runs: dict[str, dict[str, Path]]) -> None:
        for task, by_baseline in self.each(runs):
            for baseline, run in by_baseline.items():
                results = read_json(run / "results.json")
                ids = [record["id"] for record in records(run)]
                assert len(ids) == len(set(ids)) == results["n"] == results["n_expected"]
                assert results["complete"] and results["n_dataset"] == results["n"], (
                    task.name, baseline)
                assert 4 <= results["n"], task.name

    def test_the_oracle_is_better_than_every_baseline(
            self, runs: dict[str, dict[str, Path]]) -> None:
        for task, by_baseline in self.each(runs):
            oracle = read_json(by_baseline["oracle"] / "results.json")["metrics"]
            assert oracle, task.name
            for baseline, run in by_baseline.items():
                if baseline == "oracle":
                    continue
                theirs = read_json(run / "results.json")["metrics"]
                for key, mine in oracle.items():
                    metric = task.metrics.get(key.rsplit("/", 1)[-1].split(":")[0])
                    other = theirs.get(key)
                    if (metric is None or mine is None or other is None
                            or metric in NOISE_WITH_RANDOM_WEIGHTS):
                        continue
                    info = METRICS.get(metric)
                    if info.best_at is not None:
                        good = (-abs(mine - info.best_at), -abs(other - info.best_at))
                    else:
                        sign = 1 if info.higher_is_better else -1
                        good = (sign * mine, sign * other)
                    if not task.declared_degenerate(baseline, key):
                        assert good[0] > good[1], (task.name, baseline, key, mine, other)

    def test_empty_and_hostile_answers_are_the_models_failures(
            self, runs: dict[str, dict[str, Path]]) -> None:
        for task, by_baseline in self.each(runs):
            for baseline in ("empty", "hostile"):
                kinds = {(record.get("failure") or {}).get("kind")
                         for record in records(by_baseline[baseline])
                         if not repaired(record)}
                # a scorer of text alone scores a hostile SVG as the wrong answer it is
                allowed = MODEL_FAILURES | ({None} if baseline == "hostile"
                                            and task.scores_text_only else set())
                assert kinds <= allowed, (task.name, baseline, kinds)

    def test_resume_asks_nothing_and_score_gives_the_same_numbers(
            self, runs: dict[str, dict[str, Path]]) -> None:
        for task, by_baseline in self.each(runs):
            for baseline in SCORED_AGAIN:
                run = by_baseline[baseline]
                before = read_json(run / "results.json")
                held = (run / "samples.jsonl").read_bytes()
                invoke("run", task.name, "--data", "builtin", "--model", baseline, "--out",
                       str(run), "--resume", "--render-workers", "1")
                assert (run / "samples.jsonl").read_bytes() == held, (task.name, baseline)
                invoke("score", str(run))
                after = read_json(run / "results.json")
                assert differences(
                    after["metrics"], before["metrics"]) == [], (task.name, baseline)
                assert after["counts"] == before["counts"], (task.name, baseline)

    def test_report_leaderboard_and_compare_open_every_run(
            self, runs: dict[str, dict[str, Path]], tmp_path: Path) -> None:
        for task, by_baseline in self.each(runs):
            folders = [str(run) for run in by_baseline.values()]
            invoke("report", str(by_baseline["hostile"]), "--out", str(tmp_path / task.name))
            for format_ in ("md", "csv", "html", "latex"):
                assert "oracle" in invoke("leaderboard", *folders, "--format", format_)
            invoke("compare", folders[0], folders[-1])

    def test_shards_epochs_and_the_python_api_give_the_clis_numbers(
            self, runs: dict[str, dict[str, Path]], tmp_path: Path) -> None:
        for task, by_baseline in self.each(runs):
            oracle = read_json(by_baseline["oracle"] / "results.json")
            common = ("--data", "builtin", "--model", "oracle", "--render-workers", "1")
            shards = [tmp_path / task.name / f"shard{index}" for index in (0, 1)]
            for index, shard in enumerate(shards):
                invoke("run", task.name, *common, "--out", str(shard), "--shard", f"{index}/2")
            merged = tmp_path / task.name / "merged"
            invoke("merge", *map(str, shards), "--out", str(merged))
            assert differences(
                read_json(merged / "results.json")["metrics"], oracle["metrics"],
                BATCHING) == [], task.name
            # one run checks both: the Python API, asked for two epochs
            evaluation = svgeval.evaluate(task.name, "oracle", data="builtin", epochs=2,
                                          out=tmp_path / task.name / "api", render_workers=1)
            epochs = read_json(evaluation.run_dir / "results.json")["epochs"]
            assert epochs["k"] == 2, task.name
            once = {key: value for key, value in oracle["metrics"].items()
                    if key.rsplit("/", 1)[-1] not in task.set_metrics
                    or not task.set_metrics_across_epochs}
            for numbers in [*epochs["metrics"].values(), evaluation.metrics]:
                assert differences(
                    {key: numbers.get(key) for key in once}, once, BATCHING) == [], task.name

    def test_the_task_pickles_after_a_run_as_ray_sends_it(
            self, runs: dict[str, dict[str, Path]]) -> None:
        """What ``--executor ray`` needs of every task whatever the machine: the task, its
        samples loaded and answers scored (caches filled), copied into another process."""
        for task, by_baseline in self.each(runs):
            made = task(CommonOptions(data=Path(BUILTIN)))
            samples = list(made.load())
            with Renderer(workers=1, timeout_s=30.0) as renderer:
                made.score(samples[0], samples[0].reference, renderer)
            copy = pickle.loads(pickle.dumps(made))
            assert type(copy) is task and copy.options == made.options, task.name

class TaskChecksWithRay(TaskChecks):
    """The tests of one task and its run through Ray: the task of its suite with the most
    model metrics (a scorer actor and a metric actor, each a process that imports the suite
    and its networks: a run of every task cost about a minute more a suite)."""

    def test_ray_gives_the_local_numbers(self, runs: dict[str, dict[str, Path]],
                                         local_ray: None, tmp_path: Path) -> None:
        task = all_tasks()[self.tasks[0]]
        oracle = read_json(runs[task.name]["oracle"] / "results.json")
        invoke("run", task.name, "--data", "builtin", "--model", "oracle", "--out",
               str(tmp_path / task.name), "--executor", "ray", "--render-workers", "1")
        assert differences(
            read_json(tmp_path / task.name / "results.json")["metrics"], oracle["metrics"],
            BATCHING) == [], task.name


class TaskChecksWithSlowRay(TaskChecksWithRay):
    """:class:`TaskChecksWithRay` whose run through Ray is opt-in (``slow``)."""

    @pytest.mark.slow
    def test_ray_gives_the_local_numbers(self, runs: dict[str, dict[str, Path]],
                                         local_ray: None, tmp_path: Path) -> None:
        super().test_ray_gives_the_local_numbers(runs, local_ray, tmp_path)


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A local Ray instance of this module's own, which each run through Ray joins: started
    once for the module's tests in a worker, not once a suite (seconds each)."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             object_store_memory=100 * 1024 * 1024)
    try:
        yield
    finally:
        ray.shutdown()


def _checked_through_ray() -> set[str]:
    """Per suite, its task with the most model metrics (the first of them on a tie)."""
    suites: dict[str, list[type[Task]]] = {}
    for name, task in all_tasks().items():
        suites.setdefault(task.suite or name, []).append(task)
    return {max(tasks, key=lambda cls: len(cls.batched_metrics) + len(cls.set_metrics)).name
            for tasks in suites.values()}


def _ray_by_default(checked: set[str]) -> set[str]:
    """Of ``checked``, the tasks run through Ray by default: each that scores many answers at
    once (:attr:`~svgeval.tasks.base.Task.scores_many`, a scoring path of its own). Model
    metrics on a metric actor are run through Ray by default in
    ``tests/runner/test_ray_executor.py`` (the run's model settings reaching the actor); here
    the task with the most of them is ``slow`` (48 s of a 2-core suite's time)."""
    return {name for name in sorted(checked) if all_tasks()[name].scores_many}


def test_every_task_has_a_built_in_sample() -> None:
    lacking = [name for name in all_tasks() if builtin_sample(name) is None]
    assert lacking == []


# a class per task, so that pytest-xdist spreads the tasks over its workers; the guard against a
# hang: five minutes for each test, the class's runs included
_THROUGH_RAY = _checked_through_ray()
_RAY_BY_DEFAULT = _ray_by_default(_THROUGH_RAY)
for _task in all_tasks():
    _name = "Test" + "".join(part.capitalize() for part in _task.split("-"))
    _base = (TaskChecks if _task not in _THROUGH_RAY else
             TaskChecksWithRay if _task in _RAY_BY_DEFAULT else TaskChecksWithSlowRay)
    globals()[_name] = pytest.mark.timeout(300)(type(_name, (_base,), {"tasks": (_task,)}))
