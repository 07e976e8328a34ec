"""Who may use the MCP endpoint over HTTP: the Host and Origin it answers, its bearer token, and its rate.

* DNS rebinding: the SDK's transport security checks every request's ``Host`` (loopback names with any
  port, plus the hosts the operator adds) and ``Origin`` (when a browser sends one: loopback http
  origins, plus the origins the operator adds); a foreign one is refused (421, 403).
* A bearer token, when set, must come with every request (``Authorization: Bearer`` or
  ``X-API-Key``), compared in constant time; a missing or wrong one gets 401 and counts against
  the peer's rate, so guessing is rate-limited.
* Each check a tool runs costs one unit of the server's rate limit, as a check over the HTTP API does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from veracity.server.limits import Limiter, error_response, key_matches, presented_key

TOKEN_ENV = "VERACITY_MCP_TOKEN"
"""The environment variable holding the MCP endpoint's bearer token."""
ALLOWED_HOSTS_ENV = "VERACITY_MCP_ALLOWED_HOSTS"
"""Comma-separated Host values the MCP endpoint answers besides loopback ones."""
ALLOWED_ORIGINS_ENV = "VERACITY_MCP_ALLOWED_ORIGINS"
"""Comma-separated browser origins the MCP endpoint answers besides loopback ones."""

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARD_BINDS = frozenset({"0.0.0.0", "::", ""})
"""Bind addresses that name no host a client would send."""


def listed(text: str | None) -> list[str]:
    """The entries of a comma-separated list (none for None or blank)."""
    return [entry.strip() for entry in (text or "").split(",") if entry.strip()]


def with_any_port(host: str) -> list[str]:
    """`host` as the SDK matches Host headers: as given, and with any port when it names none."""
    has_port = host.rsplit("]", 1)[-1].count(":") == 1 if host.startswith("[") else host.count(":") == 1
    return [host] if has_port else [host, f"{host}:*"]


def bind_host(host: str) -> list[str]:
    """The Host values to add for a server bound to `host`: none for loopback or every interface."""
    if host in WILDCARD_BINDS or host in LOOPBACK_NAMES or host == "::1":
        return []
    return [f"[{host}]" if ":" in host else host]


def transport_security(allowed_hosts: Iterable[str] = (), allowed_origins: Iterable[str] = ()) -> (
        TransportSecuritySettings):
    """DNS-rebinding protection: loopback hosts and origins, and those given."""
    hosts = [pattern for host in (*LOOPBACK_NAMES, *allowed_hosts) for pattern in with_any_port(host)]
    origins = [f"http://{name}" for name in LOOPBACK_NAMES] + [f"http://{name}:*" for name in LOOPBACK_NAMES]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=list(dict.fromkeys(hosts)),
                                     allowed_origins=[*origins, *allowed_origins])


def peer_of(request: object | None) -> str:
    """The client's address of an HTTP request (as uvicorn gives it, a trusted proxy's client included)."""
    if isinstance(request, Request) and request.client is not None:
        return request.client.host
    return "unknown"


@dataclass(frozen=True)
class CheckAdmission:
    """Charges each check a tool runs to its client's bucket of `limiter`: the token's, else the peer address's."""

    limiter: Limiter
    tokened: bool

    def __call__(self, request: object | None) -> str | None:
        """Why the check is refused now (over its client's rate), or None: it is charged and may run."""
        client = "mcp-token" if self.tokened else f"peer:{peer_of(request)}"
        wait = self.limiter.retry_after(client, 1)
        return None if wait is None else f"rate limit exceeded; retry in {wait} s"


class BearerToken:
    """ASGI middleware: with a `token`, a request without it (or with another) gets 401, charged to its peer's rate.

    A peer over its rate gets 429 with ``Retry-After`` instead, before the token is looked at again.
    """

    def __init__(self, app: ASGIApp, *, token: str | None, limiter: Limiter) -> None:
        self.app = app
        self.token = token
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on when it carries the token (or none is needed); else answer it here."""
        if scope["type"] != "http" or self.token is None:
            await self.app(scope, receive, send)
            return
        if key_matches(presented_key(Headers(scope=scope)), self.token):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        wait = self.limiter.retry_after(f"peer:{client[0] if client else 'unknown'}", 1)
        if wait is not None:
            refused = error_response(429, f"rate limit exceeded; retry in {wait} s", **{"Retry-After": str(wait)})
        else:
            refused = error_response(401, "missing or wrong MCP token (send Authorization: Bearer <token>)",
                                     **{"WWW-Authenticate": "Bearer"})
        await refused(scope, receive, send)
