"""Connection discipline for uvicorn: read deadlines for headers and bodies, and a connection cap.

uvicorn's HTTP/1.1 protocol waits for a client's headers and body for as long as the socket
stays open, and accepts sockets until the process runs out of file descriptors, so a few
hundred slow clients can starve everyone (``/healthz`` included). `GuardedH11Protocol` is an
h11 protocol that

* closes a connection whose request headers are not complete `header_timeout` seconds after
  the connection opened (or after the first byte of a later request on a kept-alive
  connection), and one whose body is not complete `body_timeout` seconds after its headers,
  answering 408 when no response has started;
* holds at most `max_connections` sockets: a new connection past the cap closes the oldest
  connection that is only waiting on its client (partial request, or idle keep-alive), never
  one whose request is being served.

`GuardedConfig` is the uvicorn configuration that applies it; with several worker processes each
applies it to its own connections.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

_TIMEOUT_BODY = b'{"error": "request not received in time", "status": 408}'
TIMEOUT_RESPONSE = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
                    b"content-length: " + str(len(_TIMEOUT_BODY)).encode() + b"\r\n\r\n" + _TIMEOUT_BODY)
"""What a connection gets when its request does not arrive in time (written raw: h11 is mid-request)."""


@dataclass
class ConnectionPolicy:
    """The deadlines and the cap one server applies, and the connections it currently holds."""

    header_timeout: float
    body_timeout: float
    max_connections: int
    open: dict[H11Protocol, None] = field(default_factory=dict)
    """Connections in the order they opened (a dict as an ordered set)."""

    def evict_for(self, newcomer: H11Protocol) -> None:
        """Past the cap, close the oldest connections that only wait on their clients."""
        excess = len(self.open) - self.max_connections
        if excess <= 0:
            return
        for connection in list(self.open):
            if excess <= 0:
                break
            if connection is not newcomer and _waiting_on_client(connection):
                del self.open[connection]
                connection.transport.close()
                excess -= 1


def _waiting_on_client(connection: H11Protocol) -> bool:
    state = connection.conn.their_state
    return state is h11.SEND_BODY or (state is h11.IDLE and (connection.cycle is None
                                                             or connection.cycle.response_complete))


class GuardedConfig(uvicorn.Config):
    """uvicorn's configuration with `policy` applied to every connection (`GuardedH11Protocol`).

    It pickles, policy included, so uvicorn can hand it to worker processes: each worker then
    holds its own copy of the policy, and so its own table of connections and its own cap.
    """

    def __init__(self, app: Any, *, policy: ConnectionPolicy, **settings: Any) -> None:
        """`app` and `settings` as `uvicorn.Config` takes them (``http`` is set here)."""
        super().__init__(app, http=GuardedH11Protocol, **settings)
        self.connection_policy = policy


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with read deadlines and a share of the connection cap (its `GuardedConfig`'s policy)."""

    _deadline: asyncio.TimerHandle | None = None
    _phase: object = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """As `H11Protocol`; the config must be a `GuardedConfig`."""
        super().__init__(*args, **kwargs)
        if not isinstance(self.config, GuardedConfig):
            raise TypeError("GuardedH11Protocol needs a GuardedConfig")
        self.policy = self.config.connection_policy

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Count the connection against the cap (closing the oldest idle ones past it) and start its header deadline."""
        super().connection_made(transport)
        self.policy.open[self] = None
        self.policy.evict_for(self)
        self._arm(h11.IDLE, self.policy.header_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the connection and its deadline."""
        self.policy.open.pop(self, None)
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Move the deadline on with the request: the body's deadline once headers are in, none while serving."""
        super().data_received(data)
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            self._arm(state, self.policy.body_timeout)
        elif state is h11.IDLE and not self.transport.is_closing():
            self._arm(state, self.policy.header_timeout)
        else:
            self._disarm()

    def _arm(self, phase: object, seconds: float) -> None:
        if self._phase is phase and self._deadline is not None:
            return  # a deadline runs from the start of its phase, not from the last byte
        self._disarm()
        self._phase = phase
        self._deadline = self.loop.call_later(seconds, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline, self._phase = None, None

    def _expire(self) -> None:
        phase, self._deadline, self._phase = self._phase, None, None
        if self.transport.is_closing() or self.conn.their_state is not phase:
            return
        if phase is h11.IDLE or self.cycle is None or not self.cycle.response_started:
            self.transport.write(TIMEOUT_RESPONSE)
        self.transport.close()
