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

A plain function node is either synchronous (run in a thread under `ainvoke`) or a coroutine
(refused by `invoke`), never both. A node with both bodies is built here on public names only:
LangChain's `RunnableLambda` (given `func` and `afunc`; LangGraph finds a subgraph through it),
running its body inside the run LangGraph starts for the node, as a plain node does, and
LangGraph's `get_runtime` for the `runtime` argument.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import inspect
import os
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from langchain_core.runnables import RunnableConfig, RunnableLambda, ensure_config
from langgraph.runtime import get_runtime

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


INJECTED = frozenset({"config", "runtime"})
"""The arguments LangGraph gives a node by name, of those veracity's nodes take."""


Body = Callable[[Any, RunnableConfig], Any]
"""A node's synchronous body: the state and the node's config in, its update out."""
AsyncBody = Callable[[Any, RunnableConfig], Awaitable[Any]]
"""A node's asynchronous body."""


class BothWaysNode(RunnableLambda[Any, Any]):
    """A graph node with a synchronous body and an asynchronous one, run as a plain node is.

    LangGraph starts a node's run itself and runs a plain function node inside it without a run of
    its own; a `RunnableLambda` would add one, so the trace would name every step twice. This one
    calls its body directly, with the node's config, and is still a `RunnableLambda` to LangGraph,
    which finds a subgraph through its body.
    """

    def __init__(self, sync_body: Body, async_body: AsyncBody, *, name: str | None) -> None:
        super().__init__(sync_body, afunc=async_body, name=name)
        self.sync_body, self.async_body = sync_body, async_body

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """The synchronous body's result for `input`."""
        return self.sync_body(input, ensure_config(config))

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """The asynchronous body's result for `input`."""
        return await self.async_body(input, ensure_config(config))


def both_ways(node: Callable[..., Any], *, name: str | None = None) -> Any:
    """`node` (named `name`) as a graph node with a synchronous and an asynchronous body.

    A synchronous `node` is returned as it is: LangGraph runs it under either API.

    Both bodies call `node` with the state and those of `config` and `runtime` it takes (the
    node's config, and LangGraph's `get_runtime`); the synchronous one runs the coroutine that
    returns on the bridge's loop. LangGraph looks for a subgraph through a node's `__wrapped__`,
    so each body points at `node`'s innermost callable.
    """
    if not inspect.iscoroutinefunction(node):
        return node
    wanted = INJECTED & set(inspect.signature(node).parameters)

    def arguments(config: RunnableConfig) -> dict[str, Any]:
        given: dict[str, Any] = {"config": config}
        if "runtime" in wanted:
            given["runtime"] = get_runtime()
        return {key: given[key] for key in wanted}

    @functools.wraps(node)
    def run_sync(state: Any, config: RunnableConfig) -> Any:
        return run_on_bridge(node(state, **arguments(config)))

    @functools.wraps(node)
    async def run_async(state: Any, config: RunnableConfig) -> Any:
        return await node(state, **arguments(config))

    run_sync.__wrapped__ = run_async.__wrapped__ = inspect.unwrap(node)
    return BothWaysNode(run_sync, run_async, name=name or getattr(node, "__name__", None))
