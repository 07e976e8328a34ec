"""The cache file: where it lives, opening it without ever failing a check, and its statistics.

Entries are plain JSON (`serializer.py`), each bound to its key by a keyed digest
(`binding.py`), and an entry read back counts only when its digest holds and it has the shape its
kind is written in (`entries.py`); anything else is a miss, logged with its key, and dropped.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from langgraph.cache.sqlite import SqliteCache
from pydantic import TypeAdapter, ValidationError

from veracity.cache.binding import EntryBinding, UnboundEntry
from veracity.cache.serializer import PlainJsonSerializer, UnreadableEntry

log = logging.getLogger("veracity.cache")

CACHE_ENV = "VERACITY_CACHE"
"""Environment variable naming the cache file."""

MODEL_NAMESPACE = ("model",)
SEARCH_NAMESPACE_PREFIX = "search"
KINDS = {"model": "model answers", "search": "searches"}
"""Kinds of entries, by the first part of their namespace."""

T = TypeVar("T")


def default_cache_path() -> Path:
    """`$VERACITY_CACHE` when set, else `<user data dir>/veracity/cache.sqlite`."""
    configured = os.environ.get(CACHE_ENV, "").strip()
    if configured:
        return Path(configured).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("veracity")) / "cache.sqlite"


def digest(*parts: object) -> str:
    """A stable key for `parts` (JSON-encoded, then SHA-256)."""
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CacheStats:
    """What the cache file holds."""

    path: Path
    exists: bool
    bytes: int = 0
    entries: dict[str, int] = field(default_factory=dict)
    """Live entries by kind ('model', 'search')."""
    expired: int = 0
    """Entries past their time to live (dropped when next looked up, or by `clear --expired`)."""


class CacheStore:
    """LangGraph's `SqliteCache` at `path`, used so that a cache fault is a miss, never a failed check."""

    def __init__(self, path: Path) -> None:
        """Open (or make) the cache file at `path` and its secret; `OSError` or `sqlite3.Error` when they cannot be."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._binding = EntryBinding.for_cache(path)
        self._cache: SqliteCache[Any] = SqliteCache(path=str(path), serde=PlainJsonSerializer())
        self._warned = threading.Event()

    def _fault(self, action: str, exc: Exception) -> None:
        if not self._warned.is_set():
            self._warned.set()
            log.warning("cache %s at %s failed (%s); going on without it for this call", action, self.path, exc)

    def _foreign(self, namespace: tuple[str, ...], key: str, why: str) -> None:
        log.warning("cache entry %s (%s) in %s is not one the cache wrote (%s); dropped, asking afresh instead",
                    key, ",".join(namespace), self.path, why)
        self._drop(namespace, key)

    def _drop(self, namespace: tuple[str, ...], key: str) -> None:
        """Remove one entry (a bad one, so that nothing reads it again)."""
        try:
            with closing(sqlite3.connect(self.path, timeout=10)) as connection, connection:
                connection.execute("DELETE FROM cache WHERE ns = ? AND key = ?", (",".join(namespace), key))
        except sqlite3.Error as exc:
            self._fault("drop", exc)

    def get(self, namespace: tuple[str, ...], key: str, shape: TypeAdapter[T]) -> T | None:
        """The value stored under `key` if it is bound to `key` and has `shape`, else None (also when unreadable).

        An entry that is not plain JSON, whose digest does not hold for `key` (see `binding.py`), or
        whose value is not of `shape`, is never used: it is a miss, logged with its key, and dropped.
        """
        try:
            found = self._cache.get([(namespace, key)])
        except UnreadableEntry as exc:
            self._foreign(namespace, key, str(exc))
            return None
        except Exception as exc:  # a cache fault is a miss, whatever the file or driver raised
            self._fault("read", exc)
            return None
        if (namespace, key) not in found:
            return None
        try:
            return shape.validate_python(self._binding.open(namespace, key, found[(namespace, key)]))
        except UnboundEntry as exc:
            self._foreign(namespace, key, str(exc))
        except ValidationError as exc:
            self._foreign(namespace, key, f"{exc.error_count()} problem(s) with its shape, first: "
                                          f"{exc.errors()[0]['msg']}")
        return None

    def set(self, namespace: tuple[str, ...], key: str, value: T, shape: TypeAdapter[T], ttl: int | None) -> None:
        """Store `value` (of `shape`, as plain JSON bound to `key`) under `key` for `ttl` seconds (None: until cleared).

        A failed write, e.g. of a value with no JSON form, is logged; the check goes on.
        """
        try:
            entry = self._binding.seal(namespace, key, shape.dump_python(value, mode="json"))
            self._cache.set({(namespace, key): (entry, ttl)})
        except Exception as exc:  # as for reads: a cache fault never fails the check
            self._fault("write", exc)

    def clear_namespace(self, namespace: tuple[str, ...]) -> None:
        """Remove every entry of `namespace`."""
        try:
            self._cache.clear([namespace])
        except sqlite3.Error as exc:
            self._fault("clear", exc)


@functools.lru_cache(maxsize=8)
def _open(path: str) -> CacheStore | None:
    try:
        return CacheStore(Path(path))
    except (OSError, sqlite3.Error) as exc:
        log.warning("cannot open the cache at %s (%s); checks run without it (--no-cache hides this)", path, exc)
        return None


def open_store(path: str | Path | None = None) -> CacheStore | None:
    """The cache at `path` (default: `default_cache_path()`), opened once per process; None if it cannot be."""
    return _open(str(Path(path).expanduser().resolve() if path else default_cache_path().resolve()))


def _connect(path: Path) -> sqlite3.Connection | None:
    """A connection to the cache file, or None when it holds no cache table (nothing is created)."""
    connection = sqlite3.connect(path, timeout=10)
    if connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'cache'").fetchone() is None:
        connection.close()
        return None
    return connection


def read_stats(path: Path) -> CacheStats:
    """Entries by kind, expired entries and size of the cache file at `path` (it is not created)."""
    if not path.exists():
        return CacheStats(path=path, exists=False)
    now = time.time()
    connection = _connect(path)
    rows = []
    if connection is not None:
        with closing(connection):
            rows = connection.execute(
                "SELECT ns, expiry IS NOT NULL AND expiry < ?, COUNT(*) FROM cache GROUP BY 1, 2", (now,)
            ).fetchall()
    entries: dict[str, int] = {}
    expired = 0
    for namespace, is_expired, count in rows:
        if is_expired:
            expired += count
        else:
            kind = str(namespace).split(",")[0]
            entries[kind] = entries.get(kind, 0) + count
    size = sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())
    return CacheStats(path=path, exists=True, bytes=size, entries=entries, expired=expired)


def clear(path: Path, *, kinds: Sequence[str] = (), expired_only: bool = False) -> int:
    """Delete entries (of `kinds` only, when given; expired ones only, with `expired_only`); return how many."""
    if not path.exists():
        return 0
    conditions: list[str] = []
    params: list[object] = []
    if kinds:
        conditions.append("(" + " OR ".join("ns = ? OR ns LIKE ?" for _ in kinds) + ")")
        for kind in kinds:
            params += [kind, f"{kind},%"]
    if expired_only:
        conditions.append("expiry IS NOT NULL AND expiry < ?")
        params.append(time.time())
    where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
    connection = _connect(path)
    if connection is None:
        return 0
    with closing(connection):
        with connection:
            removed = connection.execute(f"DELETE FROM cache{where}", params).rowcount
        connection.execute("VACUUM")
    return int(removed)
