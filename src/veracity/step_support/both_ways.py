"""One bridge that lets every graph node run under `invoke` as well as `ainvoke`.

The graph's slow nodes are coroutines, and LangGraph's synchronous API (`invoke`, `stream`,
`batch`) needs a node's synchronous body. `both_ways(node)` gives a node both: its own coroutine
for the async API, and a synchronous body that runs that same coroutine to completion on the
bridge's event loop. So a synchronous run takes exactly the path an async one does, deadline,
progress events and subgraph included.

The bridge's loop runs on one daemon thread for the process's life, shared by every synchronous
run. One loop, not one per call or per thread: a pooled HTTP client (LangChain's OpenAI client
keeps one per endpoint) must always meet the loop its connections were opened on. The coroutine
sees a copy of the caller's context variables (LangGraph's config, stream writer and runtime
live there), and a caller that stops waiting (Ctrl-C, an exception) cancels it.

LangGraph's public API makes a node either synchronous (run in a thread under `ainvoke`) or a
coroutine (refused by `invoke`), never both; the node with both bodies is LangGraph's own
`RunnableCallable`, a private name. It is imported here only, and
`tests/unit/test_langgraph_private_name.py` pins it, so an upgrade that moves it fails there by name.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import inspect
import os
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from langgraph._internal._runnable import RunnableCallable

T = TypeVar("T")

_THREAD_NAME = "veracity-sync-bridge"
_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


def bridge_loop() -> asyncio.AbstractEventLoop:
    """The bridge's event loop, started on its own daemon thread on first use."""
    global _loop, _thread
    with _lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name=_THREAD_NAME, daemon=True)
            thread.start()
            _loop, _thread = loop, thread
        return _loop


def _forget_loop() -> None:
    """In a forked child the loop's thread does not exist: start a new one on next use."""
    global _loop, _thread
    _loop = _thread = None


os.register_at_fork(after_in_child=_forget_loop)


async def _in_context(coroutine: Coroutine[Any, Any, T], context: contextvars.Context) -> T:
    return await asyncio.get_running_loop().create_task(coroutine, context=context)


def run_on_bridge(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` on the bridge's loop with the caller's context variables, and wait for its result.

    Called from the bridge's own thread (a synchronous call made by a coroutine already running
    there), it runs on a fresh loop in a thread of its own rather than wait on itself.
    """
    context = contextvars.copy_context()
    loop = bridge_loop()
    if threading.current_thread() is _thread:
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(context.run, asyncio.run, coroutine).result()
    future = asyncio.run_coroutine_threadsafe(_in_context(coroutine, context), loop)
    try:
        return future.result()
    except BaseException:
        future.cancel()  # the caller gave up (Ctrl-C): stop the node too
        raise


def both_ways(node: Callable[..., Any], *, name: str | None = None) -> Any:
    """`node` (named `name`) as a graph node with a synchronous and an asynchronous body.

    A synchronous `node` is returned as it is: LangGraph runs it under either API.

    The synchronous body calls `node` with the same arguments and runs the coroutine it returns
    on the bridge's loop. LangGraph reads the arguments a node takes (`config`, `runtime`) and
    the subgraph it holds through `__wrapped__`, so the body points at `node`'s innermost callable.
    """
    if not inspect.iscoroutinefunction(node):
        return node

    @functools.wraps(node)
    def run_sync(*args: Any, **kwargs: Any) -> Any:
        return run_on_bridge(node(*args, **kwargs))

    run_sync.__wrapped__ = inspect.unwrap(node)
    return RunnableCallable(run_sync, node, name=name or getattr(node, "__name__", None), trace=False)
