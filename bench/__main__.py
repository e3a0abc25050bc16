"""``python -m bench CASE [--json] [--smoke] [--data FOLDER] [--set NAME=VALUE ...]`` and
``python -m bench --list``: run one case and print its figures beside its floor, with their
ratio (a table, or JSON with ``--json``)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench import cases
from bench.measure import BenchError, Figures, Scale, Skipped, machine_line


def run_case(name: str, scale: Scale) -> Figures:
    """Case ``name`` at ``scale`` (raises :class:`Skipped` where it cannot run here)."""
    return cases.entry_point(name)(scale)


def as_json(name: str, figures: Figures | None, skipped: str | None) -> dict[str, Any]:
    """The case's figures, each with its ratio and target, as ``--json`` prints them."""
    rows = [] if figures is None else [
        {**asdict(row), "ratio": row.ratio, "target": row.target} for row in figures.rows]
    return {"case": name, "machine": machine_line(), "skipped": skipped, "figures": rows,
            "notes": [] if figures is None else figures.notes}


def print_table(name: str, figures: Figures) -> None:
    """The figures as a table: figure, floor, ratio and target."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{name} ({machine_line()})")
    for column in ("figure", "value", "floor", "ratio", "target", "the floor"):
        table.add_column(column, justify="right" if column in ("value", "floor", "ratio")
                         else "left")
    for row in figures.rows:
        floor = "" if row.floor is None else f"{row.floor:.4g} {row.unit}"
        ratio = "" if row.ratio is None else f"{row.ratio:.2f}"
        table.add_row(row.name, f"{row.value:.4g} {row.unit}", floor, ratio, row.target,
                      row.floor_name)
    console = Console(width=max(Console().width, 160))
    console.print(table)
    for line in figures.notes:
        console.print(line, highlight=False)


def options(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise BenchError(f"--set {pair}: expected NAME=VALUE")
        out[key.replace("-", "_")] = value
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("case", nargs="?", choices=cases.names(), metavar="CASE",
                        help="the case to run (--list lists them)")
    parser.add_argument("--list", action="store_true", help="list the cases, one a line")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny scale on svgeval's demo icons (seconds; for the tests)")
    parser.add_argument("--data", type=Path, help="the release the case reads")
    parser.add_argument("--set", dest="options", action="append", default=[],
                        metavar="NAME=VALUE", help="a setting of the case (see its docstring)")
    args = parser.parse_args(argv)
    if args.list:
        width = max(map(len, cases.names()))
        for name in cases.names():
            print(f"{name:{width}}  {cases.summary(name)}")
        return 0
    if args.case is None:
        parser.error("name a CASE, or --list")
    try:
        with tempfile.TemporaryDirectory(prefix="bench-") as scratch:
            scale = Scale(Path(scratch), args.smoke, args.data, options(args.options))
            figures: Figures | None = run_case(args.case, scale)
            skipped = None
    except Skipped as reason:
        figures, skipped = None, str(reason)
    except BenchError as error:
        print(f"python -m bench {args.case}: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(as_json(args.case, figures, skipped), indent=1))
    elif figures is None:
        print(f"{args.case}: skipped: {skipped}")
    else:
        print_table(args.case, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
