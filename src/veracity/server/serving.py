"""How `veracity serve` runs the app under uvicorn: deadlines, connection cap, proxy trust."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import uvicorn
    from starlette.types import ASGIApp

RESERVED_DESCRIPTORS = 256
"""File descriptors kept free of client sockets (model files, SQLite, the listening socket)."""


@dataclass(frozen=True)
class ServeSettings:
    """Socket-level limits of the HTTP server.

    `trusted_proxies`: addresses (comma-separated IPs or networks, or ``*``) whose
    ``X-Forwarded-For`` / ``X-Forwarded-Proto`` are believed; None believes no one, so the
    rate limit is keyed on the real peer address.
    """

    header_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int = 1000
    keep_alive: int = 30
    trusted_proxies: str | None = None


def connection_cap(wanted: int) -> int:
    """`wanted`, lowered so that client sockets never use up the process's file descriptors."""
    try:
        import resource
    except ImportError:  # not on POSIX: no descriptor limit to respect
        return wanted
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(16, min(wanted, soft - RESERVED_DESCRIPTORS))


def uvicorn_config(app: ASGIApp, *, host: str, port: int, settings: ServeSettings,
                   log_level: str = "info") -> uvicorn.Config:
    """The uvicorn configuration for `app` with `settings` applied.

    Idle keep-alive connections stay open longer than common clients keep them (httpx: 5 s),
    so a client never reuses a connection the server is closing at that moment.
    """
    import uvicorn

    from veracity.server.connections import ConnectionPolicy, guarded_protocol

    policy = ConnectionPolicy(header_timeout=settings.header_timeout, body_timeout=settings.body_timeout,
                              max_connections=connection_cap(settings.max_connections))
    return uvicorn.Config(
        app, host=host, port=port, log_level=log_level, http=guarded_protocol(policy),
        timeout_keep_alive=settings.keep_alive, proxy_headers=settings.trusted_proxies is not None,
        forwarded_allow_ips=settings.trusted_proxies or "",
    )
