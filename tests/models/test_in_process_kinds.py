"""The in-process kinds where their packages are missing: one line, torch never needed to list
or parse them."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

MISSING_TORCH = textwrap.dedent("""
    import sys

    class NoTorch:  # an environment without the models extra
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("torch", "transformers"):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    sys.meta_path.insert(0, NoTorch())
    from svgeval.models import ModelUnavailable, load_model, model_spec_forms

    assert "hf:<hub id or folder>" in model_spec_forms()
    try:
        load_model(sys.argv[1])
    except ModelUnavailable as error:
        print(error)
""")


@pytest.mark.e2e  # a fresh interpreter
def test_hf_without_torch_says_what_to_install(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", MISSING_TORCH, f"hf:{tmp_path}"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (f"hf:{tmp_path} needs torch and transformers (torch is "
                                   "missing): pip install 'svgeval[models]'")


def test_a_cached_hub_id_is_given_as_its_cache_folder_when_the_hub_is_out_of_reach(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Offline, a checkpoint the cache holds is handed on as its snapshot folder, so a process
    it starts (vLLM's workers) needs no offline variable of ours; one it lacks is one line."""
    constants = pytest.importorskip("huggingface_hub.constants")
    from svgeval.models import ModelUnavailable, in_process

    snapshot = tmp_path / "models--tiny--chat" / "snapshots" / "0123abc"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}")
    (tmp_path / "models--tiny--chat" / "refs").mkdir()
    (tmp_path / "models--tiny--chat" / "refs" / "main").write_text("0123abc")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    before = dict(os.environ)
    monkeypatch.setattr(in_process, "check_hub", lambda: "the hub did not answer")
    assert in_process.checkpoint_source("vllm:tiny/chat", "tiny/chat") == str(snapshot)
    with pytest.raises(ModelUnavailable, match="not in the local Hugging Face cache, and the hub"):
        in_process.checkpoint_source("vllm:tiny/other", "tiny/other")
    monkeypatch.setattr(in_process, "check_hub", lambda: None)
    assert in_process.checkpoint_source("vllm:tiny/chat", "tiny/chat") == "tiny/chat"
    assert dict(os.environ) == before
