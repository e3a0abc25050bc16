"""``svgeval.evaluate`` as researchers call it: with a function, a loaded transformers model or a
spec; from a script without a main guard, from standard input and from a Jupyter notebook."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import svgeval
from svgeval.cli import app
from svgeval.models import ModelUnavailable
from svgeval.runner import Results

REPO = Path(__file__).resolve().parents[1]


def no_edit(messages: list[dict[str, Any]]) -> str:
    """The input SVG of an SVGEditBench prompt, unchanged (what the ``identity`` model says)."""
    match = re.search(r"<svg.*?</svg>", messages[0]["content"], re.DOTALL)
    assert match is not None
    return f"```svg\n{match.group(0)}\n```"


def test_a_function_scores_as_the_identity_model_and_writes_the_clis_run(
    demo_data: Path, tmp_path: Path
) -> None:
    evaluation = svgeval.evaluate("svgeditbench", no_edit, data=demo_data,
                                  out=tmp_path / "function", limit=2, render_workers=2)
    assert isinstance(evaluation.results, Results) and evaluation.results.complete
    assert evaluation.results.model == "callable:no_edit"
    assert evaluation.run_dir == tmp_path / "function"
    code = CliRunner().invoke(app, ["run", "svgeditbench", "--data", str(demo_data), "--out",
                                    str(tmp_path / "identity"), "--limit", "2",
                                    "--model", "identity"]).exit_code
    assert code == 0
    identity = json.loads((tmp_path / "identity" / "results.json").read_text())
    assert evaluation.metrics == identity["metrics"]
    assert {f.name for f in evaluation.run_dir.iterdir()} >= {
        "config.json", "responses.jsonl", "samples.jsonl", "results.json"}
    assert len(evaluation.samples()) == 12
    rescored = CliRunner().invoke(app, ["score", str(evaluation.run_dir)])
    assert rescored.exit_code == 0, rescored.output


def test_an_async_function_and_a_failing_one(demo_data: Path, tmp_path: Path) -> None:
    async def answer(messages: list[dict[str, Any]]) -> str:
        return no_edit(messages)

    evaluation = svgeval.evaluate("svgeditbench", answer, data=demo_data, out=tmp_path / "a",
                                  limit=1, render_workers=2, name="async-no-edit")
    assert evaluation.results.n_valid == 6 and evaluation.results.model == "callable:async-no-edit"

    def broken(messages: list[dict[str, Any]]) -> str:
        raise ConnectionError("the lab server is down\nsecond line")

    failed = svgeval.evaluate("svgeditbench", broken, data=demo_data, out=tmp_path / "b",
                              limit=1, render_workers=2)
    assert failed.results.n_valid == 0
    details = {s.failure.detail for s in failed.samples() if s.failure is not None}
    assert details == {"ConnectionError: the lab server is down"}
    with pytest.raises(ModelUnavailable, match="returned int, not the answer's text"):
        svgeval.evaluate("svgeditbench", lambda messages: 3, data=demo_data,
                         out=tmp_path / "c", limit=1, render_workers=2)


def test_a_loaded_transformers_model_answers_as_its_checkpoint_does(
    tiny_chat_llm: Path, demo_data: Path, tmp_path: Path
) -> None:
    transformers = pytest.importorskip("transformers")
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny_chat_llm)
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_chat_llm)
    model.train()
    loaded = svgeval.evaluate("svgeditbench", model, processor=tokenizer, data=demo_data,
                              out=tmp_path / "loaded", limit=1, max_tokens=4, render_workers=2)
    assert model.training  # left as it was
    spec = svgeval.evaluate("svgeditbench", f"hf:{tiny_chat_llm}", data=demo_data,
                            out=tmp_path / "spec", limit=1, max_tokens=4, render_workers=2,
                            model_args={"batch_size": 3})

    def answers(run: Path) -> dict[str, str]:
        lines = (run / "responses.jsonl").read_text().splitlines()
        return {r["id"]: r["response"] for r in map(json.loads, lines)}

    assert answers(loaded.run_dir) == answers(spec.run_dir) and len(answers(spec.run_dir)) == 6
    assert loaded.results.model == f"transformers:{tiny_chat_llm}"
    assert spec.results.model_report["batch_size"] == 3
    with pytest.raises(TypeError, match="needs its tokenizer or processor"):
        svgeval.evaluate("svgeditbench", model, data=demo_data, out=tmp_path / "x")
    with pytest.raises(ValueError, match="'dtype' applies to a checkpoint svgeval loads"):
        svgeval.evaluate("svgeditbench", model, processor=tokenizer, data=demo_data,
                         out=tmp_path / "x", model_args={"dtype": "float16"})
    with pytest.raises(TypeError, match="cannot evaluate a int"):
        svgeval.evaluate("svgeditbench", 42, data=demo_data, out=tmp_path / "x")


SCRIPT = """
import svgeval
print("script body runs", flush=True)
evaluation = svgeval.evaluate(
    "svgeditbench", lambda messages: "no svg here", data={data!r}, out={out!r}, limit=1,
    render_workers=2)
print("samples", evaluation.results.n, "valid", evaluation.results.n_valid, flush=True)
"""


@pytest.mark.e2e
@pytest.mark.parametrize("how", ["script", "stdin"])
def test_a_script_without_a_main_guard_runs_once(demo_data: Path, tmp_path: Path, how: str) -> None:
    """Render workers start while the script runs; none of them runs the script again."""
    source = SCRIPT.format(data=str(demo_data), out=str(tmp_path / "run"))
    script = tmp_path / "evaluate_it.py"
    script.write_text(source)
    command = [sys.executable, str(script)] if how == "script" else [sys.executable, "-"]
    done = subprocess.run(command, input=source if how == "stdin" else None, cwd=tmp_path,
                          capture_output=True, text=True, timeout=240, check=False,
                          env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["script body runs", "samples 6 valid 0"], done.stderr


@pytest.mark.e2e
def test_a_jupyter_kernel_with_its_running_event_loop(demo_data: Path, tmp_path: Path) -> None:
    """A real IPython kernel (ipykernel, driven by jupyter_client as a notebook is) runs the
    cell; its event loop is running while the cell runs."""
    manager = pytest.importorskip("jupyter_client.manager")
    cell = textwrap.dedent(f"""
        import asyncio, svgeval
        asyncio.get_running_loop()  # the kernel's loop runs: asyncio.run would refuse here
        evaluation = svgeval.evaluate("svgeditbench", lambda messages: "no svg",
                                      data={str(demo_data)!r}, out={str(tmp_path / "run")!r},
                                      limit=1, render_workers=2)
        print(evaluation.results.n, evaluation.results.complete)
    """)
    kernel, client = manager.start_new_kernel(kernel_name="python3")
    try:
        printed: list[str] = []

        def keep(message: dict[str, Any]) -> None:
            if message["msg_type"] == "stream":
                printed.append(str(message["content"]["text"]))

        reply = client.execute_interactive(cell, output_hook=keep, timeout=240)
        assert reply["content"]["status"] == "ok", reply["content"]
    finally:
        client.stop_channels()
        kernel.shutdown_kernel(now=True)
    assert "".join(printed).split() == ["6", "True"]


def test_evaluate_records_its_precision_and_preprocessing(
        demo_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVGEVAL_PRECISION", "fp16")  # the run's own setting wins while it runs
    svgeval.evaluate("svgeditbench", no_edit, data=demo_data, out=tmp_path / "r", limit=1,
                     precision="bf16", preprocess="device")
    config = json.loads((tmp_path / "r" / "config.json").read_text())
    assert config["settings"]["precision"] == "bf16"
    assert config["settings"]["preprocess"] == "device"


def a_circle(messages: list[dict[str, Any]]) -> str:
    """An answer unlike every reference: a red circle."""
    return ('```svg\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">'
            '<circle cx="12" cy="12" r="7" fill="#d22"/></svg>\n```')


def test_two_runs_in_one_process_keep_their_own_precision_and_weights(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_dino_dir: Path) -> None:
    """Each run's ``precision`` and ``model_paths`` hold for that run alone: an fp32 run after
    a bf16 one gives the fp32 numbers bit for bit, a run given DINO's weights computes it while
    the user's ``SVGEVAL_DINO_MODEL=none`` turns it off in the next run, which gives none, and
    the process's environment is as it was."""
    monkeypatch.setenv("SVGEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("SVGEVAL_DINO_MODEL", "none")  # the user's own choice, read, not written
    monkeypatch.setenv("SVGEVAL_LPIPS_MODEL", "none")  # real VGG weights: not for this test
    monkeypatch.delenv("SVGEVAL_PRECISION", raising=False)
    before = dict(os.environ)

    def dino(name: str, **settings: Any) -> dict[str, tuple[float | None, str | None]]:
        """Each sample's DINO value, and why it was not computed."""
        evaluation = svgeval.evaluate("svgenius-img2svg", a_circle, data="builtin",
                                      out=tmp_path / name, limit=1, render_workers=1,
                                      device="cpu", **settings)
        return {sample.id: (sample.metrics.get("dino"), sample.not_computed.get("dino"))
                for sample in evaluation.samples()}

    weights = {"dino": tiny_dino_dir}
    full = dino("fp32", precision="fp32", model_paths=weights)
    low = dino("bf16", precision="bf16", model_paths=weights)
    again = dino("fp32-again", precision="fp32", model_paths=weights)
    assert all(value is not None for value, _ in full.values())
    assert low.keys() == full.keys() and all(low[key] != full[key] for key in full)
    assert again == full
    unset = dino("no-weights")
    assert unset.keys() == full.keys()
    assert all(value is None and "turned off" in str(why) for value, why in unset.values())
    assert dict(os.environ) == before


def test_a_metric_no_usable_output_could_give_is_null_not_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/models.md's ``evaluation.metrics["change_color/mse"]`` when no answer could be used:
    the paper's reading is None beside the ``_all`` reading that scores the failures."""
    monkeypatch.setenv("SVGEVAL_CACHE", str(tmp_path / "cache"))
    evaluation = svgeval.evaluate("svgeditbench", "empty", data="builtin", out=tmp_path / "e",
                                  limit=1, render_workers=1)
    assert evaluation.results.n_valid == 0
    groups = {key.split("/")[0] for key in evaluation.metrics}
    assert len(groups) == 6
    for group in groups:
        assert evaluation.metrics[f"{group}/mse"] is None
        assert evaluation.metrics[f"{group}/mse_all"] is not None


def test_without_data_offline_the_error_names_the_keyword_not_the_flag(tmp_path: Path) -> None:
    from svgeval.tasks.download import DataUnavailable

    with pytest.raises(DataUnavailable) as raised:  # the hub is off in the tests
        svgeval.evaluate("starvector-img2svg", "identity", out=tmp_path / "run", limit=1)
    assert str(raised.value).endswith("pass data=PATH") and "--data" not in str(raised.value)


@pytest.mark.parametrize(("message", "expected"), [
    ("pass --data PATH", "pass data=PATH"),
    ("pass the file with --data", "pass the file with data="),
    ("lower --max-tokens or --concurrency", "lower max_tokens= or concurrency="),
    ("give --set seed=1 or --model-arg dtype=bf16", "give options= seed=1 or model_args= dtype=bf16"),
    ("--data-dir and --database stay", "--data-dir and --database stay"),
    ("continue it with --resume", "continue it with resume=True"),
])
def test_cli_flags_in_python_terms(message: str, expected: str) -> None:
    from svgeval.api import in_python_terms

    assert in_python_terms(message) == expected
