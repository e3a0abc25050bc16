"""Command-line options of the judge model and of text-only endpoints (see docs/judges.md).

``--judge MODEL`` takes the same model specs as ``--model`` and is built the same way
(:func:`svgeval.runner.build.judge_of`), with its own endpoint, key variable and concurrency;
the timeouts and streaming settings of the run apply to it too. ``--text-only-model`` and
``--text-only-judge`` declare an endpoint that cannot read images.
"""

from __future__ import annotations

from typing import Annotated

import typer

JudgeSpec = Annotated[
    str | None,
    typer.Option("--judge", help="Judge model for judged tasks (same specs as --model)."),
]
JudgeBaseUrl = Annotated[str | None, typer.Option(help="Endpoint of an openai-compatible judge.")]
JudgeApiKeyEnv = Annotated[str | None, typer.Option(help="Env variable with the judge's API key.")]
JudgeConcurrency = Annotated[int, typer.Option(help="Judge requests in flight.")]
TextOnlyJudge = Annotated[
    bool, typer.Option("--text-only-judge", help="The judge cannot read images.")
]
TextOnlyModel = Annotated[
    bool,
    typer.Option(
        "--text-only-model",
        help="The model cannot read images (tasks that send images then stop before any request).",
    ),
]

