"""The in-process kinds where their packages are missing: one line, torch never needed to list
or parse them."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

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


def test_hf_without_torch_says_what_to_install(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", MISSING_TORCH, f"hf:{tmp_path}"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (f"hf:{tmp_path} needs torch and transformers (torch is "
                                   "missing): pip install 'svgeval[models]'")
