"""``svgeval serve-rewards``: serve rendering rewards over HTTP (see :mod:`svgeval.rewards.server`)."""

from __future__ import annotations

from typing import Annotated

import typer

from svgeval.cli.errors import UserError, user_errors
from svgeval.render.forkserver import DEFAULT_RENDERER

MIB = 1024 * 1024


def serve_rewards(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8800,
    workers: Annotated[int, typer.Option(help="Render worker processes.")] = 2,
    preset: Annotated[str, typer.Option(help="Reward preset, or by_task.")] = "by_task",
    renderer: Annotated[str, typer.Option(
        help="cairosvg (the papers'), skia or resvg.")] = DEFAULT_RENDERER,
    max_queue: Annotated[int, typer.Option(help="Items admitted before 503.")] = 8192,
    max_body_mb: Annotated[float, typer.Option(
        help="Largest request body in MiB; a larger one gets 413 before it is read.")] = 64.0,
    reference_cache_mb: Annotated[float, typer.Option(
        help="Memory for reference renders kept between requests, in MiB.")] = 64.0,
    timeout_s: Annotated[float, typer.Option(help="Time limit per render.")] = 10.0,
) -> None:
    """Serve POST /rewards (batch of prompt, completion, reference, task) and GET /health."""
    with user_errors():
        try:
            import uvicorn

            from svgeval.rewards.server import ServerSettings, create_app
        except ImportError as error:
            raise UserError(f'serve-rewards needs FastAPI and uvicorn ({error}); install them: '
                            'pip install -e ".[rewards]"') from None
        from svgeval.render.backends import render_function
        from svgeval.rewards.scorer import RewardScorer

        settings = ServerSettings(max_queue=max_queue, max_body_bytes=int(max_body_mb * MIB))
        draw = render_function(renderer)  # a renderer that cannot load here: one line, exit 1
        # a preset whose metrics cannot run here: RewardUnavailable, one line, exit 1
        scorer = RewardScorer(preset, workers=workers, timeout_s=timeout_s,
                              render_function=draw, cache_bytes=int(reference_cache_mb * MIB))
    with scorer:
        uvicorn.run(create_app(scorer, settings), host=host, port=port)
