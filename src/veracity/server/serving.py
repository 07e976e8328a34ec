"""How `veracity serve` runs the app under uvicorn: deadlines, connection cap, proxy trust, workers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from veracity.cores import usable_cores

if TYPE_CHECKING:
    from veracity.server.connections import GuardedConfig

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


def default_workers() -> int:
    """`veracity serve`'s worker processes by default: one per usable core."""
    return usable_cores()


def uvicorn_config(app: Any, *, host: str, port: int, settings: ServeSettings, log_level: str = "info",
                   workers: int = 1) -> GuardedConfig:
    """The uvicorn configuration for `app` with `settings` applied.

    `app` is the ASGI app, or with several `workers` a picklable factory that builds it in each
    worker process (`veracity.server.workers.AppFactory`). Idle keep-alive connections stay open
    longer than common clients keep them (httpx: 5 s), so a client never reuses a connection the
    server is closing at that moment. The connection cap holds per process.
    """
    from veracity.server.connections import ConnectionPolicy, GuardedConfig

    policy = ConnectionPolicy(header_timeout=settings.header_timeout, body_timeout=settings.body_timeout,
                              max_connections=connection_cap(settings.max_connections))
    return GuardedConfig(
        app, policy=policy, host=host, port=port, log_level=log_level, workers=workers, factory=workers > 1,
        timeout_keep_alive=settings.keep_alive, proxy_headers=settings.trusted_proxies is not None,
        forwarded_allow_ips=settings.trusted_proxies or "",
    )
