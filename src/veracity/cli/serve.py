"""Command-line interface: `veracity serve`, the HTTP app under uvicorn."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from veracity.cli.settings import settings_options
from veracity.evidence.capabilities import DEFAULT_SEARCHES
from veracity.server.serving import ServeSettings, default_workers

SERVE_EPILOG = """\b
Routes: POST /factcheck/invoke, /factcheck/batch, /factcheck/stream (server-sent
events), GET /factcheck/input_schema, /factcheck/output_schema, POST /analyze,
GET /healthz; interactive docs at /docs. /mcp serves the same checks as Model
Context Protocol tools (streamable HTTP; see `veracity mcp --help`).
\b
/mcp needs its token (--mcp-token, else VERACITY_API_KEY when set) as
Authorization: Bearer, and answers only Host and Origin headers naming loopback
addresses, the address it is bound to, and those listed in --mcp-allowed-hosts
and --mcp-allowed-origins (DNS rebinding protection).
\b
With VERACITY_API_KEY set, the routes that run checks or a model need the key
(X-API-Key or Authorization: Bearer); the page, /healthz, the docs and the two
schemas stay public (they hold no data; the page asks for the key).
\b
The rate limit counts checks (a batch of 8 costs 8) per client: the API key when
one is set, else the peer address. X-Forwarded-For is ignored unless the proxy
sending it is listed in --trusted-proxies.
\b
With --workers N the server runs N processes on one socket, each with its own
models (memory grows with N). The rate limit is shared by all of them;
--max-connections and the timeouts hold per worker; a --checkpoint file is
shared, so a check resumes on any worker. Ctrl-C or SIGTERM stops them all,
each finishing the requests it is serving.
\b
Environment: VERACITY_API_KEY, VERACITY_RATE_LIMIT (default 60/minute),
VERACITY_MAX_BODY_BYTES (default 1000000), VERACITY_TRUSTED_PROXIES,
VERACITY_MCP_TOKEN, VERACITY_MCP_ALLOWED_HOSTS, VERACITY_MCP_ALLOWED_ORIGINS, and
the keys `veracity check` reads."""


@click.command(epilog=SERVE_EPILOG)
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on (0.0.0.0: all).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=default_workers(), show_default=True,
              help="Worker processes, each with its own models and judge; the default is one per usable CPU core "
                   "(the cores the process may use, capped by a container's CPU quota).")
@click.option("--rate-limit", default=None, metavar="N/UNIT", help="Per-client limit, e.g. 60/minute.")
@click.option("--checkpoint", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Save every check's steps in this SQLite file; a request with the same text and thread_id "
                   "resumes a check cut off by a restart.")
@click.option("--trusted-proxies", envvar="VERACITY_TRUSTED_PROXIES", default=None, metavar="ADDRESSES",
              help="Comma-separated proxy IPs or networks (or '*') whose X-Forwarded-For is believed. "
                   "Default: none, the peer address is the client.")
@click.option("--header-timeout", type=click.FloatRange(min=0.1), default=ServeSettings.header_timeout,
              show_default=True, metavar="SECONDS", help="Close a connection whose request headers take longer.")
@click.option("--body-timeout", type=click.FloatRange(min=0.1), default=ServeSettings.body_timeout,
              show_default=True, metavar="SECONDS", help="Close a connection whose request body takes longer.")
@click.option("--max-connections", type=click.IntRange(min=1), default=ServeSettings.max_connections,
              show_default=True, help="Open sockets at most (lowered to fit the file-descriptor limit); past it "
                                      "the oldest connection still waiting on its client is closed.")
@click.option("--mcp-token", envvar="VERACITY_MCP_TOKEN", default=None, metavar="TOKEN",
              help="Bearer token /mcp requires (prefer the environment variable: a command line is visible to "
                   "other users). Default: the API key (VERACITY_API_KEY) when set, else none.")
@click.option("--mcp-allowed-hosts", envvar="VERACITY_MCP_ALLOWED_HOSTS", default=None, metavar="HOSTS",
              help="Comma-separated Host headers /mcp answers besides loopback names and the address bound (HOST, "
                   "HOST:PORT or HOST:*), e.g. the name clients use for a server bound to 0.0.0.0.")
@click.option("--mcp-allowed-origins", envvar="VERACITY_MCP_ALLOWED_ORIGINS", default=None, metavar="ORIGINS",
              help="Comma-separated browser origins /mcp answers besides loopback ones, e.g. https://app.example.com.")
@settings_options("serve", searches=DEFAULT_SEARCHES, notes={
    "model": "It also answers the queries of /analyze.",
    "search": "For requests without a source text; a request with a source_text that also names search web or "
              "kb is refused (422).",
})
def serve_command(host: str, port: int, workers: int, rate_limit: str | None, checkpoint: Path | None,
                  trusted_proxies: str | None, header_timeout: float, body_timeout: float, max_connections: int,
                  mcp_token: str | None, mcp_allowed_hosts: str | None, mcp_allowed_origins: str | None,
                  settings: dict[str, Any]) -> None:
    """Serve the fact-check graph over HTTP (FastAPI under uvicorn)."""
    from veracity.server.limits import parse_rate
    from veracity.server.mcp_security import bind_host, listed

    rate = rate_limit or os.environ.get("VERACITY_RATE_LIMIT")
    if rate:
        try:
            parse_rate(rate)
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--rate-limit") from error
    serving = ServeSettings(header_timeout=header_timeout, body_timeout=body_timeout,
                            max_connections=max_connections, trusted_proxies=trusted_proxies or None)
    mcp = {"mcp_token": mcp_token, "mcp_allowed_origins": mcp_allowed_origins,
           "mcp_allowed_hosts": ",".join([*bind_host(host), *listed(mcp_allowed_hosts)])}
    options = {"rate_limit": rate_limit, "checkpoint": checkpoint,
               **{name: value for name, value in mcp.items() if value}, **settings}
    if workers == 1:
        import uvicorn

        from veracity.errors import VeracityError
        from veracity.server.app import create_app
        from veracity.server.fatal_signals import log_fatal_signals
        from veracity.server.serving import uvicorn_config

        log_fatal_signals()
        try:
            app = create_app(**options)
        except VeracityError as error:  # a setting the app refuses, said as the workers say it
            raise click.ClickException(f"the app cannot start: {type(error).__name__}: {error}") from error
        click.echo(f"veracity serving on http://{host}:{port} (docs: http://{host}:{port}/docs)", err=True)
        uvicorn.Server(uvicorn_config(app, host=host, port=port, settings=serving)).run()
        return
    from veracity.server.workers import serve_workers

    click.echo(f"veracity serving on http://{host}:{port} with {workers} workers (docs: http://{host}:{port}/docs)",
               err=True)
    if not serve_workers(options, host=host, port=port, settings=serving, workers=workers):
        raise click.ClickException("the workers could not start the app; the reason is logged above")
