"""Synchronous calls share one event loop per thread, so pooled connections survive between checks."""

from __future__ import annotations

import asyncio
import contextvars
import threading

from veracity.run.blocking import run_blocking


async def current_loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


def test_calls_from_one_thread_run_on_the_same_open_loop() -> None:
    first, second = run_blocking(current_loop()), run_blocking(current_loop())
    assert first is second and not first.is_closed()


def test_each_thread_has_its_own_loop() -> None:
    loops: list[asyncio.AbstractEventLoop] = []
    thread = threading.Thread(target=lambda: loops.append(run_blocking(current_loop())))
    thread.start()
    thread.join()
    assert loops and loops[0] is not run_blocking(current_loop())


async def test_inside_a_running_loop_calls_go_to_one_worker_loop_and_nesting_does_not_deadlock() -> None:
    here = asyncio.get_running_loop()
    first, second = run_blocking(current_loop()), run_blocking(current_loop())
    assert first is second and first is not here

    async def nested() -> asyncio.AbstractEventLoop:
        return run_blocking(current_loop())  # a sync call made from inside the worker's loop

    inner = run_blocking(nested())
    assert inner is not first


REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="unset")


async def read_request_id() -> str:
    return REQUEST_ID.get()


def test_each_call_sees_the_callers_context_variables_as_they_are_now() -> None:
    run_blocking(read_request_id())  # the thread's loop exists before the variable is set
    token = REQUEST_ID.set("r-42")
    try:
        assert run_blocking(read_request_id()) == "r-42"
    finally:
        REQUEST_ID.reset(token)
    assert run_blocking(read_request_id()) == "unset"


async def test_a_worker_call_sees_the_callers_context_variables() -> None:
    token = REQUEST_ID.set("r-7")
    try:
        assert run_blocking(read_request_id()) == "r-7"
    finally:
        REQUEST_ID.reset(token)
