"""`Coalescer`: the requests of concurrent threads merged into shared calls of one batch function.

The claims of a check are judged in parallel branches, each asking the entailment model to score
its own passages; a server runs several checks at once. Every call of the model costs a fixed
amount on top of its tokens, so the requests that wait at the same moment are better run as one
call. A `Coalescer` does that without a timer: a request made while a run slot is free is run at
once (with whatever else is waiting), and requests made while every slot is busy are queued and
run together by the next free slot. A lone caller never waits for company.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


@dataclass(eq=False)
class _Request(Generic[Item, Result]):
    """One caller's items, and what became of them."""

    items: Sequence[Item]
    done: bool = False
    """Set (under the coalescer's lock) once `results` or `error` holds this request's outcome."""
    results: list[Result] | None = None
    error: BaseException | None = None


class Coalescer(Generic[Item, Result]):
    """Calls `run(items) -> results` (one result per item, in order) on the items of every waiting caller.

    At most `runs_at_once` calls are under way at a time. A caller who finds a slot free runs the
    whole queue, its own items included, in one call; one who finds every slot busy waits, and when
    a call ends every waiting caller looks again: one whose items were in that call returns, the
    first still queued to find a slot free runs what queued meanwhile. Each caller gets back the results of its
    own items; when a call raises, every caller whose items were in it gets the error.

    All bookkeeping happens under one condition variable, and a slot is given back by the call that
    took it, so no interleaving of callers can lose a slot or leave a caller waiting on a free one.
    """

    def __init__(self, run: Callable[[list[Item]], Sequence[Result]], *, runs_at_once: int) -> None:
        """`runs_at_once` is at least 1."""
        self._run = run
        self._changed = threading.Condition()
        self._queue: list[_Request[Item, Result]] = []
        self._running = 0
        self.runs_at_once = max(1, runs_at_once)
        self.calls = 0
        """How many calls of `run` were made (for tests and benchmarks)."""

    def __call__(self, items: Sequence[Item]) -> list[Result]:
        """The results for `items`, computed in a call shared with the callers waiting at the same time."""
        if not items:
            return []
        request: _Request[Item, Result] = _Request(items)
        with self._changed:
            self._queue.append(request)
        while True:
            with self._changed:
                self._changed.wait_for(lambda: request.done or (self._running < self.runs_at_once
                                                                and request in self._queue))
                if request.done:
                    break
                taken, self._queue = self._queue, []
                self._running += 1
                self.calls += 1
            self._call(taken)
        if request.error is not None:
            raise request.error
        assert request.results is not None
        return request.results

    def _call(self, taken: list[_Request[Item, Result]]) -> None:
        """Run the items of `taken` in one call, hand out the results, and give the slot back."""
        try:
            results = self._run([item for request in taken for item in request.items])
            if len(results) != sum(len(request.items) for request in taken):
                raise ValueError(f"the batch function returned {len(results)} results for "
                                 f"{sum(len(request.items) for request in taken)} items")
            start = 0
            for request in taken:
                request.results = list(results[start:start + len(request.items)])
                start += len(request.items)
        except BaseException as error:  # every caller of this call hears of it, interrupts included
            for request in taken:
                request.error = error
        finally:
            with self._changed:
                for request in taken:
                    request.done = True
                self._running -= 1
                self._changed.notify_all()
