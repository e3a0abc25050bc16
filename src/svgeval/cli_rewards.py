"""``svgeval serve-rewards``: serve rendering rewards over HTTP (see :mod:`svgeval.rewards.server`)."""

from __future__ import annotations

from typing import Annotated

import typer

from svgeval.svg.forkserver import DEFAULT_RENDERER


def serve_rewards(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8800,
    workers: Annotated[int, typer.Option(help="Render worker processes.")] = 2,
    preset: Annotated[str, typer.Option(help="Reward preset, or by_task.")] = "by_task",
    renderer: Annotated[str, typer.Option(
        help="cairosvg (the papers'), skia or resvg.")] = DEFAULT_RENDERER,
    max_queue: Annotated[int, typer.Option(help="Items admitted before 503.")] = 8192,
    timeout_s: Annotated[float, typer.Option(help="Time limit per render.")] = 10.0,
) -> None:
    """Serve POST /rewards (batch of prompt, completion, reference, task) and GET /health."""
    import uvicorn

    from svgeval.cli_errors import user_errors
    from svgeval.rewards.scorer import RewardScorer
    from svgeval.rewards.server import create_app
    from svgeval.svg.render_fast import render_function

    with user_errors():
        draw = render_function(renderer)  # a renderer that cannot load here: one line, exit 1
    with RewardScorer(preset, workers=workers, timeout_s=timeout_s,
                      render_function=draw) as scorer:
        uvicorn.run(create_app(scorer.score, max_queue=max_queue), host=host, port=port)
