"""One writer at a time: ingests and removals hold a file lock in the knowledge base folder."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from veracity.errors import KnowledgeBaseError

LOCK_NAME = "ingest.lock"


@contextmanager
def writer_lock(kb: Path, *, on_wait: Callable[[Path], None] | None = None,
                timeout: float | None = None) -> Iterator[None]:
    """Hold the knowledge base's write lock; call `on_wait` first if another process (or thread) holds it.

    `timeout` is in seconds (None: wait as long as it takes); running out raises `KnowledgeBaseError`.
    """
    from filelock import FileLock, Timeout

    try:
        kb.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise KnowledgeBaseError(f"cannot create the knowledge base folder {kb}: {exc.strerror or exc}") from exc
    path = kb / LOCK_NAME
    lock = FileLock(path)
    try:
        lock.acquire(blocking=False)
    except Timeout:
        if on_wait is not None:
            on_wait(path)
        try:
            lock.acquire(timeout=-1 if timeout is None else timeout)
        except Timeout:
            raise KnowledgeBaseError(
                f"another ingest into {kb} still holds {path} after {timeout:g} s; try again when it has finished"
            ) from None
    try:
        yield
    finally:
        lock.release()
