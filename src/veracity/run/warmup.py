"""Warm-up: load a check's local models and index on a background thread while the check starts.

A process that runs one check (`veracity check`) spends most of its first second importing
LangGraph and the graph's steps, on one core. Loading the ONNX models and the knowledge base's
index meanwhile, on another thread, overlaps the two: onnxruntime and faiss do much of their work
without holding the GIL. The loads are the ones the steps call (`veracity.resources.preload_steps`),
each guarded by a lock, so a step finds its part loaded or waits for the load under way: nothing
is loaded twice, and a check's result does not depend on the warm-up.

A process must not exit while a native library is still loading a model on another thread
(onnxruntime aborts the process), so at exit a warm-up that is still running finishes the load
under way, skips the rest, and only then lets the process end.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
from collections.abc import Callable, Sequence

from veracity.context import Context
from veracity.mode import Mode
from veracity.resources import preload_steps

THREAD_NAME = "veracity-warm-up"

_running: set[WarmUp] = set()
_running_lock = threading.Lock()


class WarmUp:
    """Runs loads one after another on a daemon thread; `stop` lets the load under way finish and skips the rest."""

    def __init__(self, loads: Sequence[Callable[[], object]]) -> None:
        self._loads = list(loads)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=THREAD_NAME, daemon=True)

    def start(self) -> WarmUp:
        """Start the thread, and return this warm-up."""
        with _running_lock:
            _running.add(self)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Skip the loads not begun yet and wait for the one under way."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        try:
            for load in self._loads:
                if self._stopping.is_set():
                    return
                with contextlib.suppress(Exception):  # the step that needs it loads it again, and says why it fails
                    load()
        finally:
            with _running_lock:
                _running.discard(self)


def warm_up(context: Context, mode: Mode) -> WarmUp:
    """Start loading what a check of `context` in `mode` (no bound model or backend) will use, in the background."""
    return WarmUp(preload_steps(context, mode)).start()


@atexit.register
def _stop_all() -> None:
    """At exit, let each running warm-up finish its load under way, so no native load is cut off."""
    with _running_lock:
        running = list(_running)
    for warm in running:
        warm.stop()
