"""Command line for metric validation: ``svgeval svgauge fit``, ``svgeval correlate`` and
``svgeval audit`` (see ``docs/svgauge.md`` and ``docs/audit.md``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from svgeval.cli.errors import UserError, say, stdout_console, user_errors
from svgeval.cli.root import HELP
from svgeval.cli.run import parse_sets
from svgeval.render.isolated import Renderer
from svgeval.report.correlate import COEFFICIENTS, Correlation, Study
from svgeval.run_request import DEFAULTS

svgauge_app = typer.Typer(no_args_is_help=True, context_settings=HELP,
                          help="SVGauge tools (projection fitting).")
out = stdout_console()

if TYPE_CHECKING:
    from svgeval.metrics.model_settings import ModelSettings

ModelPaths = Annotated[
    list[str] | None,
    typer.Option("--model-path", help="Local weights for a metric, METRIC=PATH "
                 "(svgauge, svgauge_projection, svgauge_captioner, clip, dino, lpips)."),
]


def model_settings_of(model_path: list[str] | None) -> ModelSettings:
    """The metrics' settings of ``--model-path METRIC=PATH`` (repeated), precision and
    preprocessing from the environment."""
    from svgeval.metrics.model_settings import ModelSettings

    return ModelSettings.from_environment(parse_sets(model_path or [], "--model-path",
                                                     "METRIC=PATH"))


Device = Annotated[str | None, typer.Option(help="cpu, cuda or mps (default: cuda if present).")]
BatchSize = Annotated[int, typer.Option(help="Images per model batch.")]


@svgauge_app.command("fit")
def fit(
    svgs: Annotated[list[Path], typer.Option(help="Folder of .svg files (searched "
                                             "recursively); repeat for several.")],
    out_file: Annotated[Path, typer.Option("--out", help="The projection file (.npz).")],
    encoder: Annotated[str | None, typer.Option(help="Image encoder hub id or folder.")] = None,
    components: Annotated[int, typer.Option(help="PCA components kept.")] = 128,
    model_path: ModelPaths = None,
    device: Device = None,
    batch_size: BatchSize = 32,
) -> None:
    """Fit SVGauge's PCA whitening on renders of the SVGs in the folders and save it."""
    from svgeval.metrics.svgauge import fit_on_renders, load_encoder
    from svgeval.report.rating_metrics import draw

    with user_errors():
        how = model_settings_of(model_path)
        texts: dict[str, None] = {}
        for folder in svgs:
            if not folder.is_dir():
                raise UserError(f"--svgs {folder} is not a folder")
            for file in sorted(folder.rglob("*.svg")):
                texts[file.read_text(encoding="utf-8", errors="replace")] = None
        if len(texts) < 2:
            raise UserError("need at least two distinct .svg files to fit a projection")
        size = load_encoder(encoder, device=device, model_settings=how).input_size
        with Renderer() as renderer:
            renders = draw(list(texts), size, renderer)
        projection = fit_on_renders(renders, encoder=encoder, n_components=components,
                                    device=device, batch_size=batch_size, model_settings=how)
        out_file.parent.mkdir(parents=True, exist_ok=True)
        projection.save(out_file)
        say(f"fitted {len(projection.eigenvalues)} components on {len(texts)} SVGs "
            f"({projection.encoder}, {size} px) -> {out_file}", out)


def correlate(
    ratings: Annotated[Path, typer.Option(help="JSONL or CSV: prompt, reference, generated, "
                                          "generator, rating.")],
    metrics: Annotated[str, typer.Option(help="Metrics to compute: svgauge, clip, dino, "
                                         "lpips (comma-separated).")] = "",
    score_columns: Annotated[str, typer.Option(help="Columns holding metric values already "
                                               "(comma-separated).")] = "",
    out_file: Annotated[Path | None, typer.Option(
        "--out", help="JSON file for the study (default: RATINGS.correlations.json); the "
        "metric cache goes beside it.")] = None,
    alpha: Annotated[float, typer.Option(help="SVGauge weight of S_I.")] = 0.6,
    beta: Annotated[float, typer.Option(help="SVGauge weight of S_T.")] = 0.4,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples for the intervals.")] = 1000,
    model_path: ModelPaths = None,
    device: Device = None,
    batch_size: BatchSize = 32,
) -> None:
    """Correlate metrics with human ratings: instance level with bootstrap 95% intervals,
    system level over generator means, and SVGauge's alpha/beta sweep."""
    from svgeval.report.correlate import read_ratings, study
    from svgeval.report.rating_metrics import COLUMNS, compute_metrics

    with user_errors():
        how = model_settings_of(model_path)
        computed = [m.strip() for m in metrics.split(",") if m.strip()]
        given = [c.strip() for c in score_columns.split(",") if c.strip()]
        unknown = [m for m in computed if m not in COLUMNS]
        if unknown:
            raise UserError(f"--metrics {','.join(unknown)}: choose among {', '.join(COLUMNS)}")
        if not computed and not given:
            raise UserError("name metrics to compute (--metrics) or columns (--score-columns)")
        rows = read_ratings(ratings)
        missing = [c for c in given if c not in rows[0]]
        if missing:
            raise UserError(f"--score-columns {','.join(missing)}: not in {ratings}")
        target = out_file or ratings.with_suffix(".correlations.json")
        target.parent.mkdir(parents=True, exist_ok=True)
        if computed:
            with Renderer() as renderer:
                compute_metrics(rows, computed, target.with_suffix(".cache.jsonl"), renderer,
                                alpha=alpha, beta=beta, batch_size=batch_size, device=device,
                                model_settings=how, warn=say)
        columns = [*computed, *(["svgauge_si", "svgauge_st"] if "svgauge" in computed else []),
                   *given]
        result = study(rows, columns, resamples)
        target.write_text(json.dumps(result.to_json(), indent=2) + "\n", encoding="utf-8")
        _print_study(result)
        say(f"wrote {target}", out)


def _print_study(result: Study) -> None:
    def table(title: str, rows: dict[str, Correlation], with_ci: bool) -> Table:
        grid = Table(title=title)
        for header in ("metric", "n", *COEFFICIENTS):
            grid.add_column(header)
        for name, corr in rows.items():
            cells = []
            for coef in COEFFICIENTS:
                ci = corr.ci95.get(coef)
                text = f"{100 * corr.values[coef]:.1f}"
                cells.append(f"{text} [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"
                             if with_ci and ci else text)
            grid.add_row(name, str(corr.n), *cells)
        return grid

    out.print(table(f"instance level (x100, {result.n} ratings)", result.instance, True))
    out.print(table("system level: generator means (x100)", result.system, False))
    if result.sweep:
        out.print(table("SVGauge alpha/beta sweep (instance level, x100)",
                        {f"{a:.1f}/{b:.1f}": c for a, b, c in result.sweep}, False))


def audit(
    task: Annotated[str, typer.Argument(help="Task name; see `svgeval list tasks`.")],
    data: Annotated[Path | None, typer.Option(help="Local copy of the official release.")] = None,
    tier: Annotated[str, typer.Option(help="Difficulty tier (tasks with tiers).")
                    ] = DEFAULTS.tier,
    out_dir: Annotated[Path | None, typer.Option(
        "--out", help="Where the baselines' runs go (default runs/audit-TASK).")] = None,
    limit: Annotated[int | None, typer.Option(help="First N samples of each group.")] = None,
    seed: Annotated[int, typer.Option(
        help="Seed of the shuffled and flipped baselines.")] = DEFAULTS.seed,
    threshold: Annotated[float, typer.Option(help="Share of the way to the oracle that flags "
                                             "a metric.")] = 0.5,
    markdown: Annotated[Path | None, typer.Option(help="Also write the table as Markdown.")] = None,
    render_workers: Annotated[int | None, typer.Option(help="Render processes.")] = None,
) -> None:
    """Run the degenerate baselines (identity, empty, blank, shuffled, flipped) and the oracle
    on TASK and flag the metrics a degenerate answer scores well on."""
    from svgeval.audit import audit_rows, markdown_table, run_baselines
    from svgeval.run_request import RunRequest, checked
    from svgeval.tasks import get_task

    with user_errors():
        request = checked(RunRequest, task=task, data=data, tier=tier, seed=seed, limit=limit,
                                  render_workers=render_workers,
                                  out_dir=out_dir or Path("runs") / f"audit-{task}")
        results = run_baselines(
            request, lambda name, res: say(f"{name}: {res.n} samples, {res.n_valid} valid"))
        rows = audit_rows(get_task(task), results, threshold)
        text = markdown_table(task, rows)
        say(text, out)
        if markdown is not None:
            markdown.write_text(text + "\n", encoding="utf-8")
