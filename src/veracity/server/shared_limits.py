"""`SharedRateLimiter`: the per-client token buckets of `RateLimiter`, shared by several processes.

`veracity serve --workers N` runs N processes, and a client's connections land on whichever
worker accepts them; per-process buckets would let a client make N times its rate. The shared
buckets live in one SQLite file (in a private temporary folder the parent process creates and
removes): each charge is one short write transaction, and SQLite's file locking puts the
workers' charges in order. The clock is `time.monotonic`, one clock for every process of a
machine, so the workers must run on one machine (they do: they share a listening socket).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from veracity.server.buckets import DEFAULT_MAX_CLIENTS, charge_bucket

TRIM_EVERY = 64
"""Charges between two trims of the table to `max_clients` (each process counts its own)."""

_SCHEMA = "CREATE TABLE IF NOT EXISTS buckets (client TEXT PRIMARY KEY, tokens REAL NOT NULL, seen REAL NOT NULL)"
_SEEN_INDEX = "CREATE INDEX IF NOT EXISTS buckets_seen ON buckets (seen)"


def create_bucket_file(path: Path) -> None:
    """Create the SQLite file that `SharedRateLimiter`s on `path` share (before the workers start)."""
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute(_SCHEMA)
        connection.execute(_SEEN_INDEX)
    connection.close()


class SharedRateLimiter:
    """A token bucket per client, `requests` per `per_seconds`, kept in the SQLite file at `path`.

    Behaves as `RateLimiter`, for every process whose limiter names the same file. The table
    stays bounded the same way: buckets unseen for `per_seconds` (refilled) are dropped at each
    charge, and past `max_clients` the least recently seen are forgotten (checked every
    `TRIM_EVERY` charges, so the table may briefly hold a few more).
    """

    def __init__(self, requests: int, per_seconds: float, path: Path, max_clients: int = DEFAULT_MAX_CLIENTS) -> None:
        """Limits on the file at `path` (created if missing)."""
        self.requests = requests
        self.per_seconds = per_seconds
        self.path = path
        self.max_clients = max_clients
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._charges = 0

    @property
    def clients(self) -> int:
        """How many clients the shared table holds now."""
        with self._lock:
            (count,) = self._db().execute("SELECT count(*) FROM buckets").fetchone()
        return int(count)

    def too_costly(self, cost: int) -> bool:
        """Whether `cost` tokens exceed what a bucket ever holds."""
        return cost > self.requests

    def retry_after(self, client: str, cost: int = 1) -> int | None:
        """Take `cost` tokens for `client`; None if allowed, else whole seconds until they are free."""
        rate = self.requests / self.per_seconds
        with self._lock:
            db = self._db()
            db.execute("BEGIN IMMEDIATE")  # taken before reading, so no other process charges in between
            try:
                now = time.monotonic()
                row = db.execute("SELECT tokens, seen FROM buckets WHERE client = ?", (client,)).fetchone()
                tokens, then = (float(self.requests), now) if row is None else (float(row[0]), float(row[1]))
                tokens, wait = charge_bucket(tokens, now - then, cost, size=self.requests, rate=rate)
                db.execute("INSERT INTO buckets (client, tokens, seen) VALUES (?, ?, ?) ON CONFLICT (client) "
                           "DO UPDATE SET tokens = excluded.tokens, seen = excluded.seen", (client, tokens, now))
                # A bucket unseen for a whole period has refilled: it is the same as no bucket.
                db.execute("DELETE FROM buckets WHERE seen <= ?", (now - self.per_seconds,))
                self._charges += 1
                if self._charges % TRIM_EVERY == 0:
                    db.execute("DELETE FROM buckets WHERE client IN (SELECT client FROM buckets "
                               "ORDER BY seen DESC LIMIT -1 OFFSET ?)", (self.max_clients,))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return wait

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            connection = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA synchronous=OFF")  # the buckets need not outlive a crash
            connection.execute(_SCHEMA)
            connection.execute(_SEEN_INDEX)
            self._connection = connection
        return self._connection
