"""The documentation site: every suite has its page, and the CLI reference names every command
and every option of ``svgeval``.

The reference is generated when the site is built, by the MkDocs hook that ``mkdocs.yml`` names
(``docs/hooks/cli_reference.py``); here the hook is loaded through MkDocs' own configuration, as
``mkdocs build`` loads it, and run on the page that holds the reference. The command tree it
must cover is walked here from ``typer.main.get_command(app)``, each lazily imported command
loaded as running it would load it. The reference's tests skip without the ``docs`` extra.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.core import TyperGroup

from svgeval.cli import app

REPO = Path(__file__).resolve().parents[1]
CLI_PAGE = REPO / "docs" / "reference" / "cli.md"


def commands(command: Any, ctx: typer.Context, path: str) -> Iterator[tuple[str, Any]]:
    """``(command path, click command)`` for ``command`` and everything below it."""
    yield path, command
    if not isinstance(command, TyperGroup):
        return
    for name in command.list_commands(ctx):
        command.resolve_command(ctx, [name])
        child = command.get_command(ctx, name)
        yield from commands(child, typer.Context(child, info_name=name, parent=ctx),
                            f"{path} {name}")


def test_every_suite_has_its_page_in_the_site_and_the_readme() -> None:
    """A suite's page is ``docs/suites/<its package>.md``, listed in the site's navigation and
    linked from the README's table of suites."""
    packages = {point.value.rsplit(".", 1)[-1]
                for point in entry_points(group="svgeval.tasks") if point.dist
                and point.dist.name == "svgeval"}
    nav = (REPO / "mkdocs.yml").read_text()
    readme = (REPO / "README.md").read_text()
    assert len(packages) >= 14
    for package in sorted(packages):
        page = f"suites/{package}.md"
        assert (REPO / "docs" / page).is_file(), page
        assert f": {page}\n" in nav, f"mkdocs.yml's nav lacks {page}"
        assert f"](docs/{page})" in readme, f"README.md's table lacks {page}"


@pytest.fixture(scope="module")
def reference() -> str:
    mkdocs_config = pytest.importorskip("mkdocs.config")
    pytest.importorskip("material")
    config = mkdocs_config.load_config(str(REPO / "mkdocs.yml"))
    hooks = list(config["hooks"].values())
    assert len(hooks) == 1, config["hooks"]
    page = CLI_PAGE.read_text()
    generated = hooks[0].on_page_markdown(page, page=None, config=config, files=None)
    assert generated != page, "docs/reference/cli.md lacks the hook's placeholder"
    return str(generated)


def test_the_cli_reference_names_every_command(reference: str) -> None:
    root = typer.main.get_command(app)
    headings = set(re.findall(r"^#+ `([^`]+)`$", reference, re.MULTILINE))
    paths = [path for path, _ in commands(root, typer.Context(root, info_name="svgeval"),
                                          "svgeval")]
    assert len(paths) > 20  # the suites' groups were found too
    assert [path for path in paths if path not in headings] == []


def test_the_cli_reference_names_every_option(reference: str) -> None:
    root = typer.main.get_command(app)
    sections = re.split(r"^#+ `([^`]+)`$", reference, flags=re.MULTILINE)
    text_of = dict(zip(sections[1::2], sections[2::2]))
    missing = []
    for path, command in commands(root, typer.Context(root, info_name="svgeval"), "svgeval"):
        for param in command.params:
            if param.param_type_name != "option" or getattr(param, "hidden", False):
                continue
            missing += [f"{path} {flag}" for flag in [*param.opts, *param.secondary_opts]
                        if not re.search(rf"`[^`]*{re.escape(flag)}(?![\w-])", text_of[path])]
    assert missing == []
