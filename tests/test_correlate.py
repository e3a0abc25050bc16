"""``svgeval correlate``: coefficients equal scipy's at instance and system level, the sweep's
endpoints are S_I and S_T alone, and metrics named with --metrics are computed and cached."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from support.tiny_svgauge_models import tiny_captioner_dir, tiny_projection, tiny_siglip_dir
from typer.testing import CliRunner

from svgeval.cli import app
from svgeval.report.correlate import instance_correlation, weight_sweep

__all__ = ["tiny_captioner_dir", "tiny_projection", "tiny_siglip_dir"]
cli = CliRunner()
GENERATORS = ["gpt", "llama", "mistral", "gemma"]


def synthetic_rows(n: int = 60, seed: int = 0) -> list[dict[str, object]]:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        generator = GENERATORS[i % len(GENERATORS)]
        rating = float(rng.integers(1, 6))
        s_i, s_t = rating / 5 + rng.normal(0, 0.3), rating / 5 + rng.normal(0, 0.5)
        rows.append({"prompt": f"a red circle {i}", "reference": "<svg>\n</svg>",
                     "generated": '<svg a="1,2">\n</svg>',
                     "generator": generator, "rating": rating, "svgauge_si": s_i,
                     "svgauge_st": s_t, "clip": float(rng.normal()) + rating / 10})
    return rows


def scipy_coefficients(x: list[float], y: list[float]) -> list[float]:
    return [stats.spearmanr(x, y).statistic, stats.kendalltau(x, y).statistic,
            stats.pearsonr(x, y).statistic]


def test_correlate_reproduces_scipy_at_instance_and_system_level(tmp_path: Path) -> None:
    rows = synthetic_rows()
    ratings = tmp_path / "ratings.csv"
    with ratings.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    result = cli.invoke(app, ["correlate", "--ratings", str(ratings), "--score-columns",
                              "clip,svgauge_si", "--resamples", "200"])
    assert result.exit_code == 0, result.output
    assert "system level" in result.output and "sweep" in result.output
    study = json.loads((tmp_path / "ratings.correlations.json").read_text())
    human = [float(r["rating"]) for r in rows]  # type: ignore[arg-type]
    for name in ("clip", "svgauge_si"):
        metric = [float(r[name]) for r in rows]  # type: ignore[arg-type]
        got = study["instance"][name]
        assert [got["spearman"], got["kendall"], got["pearson"]] == pytest.approx(
            scipy_coefficients(metric, human))
        low, high = got["ci95"]["pearson"]
        assert low < got["pearson"] < high
        means = [(np.mean([m for m, r in zip(metric, rows) if r["generator"] == g]),
                  np.mean([h for h, r in zip(human, rows) if r["generator"] == g]))
                 for g in sorted(GENERATORS)]
        system = study["system"][name]
        assert system["n"] == 4
        assert [system["spearman"], system["kendall"], system["pearson"]] == pytest.approx(
            scipy_coefficients([m for m, _ in means], [h for _, h in means]))
    assert [s["alpha"] for s in study["sweep"]] == pytest.approx(np.linspace(1, 0, 11))


def test_sweep_endpoints_equal_s_i_and_s_t_alone() -> None:
    rows = synthetic_rows(seed=2)
    human = [float(r["rating"]) for r in rows]  # type: ignore[arg-type]
    s_i = [float(r["svgauge_si"]) for r in rows]  # type: ignore[arg-type]
    s_t = [float(r["svgauge_st"]) for r in rows]  # type: ignore[arg-type]
    sweep = weight_sweep(s_i, s_t, human)
    assert (sweep[0][0], sweep[0][1], sweep[-1][0], sweep[-1][1]) == (1.0, 0.0, 0.0, 1.0)
    assert sweep[0][2].values == pytest.approx(instance_correlation(s_i, human, 0).values)
    assert sweep[-1][2].values == pytest.approx(instance_correlation(s_t, human, 0).values)
    middle = [0.6 * a + 0.4 * b for a, b in zip(s_i, s_t)]
    assert sweep[4][2].values == pytest.approx(instance_correlation(middle, human, 0).values)


def test_bad_ratings_files_stop_with_one_line(tmp_path: Path) -> None:
    ratings = tmp_path / "r.jsonl"
    ratings.write_text(json.dumps({"prompt": "a", "rating": 3}) + "\n")
    result = cli.invoke(app, ["correlate", "--ratings", str(ratings), "--score-columns", "x"])
    assert result.exit_code == 1 and "lacks reference, generated, generator" in result.output
    result = cli.invoke(app, ["correlate", "--ratings", str(ratings), "--metrics", "fid"])
    assert result.exit_code == 1 and "choose among svgauge" in result.output


SQUARE = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
          '<rect x="{x}" y="2" width="5" height="5" fill="{fill}"/></svg>')


def test_svgauge_is_computed_with_tiny_models_and_cached(
    tmp_path: Path, tiny_siglip_dir: Path, tiny_captioner_dir: Path, tiny_projection: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for metric in ("SVGAUGE", "SVGAUGE_PROJECTION", "SVGAUGE_CAPTIONER"):
        monkeypatch.setenv(f"SVGEVAL_{metric}_MODEL", "")  # restored after the CLI sets them
    rows = [{"prompt": f"a {c} square", "reference": SQUARE.format(x=1, fill=c),
             "generated": SQUARE.format(x=1 + i % 3, fill=c if i % 2 else "blue"),
             "generator": GENERATORS[i % 2], "rating": 1 + i % 5}
            for i, c in enumerate(["red", "green", "black", "orange", "purple", "gray"])]
    ratings = tmp_path / "ratings.jsonl"
    ratings.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["correlate", "--ratings", str(ratings), "--metrics", "svgauge", "--device", "cpu",
            "--resamples", "50", "--out", str(tmp_path / "study.json"),
            "--model-path", f"svgauge={tiny_siglip_dir}",
            "--model-path", f"svgauge_projection={tiny_projection}",
            "--model-path", f"svgauge_captioner={tiny_captioner_dir}"]
    first = cli.invoke(app, args)
    assert first.exit_code == 0, first.output
    cache = tmp_path / "study.cache.jsonl"
    assert len(cache.read_text().splitlines()) == len(rows)
    study = json.loads((tmp_path / "study.json").read_text())
    assert study["instance"]["svgauge"]["n"] == len(rows) and len(study["sweep"]) == 11
    assert cli.invoke(app, args).exit_code == 0
    assert len(cache.read_text().splitlines()) == len(rows)  # nothing recomputed
