"""The judge's sentence vectors, stored beside the index the first time a chunk is retrieved.

Ingest embeds only what ranking needs (static sentence vectors). The MiniLM vectors of a
chunk's sentences, which the offline judge reads, are computed when a search first returns the
chunk, kept here and reused by every later search, by other processes too (`veracity kb warm`
fills them all ahead of time). Rows are keyed by a hash of the model and the sentence text, so
they outlive generations: re-ingesting an edited document finds its unchanged sentences here.

The store is a cache. A store that cannot be opened or written (a read-only folder, a damaged
file, a busy writer) costs recomputation, never a failed search.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from veracity.kb.vectors import STORED_DTYPE

STORE_NAME = "sentence-vectors.sqlite"
"""The store's file in the knowledge base folder (SQLite adds `-wal` and `-shm` beside it while open)."""

STORE_FILES = (STORE_NAME, f"{STORE_NAME}-wal", f"{STORE_NAME}-shm", f"{STORE_NAME}-journal")

_LOOKUP_BATCH = 500
"""Keys per SELECT: SQLite caps the number of parameters of one statement."""

logger = logging.getLogger(__name__)


def _key(model_id: str, text: str) -> bytes:
    return hashlib.blake2b(f"{model_id}\x00{text}".encode(), digest_size=16).digest()


class SentenceVectorStore:
    """Sentence vectors by text for one model, in a SQLite file shared by every process using the knowledge base."""

    def __init__(self, kb: Path, *, model_id: str, dimensions: int) -> None:
        self.path = kb / STORE_NAME
        self.model_id = model_id
        self.dimensions = dimensions
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._broken = False
        self._writable = True

    def _connect(self) -> sqlite3.Connection | None:
        if self._connection is None and not self._broken:
            try:
                connection = sqlite3.connect(self.path, timeout=2.0, check_same_thread=False, isolation_level=None)
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=NORMAL")
                connection.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")
                self._connection = connection
            except sqlite3.Error as exc:
                logger.warning("sentence vectors of %s are not kept between runs: %s", self.path.parent, exc)
                self._broken = True
        return self._connection

    def lookup(self, texts: Sequence[str]) -> dict[str, NDArray[np.float32]]:
        """The stored vectors of those texts that have one (unit-length float32 rows)."""
        size = self.dimensions * np.dtype(STORED_DTYPE).itemsize
        return {text: np.frombuffer(blob, dtype=STORED_DTYPE).astype(np.float32)
                for text, blob in self._select(texts, with_vectors=True)
                if isinstance(blob, bytes) and len(blob) == size}  # anything else is recomputed

    def absent(self, texts: Sequence[str]) -> list[str]:
        """Those of `texts` with no stored vector (their vectors are not read)."""
        present = {text for text, _ in self._select(texts, with_vectors=False)}
        return [text for text in texts if text not in present]

    def _select(self, texts: Sequence[str], *, with_vectors: bool) -> list[tuple[str, object]]:
        """(text, stored blob or None) of the texts that have a row, a bounded number of keys per query."""
        keys = {_key(self.model_id, text): text for text in texts}
        column = "vector" if with_vectors else "NULL"
        found: list[tuple[str, object]] = []
        with self._lock:
            connection = self._connect()
            if connection is None:
                return found
            ordered = list(keys)
            try:
                for start in range(0, len(ordered), _LOOKUP_BATCH):
                    part = ordered[start:start + _LOOKUP_BATCH]
                    query = f"SELECT key, {column} FROM vectors WHERE key IN ({','.join('?' * len(part))})"
                    found.extend((keys[key], value) for key, value in connection.execute(query, part))
            except sqlite3.Error as exc:
                logger.warning("could not read stored sentence vectors: %s", exc)
        return found

    def store(self, texts: Sequence[str], vectors: NDArray[np.floating]) -> int:
        """Keep vectors for texts (as float16); returns how many rows were written (0 if the store is unusable)."""
        rows = [(_key(self.model_id, text), np.asarray(vector, dtype=STORED_DTYPE).tobytes())
                for text, vector in zip(texts, vectors, strict=True)]
        with self._lock:
            connection = self._connect()
            if connection is None or not rows or not self._writable:
                return 0
            try:
                with connection:
                    connection.execute("BEGIN IMMEDIATE")
                    connection.executemany("INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)", rows)
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    self._writable = False  # read-only or full: said once, then the vectors stay in memory only
                logger.warning("could not store sentence vectors in %s: %s", self.path, exc)
                return 0
            except sqlite3.Error as exc:
                logger.warning("could not store sentence vectors in %s: %s", self.path, exc)
                return 0
        return len(rows)

    def count(self) -> int:
        """How many vectors are stored (for any model)."""
        with self._lock:
            connection = self._connect() if self.path.exists() else None
            if connection is None:
                return 0
            try:
                return int(connection.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])
            except sqlite3.Error:
                return 0

    def close(self) -> None:
        """Close the connection (it is reopened when used again)."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None
