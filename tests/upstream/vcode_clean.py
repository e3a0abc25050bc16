"""The SVG clean-up of VCode's released image-to-SVG step on the tests' replies.

Runs ``clean_svg_output`` of CSU-JPG/VCode ``img2svg2render/img2svg.py`` at ``296e42a``,
read from its source with ``ast`` and run unmodified (the module imports the OpenAI client at
its top, which the clean-up never reaches), on ``support.vcode_data.CLEAN_REPLIES``, and prints
``RELEASED_CLEAN`` of ``tests/tasks/test_vcode.py`` (reply -> the SVG kept, ``None`` when the
release keeps none). ``vcode.py`` beside it scores VCode's stored results (another commit).

    PYTHONPATH=tests python -m upstream.vcode_clean [--source GIT_REPO | --checkout DIR]
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

from support.vcode_data import CLEAN_REPLIES

from upstream import checkout

RELEASE = checkout.Release("CSU-JPG/VCode", "296e42ae75dc4361d5b3b5cb534efa0ecd026cd4")


def clean_svg_output(path: Path) -> Any:
    """The release's ``clean_svg_output``, compiled from the file at ``path`` as written."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    chosen = [node for node in tree.body
              if isinstance(node, ast.FunctionDef) and node.name == "clean_svg_output"]
    namespace: dict[str, Any] = {"re": re}
    exec(compile(ast.Module(chosen, type_ignores=[]), str(path), "exec"), namespace)  # noqa: S102
    return namespace["clean_svg_output"]


def main() -> None:
    root = checkout.from_command_line(RELEASE, __doc__)
    clean = clean_svg_output(root / "img2svg2render" / "img2svg.py")
    print(json.dumps({"RELEASED_CLEAN": {reply: clean(reply) for reply in CLEAN_REPLIES}},
                     indent=1))


if __name__ == "__main__":
    main()
