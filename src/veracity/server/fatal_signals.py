"""A server process killed by a signal says so in the server log, instead of vanishing.

SIGBUS, SIGSEGV, SIGFPE, SIGILL and SIGABRT raised inside native code (FAISS reading a memory-
mapped index that was truncated under it, for one) cannot be handled in Python: the process
ends. `faulthandler` writes the signal's name and what each thread was running to stderr, the
server log, before it does. `veracity serve --workers N` then starts a new worker in its place.
"""

from __future__ import annotations

import faulthandler
import sys


def log_fatal_signals() -> None:
    """Have a fatal signal write its name and each thread's Python stack to stderr before the process ends."""
    if not faulthandler.is_enabled():
        faulthandler.enable(file=sys.stderr, all_threads=True)
