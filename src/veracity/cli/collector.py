"""The cyclic garbage collector in a command's process: paused while LangGraph is imported, left out at exit.

Importing LangChain, LangGraph and the graph's steps creates hundreds of thousands of objects that
live as long as the process, and the collector, triggered by their number, scans them again and
again: a tenth of the import time. `paused` holds it off for the imports (it runs as usual
afterwards, and frees anything the imports left behind).

As Python exits it clears every module and runs the collector over everything still alive, more
than once: a third of a second of a two-claim check, spent freeing memory the operating system
takes back anyway. `skip_collection_at_exit` freezes the objects at exit (`gc.freeze`), which
leaves them out of those passes. Everything else happens as before: the exit handlers run, threads
are joined, the standard streams are flushed and every object outside a reference cycle is still
freed; only reference cycles are left to the end of the process instead of being taken apart.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager

_registered = False


@contextmanager
def paused() -> Iterator[None]:
    """Hold the collector off for the block (as it was before, afterwards)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def skip_collection_at_exit() -> None:
    """Freeze the collector's objects when the process exits (registered once)."""
    global _registered
    if not _registered:
        atexit.register(gc.freeze)
        _registered = True
