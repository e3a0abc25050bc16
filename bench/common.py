"""What every benchmark script shares: the command line for the data folder and the machine line."""

from __future__ import annotations

import argparse
import os
import platform
from pathlib import Path

SHARED_SVGEDITBENCH = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "svgeditbench"


def svgeditbench_arguments(description: str | None) -> argparse.Namespace:
    """``--data`` (the SVGEditBench release, ``../shared/data/svgeditbench`` by default); prints
    the machine it runs on."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", type=Path, default=SHARED_SVGEDITBENCH)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count() or 1} cores, "
          f"Python {platform.python_version()}")
    return args
