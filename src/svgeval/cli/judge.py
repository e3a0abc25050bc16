"""Command-line options of the judge model and of text-only endpoints (see docs/judges.md).

``--judge MODEL`` takes the same model specs as ``--model`` and is built the same way
(:func:`svgeval.models.load_model`), with its own endpoint, key variable and concurrency; the
timeouts and streaming settings of the run apply to it too. ``--text-only-model`` and
``--text-only-judge`` declare an endpoint that cannot read images.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from svgeval.cli.errors import UserError

if TYPE_CHECKING:  # imported when a judge is built: `svgeval run --help` declares these flags only
    from svgeval.runner.judging import Judge

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


def build_judge(
    spec: str | None,
    *,
    base_url: str | None,
    api_key_env: str | None,
    concurrency: int,
    text_only: bool,
    timeout_s: float = 120.0,
    first_token_timeout_s: float | None = None,
    stream: bool = True,
) -> Judge | None:
    """The judge the flags describe (None without ``--judge``); one-line errors for flags that
    make no sense and for a judge that cannot be set up."""
    if concurrency < 1:
        raise UserError(f"--judge-concurrency must be at least 1, got {concurrency}")
    if spec is None:
        given = [
            flag
            for flag, value in (
                ("--judge-base-url", base_url),
                ("--judge-api-key-env", api_key_env),
                ("--text-only-judge", text_only),
            )
            if value
        ]
        if given:
            raise UserError(f"{given[0]} needs --judge MODEL")
        return None
    from svgeval.models import load_model
    from svgeval.runner.judging import Judge, judge_wording

    try:
        model = load_model(
            spec,
            base_url=base_url,
            api_key_env=api_key_env,
            concurrency=concurrency,
            timeout_s=timeout_s,
            first_token_timeout_s=first_token_timeout_s,
            stream=stream,
            accepts_images=not text_only,
        )
    except UserError as error:  # the spec's, a model kind's or a --model-arg's
        raise UserError(f"--judge: {judge_wording(str(error))}") from None
    return Judge(spec, model, concurrency)
