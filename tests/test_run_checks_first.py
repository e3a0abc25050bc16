"""A run checks everything cheap before a checkpoint's weights load (issue 43, defect 6).

The task's options, the data, what the run directory holds and whether a hub id can be had
come first; an ``hf:`` checkpoint's weights load last, so a conflict with the run in ``--out``
is reported at once, and a hub id or a hub dataset the hub cannot give fails in one line, in
seconds, from the quick probe the model-based metrics use
(:func:`svgeval.metrics._models.check_hub`). Before: the weights loaded first, and an
unreachable hub cost ten lines of huggingface_hub's retries and 24-38 s.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path

import pytest
from support.unreachable_hub import Endpoint, Hub, closed_port, hub_out_of_reach, silent_listener
from typer.testing import CliRunner

import svgeval
from svgeval.cli import app
from svgeval.models import GenerationRequest, Model, ModelUnavailable, load_model
from svgeval.models.callable_model import CallableModel
from svgeval.runner import RunConflict

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml


def replace_the_loader(monkeypatch: pytest.MonkeyPatch, load: Callable[..., Model]) -> None:
    """``hf:`` loads its weights with ``load`` (:mod:`svgeval.models.hf_loading` replaced)."""
    stand_in = types.ModuleType("svgeval.models.hf_loading")
    stand_in.load_hf_model = load  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "svgeval.models.hf_loading", stand_in)


@pytest.fixture
def weights_loaded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The checkpoints whose weights ``hf:`` loads, each recorded by a stand-in loader whose
    model answers every prompt with an empty text."""
    loaded: list[str] = []

    def load_hf_model(spec: str, source: str, *options: object, **settings: object) -> Model:
        loaded.append(source)
        return CallableModel(lambda messages: "", spec=spec)

    replace_the_loader(monkeypatch, load_hf_model)
    return loaded


def invoke(*args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, [line for line in result.output.splitlines() if line.strip()]


def test_the_run_directory_is_checked_before_the_weights_load(
    weights_loaded: list[str], demo_data: Path, tmp_path: Path
) -> None:
    checkpoint, out = tmp_path / "checkpoint", tmp_path / "run"
    checkpoint.mkdir()
    run = ("run", "svgeditbench", "--data", str(demo_data), "--model", f"hf:{checkpoint}",
           "--out", str(out), "--limit", "1", "--render-workers", "1")
    code, output = invoke(*run, "--max-tokens", "16")
    assert code == 0, output
    assert weights_loaded == [str(checkpoint)]
    config = (out / "config.json").read_bytes()

    conflict = (f"error: {out} holds a run with a different max_tokens 16 in the directory, 8 "
                "now; resume with the same arguments or choose another --out")
    assert invoke(*run, "--max-tokens", "8", "--resume") == (1, [conflict])
    code, output = invoke(*run, "--max-tokens", "16")
    assert code == 1 and len(output) == 1 and "pass --resume to continue it" in output[0]
    with pytest.raises(RunConflict, match="different max_tokens 16 in the directory, 8 now"):
        svgeval.evaluate("svgeditbench", f"hf:{checkpoint}", data=demo_data, out=out, limit=1,
                         max_tokens=8, resume=True, render_workers=1)
    assert weights_loaded == [str(checkpoint)]  # not once more for the refused runs
    assert (out / "config.json").read_bytes() == config


def test_a_deferred_checkpoint_loads_its_weights_when_asked(
    weights_loaded: list[str], tmp_path: Path
) -> None:
    from svgeval.models import PendingModel  # new with the deferral: the other tests run without

    pending = load_model(f"hf:{tmp_path}", defer_weights=True)
    assert isinstance(pending, PendingModel) and weights_loaded == []
    with pytest.raises(ModelUnavailable, match="not loaded"):
        asyncio.run(pending.generate(GenerationRequest("sample", [])))
    assert isinstance(pending.load(), CallableModel)
    assert weights_loaded == [str(tmp_path)]
    assert isinstance(load_model(f"hf:{tmp_path}"), CallableModel)  # at once without defer_weights
    assert weights_loaded == [str(tmp_path)] * 2


def test_weights_that_do_not_load_leave_no_run_directory(
    monkeypatch: pytest.MonkeyPatch, demo_data: Path, tmp_path: Path
) -> None:
    def load_hf_model(spec: str, *rest: object, **settings: object) -> Model:
        raise ModelUnavailable(f"{spec}: cannot load the checkpoint (out of memory)")

    replace_the_loader(monkeypatch, load_hf_model)
    code, output = invoke("run", "svgeditbench", "--data", str(demo_data), "--model",
                          f"hf:{tmp_path}", "--out", str(tmp_path / "run"))
    assert (code, output) == (1, [f"error: hf:{tmp_path}: cannot load the checkpoint (out of memory)"])
    assert not (tmp_path / "run").exists()


def run_out_of_reach(endpoint: Endpoint, tmp_path: Path, *args: str) -> tuple[int, str, Hub]:
    """``svgeval run ARGS`` in a fresh process whose hub does not answer: its exit code, its
    output and the hub (with the connections it accepted)."""
    with endpoint() as hub:
        env = hub_out_of_reach(hub.port, tmp_path / "hf")
        done = subprocess.run([sys.executable, "-m", "svgeval", "run", *args], env=env,
                              capture_output=True, text=True, timeout=180, check=False)
    return done.returncode, done.stdout + done.stderr, hub


HUB_OUT_OF_REACH = "did not answer within 3 s"


@pytest.mark.parametrize("endpoint", [silent_listener, closed_port], ids=["silent", "closed"])
def test_a_hub_id_the_hub_cannot_give_fails_in_one_line(
    endpoint: Endpoint, demo_data: Path, tmp_path: Path
) -> None:
    code, output, hub = run_out_of_reach(
        endpoint, tmp_path, "svgeditbench", "--data", str(demo_data), "--model",
        "hf:Qwen/Qwen2.5-0.5B-Instruct", "--out", str(tmp_path / "run"))
    lines = output.strip().splitlines()
    assert code == 1 and len(lines) == 1, output
    assert lines[0].startswith("error: hf:Qwen/Qwen2.5-0.5B-Instruct: not in the local Hugging "
                               "Face cache, and the hub at http://127.0.0.1:")
    assert HUB_OUT_OF_REACH in lines[0] and lines[0].endswith("give its folder (hf:FOLDER)")
    assert not (tmp_path / "run").exists()
    if hub.counts:  # the probe's one connection; before, 38 s of retries, a connection each
        assert hub.connections == 1


@pytest.mark.parametrize(("task", "what", "endpoint"), [
    ("sgp-bench-svg", "could not load sgp-bench/sgp-bench split svg", closed_port),
    ("sgp-genbench-object", "could not download SGP-Object.json of SphereLab/SGP-Object",
     silent_listener),
], ids=["sgp-bench-svg-closed", "sgp-genbench-object-silent"])
def test_a_hub_dataset_the_hub_cannot_give_fails_in_one_line(
    task: str, what: str, endpoint: Endpoint, tmp_path: Path
) -> None:
    pytest.importorskip("datasets")
    code, output, hub = run_out_of_reach(endpoint, tmp_path, task, "--model", "identity",
                                         "--out", str(tmp_path / "run"))
    lines = output.strip().splitlines()
    assert code == 1 and len(lines) == 1, output
    assert lines[0].startswith(f"error: {what} from the hub (not in the local cache, and the hub at ")
    assert HUB_OUT_OF_REACH in lines[0] and lines[0].endswith("; pass --data PATH")
    if hub.counts:  # the probe's one connection; before, 24 s of retries, a connection each
        assert hub.connections == 1


def test_a_hub_id_in_the_local_cache_runs_with_the_hub_out_of_reach(
    tiny_chat_llm: Path, demo_data: Path, tmp_path: Path
) -> None:
    """The hub cache's layout (``models--<org>--<name>``, a snapshot that ``refs/main`` names)
    holding the tiny checkpoint: it runs offline, as the metrics' cached weights do."""
    repo = tmp_path / "hf" / "hub" / "models--tiny--chat"
    shutil.copytree(tiny_chat_llm, repo / "snapshots" / "0123abc")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0123abc")
    code, output, _ = run_out_of_reach(
        closed_port, tmp_path, "svgeditbench", "--data", str(demo_data), "--model", "hf:tiny/chat",
        "--max-tokens", "4", "--limit", "1", "--out", str(tmp_path / "run"))
    assert code == 0, output
    assert "Retrying" not in output
    assert (tmp_path / "run" / "results.json").exists()
