"""`veracity serve --workers N`: the app in N worker processes under uvicorn's process supervisor.

The parent binds the socket and supervises; each worker accepts connections on the shared
socket and builds its own app (`AppFactory`), so everything a check loads lives once per
worker: the models, the judge's memories, the compiled graph, the open knowledge base (read
only, memory-mapped where it can be). What is shared and what is not:

* the rate limit is shared: its buckets live in a SQLite file the parent creates in a private
  temporary folder (`SharedRateLimiter`), so a client gets its rate whichever worker answers;
* the connection cap (``--max-connections``) and the read deadlines hold per worker, as the file
  descriptors they protect are per process;
* a checkpoint file (``--checkpoint``) is one SQLite file for all, so a check cut off on one
  worker resumes on any;
* each worker's entailment model runs its share of the cores' worth of calls at once.

Ctrl-C or SIGTERM stops the parent, which stops the workers (each finishes the requests it is
serving) and removes the temporary folder. A worker that dies is replaced (one killed by a fatal
signal first writes the signal and its threads' stacks to the log, see `fatal_signals.py`); one
whose app cannot be built stops the server.
"""

from __future__ import annotations

import inspect
import logging
import shutil
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from veracity.cores import usable_cores
from veracity.server.serving import ServeSettings, uvicorn_config

if TYPE_CHECKING:
    from fastapi import FastAPI

logger = logging.getLogger("uvicorn.error")


@dataclass(frozen=True)
class AppFactory:
    """Builds the app in a worker process: `create_app(**options)` with the shared rate-limit file.

    It pickles (uvicorn sends it to each worker), so `options` must hold plain values.
    """

    options: dict[str, Any] = field(default_factory=dict)
    rate_limit_file: Path | None = None
    runs_at_once: int = 1
    """Entailment-model calls this worker runs at once (its share of the cores)."""

    def __call__(self) -> FastAPI:
        """The app; a setting that cannot be used stops the worker as a failed start (uvicorn then stops)."""
        from uvicorn.config import STARTUP_FAILURE

        from veracity.offline.model.entailment import limit_default_runs
        from veracity.server.app import create_app
        from veracity.server.fatal_signals import log_fatal_signals

        log_fatal_signals()
        limit_default_runs(self.runs_at_once)
        _progress_bars_lock_threads_only()
        try:
            return create_app(**self.options, rate_limit_file=self.rate_limit_file)
        except Exception as error:  # one line for the operator, not a traceback per worker
            logger.error("veracity serve: the app cannot start: %s: %s", type(error).__name__, error)
            sys.exit(STARTUP_FAILURE)


def _progress_bars_lock_threads_only() -> None:
    """Give tqdm a thread lock instead of its default, a named semaphore shared with child processes.

    bm25s draws (hidden) tqdm bars when the knowledge base is searched; a worker stopped by SIGTERM
    (uvicorn ends with the signal's default action) would leave that semaphore behind, and the
    supervisor's resource tracker would warn about it at shutdown. Workers start no processes.
    """
    try:
        from tqdm import tqdm  # type: ignore[import-untyped]
    except ImportError:
        return
    tqdm.set_lock(threading.RLock())


def serve_workers(options: dict[str, Any], *, host: str, port: int, settings: ServeSettings, workers: int) -> bool:
    """Serve `create_app(**options)` from `workers` processes until Ctrl-C or SIGTERM.

    Returns False when a worker could not build the app (the reason is in the log).
    """
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import Multiprocess

    from veracity.server.shared_limits import create_bucket_file

    folder = Path(tempfile.mkdtemp(prefix="veracity-serve-"))
    try:
        buckets = folder / "rate-limits.sqlite"
        create_bucket_file(buckets)
        factory = AppFactory(options, rate_limit_file=buckets,
                             runs_at_once=max(1, usable_cores() // workers))
        config = uvicorn_config(factory, host=host, port=port, settings=settings, workers=workers)
        sock = config.bind_socket()
        try:
            if "target" in inspect.signature(Multiprocess).parameters:  # older uvicorn: the worker entry is passed in
                supervisor = cast(Any, Multiprocess)(config, target=uvicorn.Server(config).run, sockets=[sock])
            else:
                supervisor = Multiprocess(config, sockets=[sock])
            supervisor.run()
        finally:
            sock.close()
        return all(getattr(process, "exitcode", None) != STARTUP_FAILURE for process in supervisor.processes)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
