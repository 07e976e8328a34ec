"""Run a coroutine to completion from synchronous code, even when an event loop is already running.

Every synchronous call from one thread runs on the same event loop, kept for the thread's life.
A fresh loop per call (`asyncio.run`) would break clients that keep connections open across
calls: LangChain's OpenAI client shares one pooled HTTP client per endpoint in the process, and
a kept-alive connection opened on a closed loop fails the next check's first request with
"Event loop is closed" (llama.cpp's and vLLM's servers keep connections alive).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextvars
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_local = threading.local()
_runners: list[asyncio.Runner] = []
_runners_lock = threading.Lock()
_worker: concurrent.futures.ThreadPoolExecutor | None = None


def _runner() -> asyncio.Runner:
    """This thread's runner (and loop), created on first use and closed at exit."""
    runner: asyncio.Runner | None = getattr(_local, "runner", None)
    if runner is None:
        runner = _local.runner = asyncio.Runner()
        with _runners_lock:
            _runners.append(runner)
    return runner


def _run_here(coroutine: Coroutine[Any, Any, T], context: contextvars.Context) -> T:
    return _runner().run(coroutine, context=context)


_WORKER_NAME = "veracity-loop"


def run_blocking(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` on this thread's loop, or on a worker thread's when a loop is already running here.

    A running loop (Jupyter, an async caller of the synchronous API) cannot be blocked on, so the
    coroutine goes to one long-lived worker thread with its own loop; a call made from inside
    that worker's loop gets a thread of its own instead of waiting on itself. The coroutine
    always sees a copy of the caller's context variables (tracing callbacks, for instance).
    """
    global _worker
    context = contextvars.copy_context()
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_here(coroutine, context)
    if threading.current_thread().name.startswith(_WORKER_NAME):
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(context.run, asyncio.run, coroutine).result()
    with _runners_lock:
        if _worker is None:
            _worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix=_WORKER_NAME)
        worker = _worker
    return worker.submit(_run_here, coroutine, context).result()


@atexit.register
def _close_runners() -> None:
    with _runners_lock:
        runners = list(_runners)
        _runners.clear()
    for runner in runners:
        try:
            runner.close()
        except RuntimeError:  # closed from another thread while its loop runs: nothing left to do
            pass
