"""Command-line interface: `veracity serve`, the HTTP app under uvicorn."""

from __future__ import annotations

from pathlib import Path

import click

SERVE_EPILOG = """\b
Routes: POST /factcheck/invoke, /factcheck/batch, /factcheck/stream (server-sent
events), GET /factcheck/input_schema, /factcheck/output_schema, POST /analyze,
GET /healthz; interactive docs at /docs.
\b
Environment: VERACITY_API_KEY (require X-API-Key or Authorization: Bearer),
VERACITY_RATE_LIMIT (per client, default 60/minute), VERACITY_MAX_BODY_BYTES
(default 1000000), and the keys `veracity check` reads."""


@click.command(epilog=SERVE_EPILOG)
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on (0.0.0.0: all).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--model", "-m", default=None, metavar="PROVIDER:MODEL",
              help="Chat model for checks and /analyze; 'offline' for the local judge. Default: as `veracity check`.")
@click.option("--search", "-s", type=click.Choice(["auto", "web", "kb"]), default="auto", show_default=True,
              help="Default evidence for requests without a source text.")
@click.option("--rate-limit", default=None, metavar="N/UNIT", help="Per-client limit, e.g. 60/minute.")
@click.option("--checkpoint", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Save every check's steps in this SQLite file; a request with the same text and thread_id "
                   "resumes a check cut off by a restart.")
def serve_command(host: str, port: int, model: str | None, search: str, rate_limit: str | None,
                  checkpoint: Path | None) -> None:
    """Serve the fact-check graph over HTTP (FastAPI under uvicorn)."""
    import uvicorn

    from veracity.server.app import create_app

    try:
        app = create_app(model=model, search=search, rate_limit=rate_limit, checkpoint=checkpoint)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--rate-limit") from error
    click.echo(f"veracity serving on http://{host}:{port} (docs: http://{host}:{port}/docs)", err=True)
    # Idle keep-alive connections stay open longer than common clients keep them (httpx: 5 s),
    # so a client never reuses a connection the server is closing at that moment.
    uvicorn.run(app, host=host, port=port, log_level="info", timeout_keep_alive=30)
