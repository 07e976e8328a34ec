"""The HTTP app under a real uvicorn server, configured exactly as `veracity serve` configures it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from veracity.server.serving import ServeSettings, uvicorn_config


@contextmanager
def serving(app, settings: ServeSettings | None = None) -> Iterator[str]:
    """Run `app` as `veracity serve` does, on 127.0.0.1 (a free port) in a thread; yield its base URL."""
    config = uvicorn_config(app, host="127.0.0.1", port=0, settings=settings or ServeSettings(), log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
