"""The judge's sentence vectors, stored beside the index the first time a chunk is retrieved.

Ingest embeds only what ranking needs (static sentence vectors). The MiniLM vectors of a
chunk's sentences, which the offline judge reads, are computed when a search first returns the
chunk, kept here and reused by every later search, by other processes too (`veracity kb warm`
fills them all ahead of time). Rows are keyed by a hash of the model and the sentence text, so
they outlive generations: re-ingesting an edited document finds its unchanged sentences here.

Nothing read here is trusted as it is. Each row carries a SHA-256 digest of its key (bound to
the model and the text) and its vector, written with it; a row is used only if its vector has
the right length, finite values, unit length and that digest. Any other row (damaged, edited,
or written by a veracity before digests, which has none) is recomputed and written again: it
is said once in the log and never used. The digest finds damage and rows edited by hand; like
the manifest's checksums it is not a signature, since whoever can write the folder can also
rewrite the documents. `veracity kb verify` checks every row.

The store is opened only as a regular file inside the knowledge base folder: a store file that
is a symbolic link (or not a file) is refused, so nothing is written through it elsewhere.

The store is a cache. A store that cannot be opened or written (a read-only folder, a damaged
or refused file, a busy writer) costs recomputation, never a failed search.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import stat
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from veracity.kb.vectors import STORED_DTYPE

STORE_NAME = "sentence-vectors.sqlite"
"""The store's file in the knowledge base folder (SQLite adds `-wal` and `-shm` beside it while open)."""

STORE_FILES = (STORE_NAME, f"{STORE_NAME}-wal", f"{STORE_NAME}-shm", f"{STORE_NAME}-journal")

_LOOKUP_BATCH = 500
"""Keys per SELECT: SQLite caps the number of parameters of one statement."""

_DIGEST_PREFIX = b"veracity sentence vector 1\x00"
"""Starts every digested message, so a row's digest means nothing outside this store and this row format."""

UNIT_TOLERANCE = 0.01
"""How far a stored vector's length may be from 1 (float16 rounding moves it by about 0.001)."""

logger = logging.getLogger(__name__)


def _key(model_id: str, text: str) -> bytes:
    return hashlib.blake2b(f"{model_id}\x00{text}".encode(), digest_size=16).digest()


def row_digest(key: bytes, vector: bytes) -> bytes:
    """The digest stored with a row: SHA-256 of its key (the model and the text) and its vector's bytes."""
    return hashlib.sha256(_DIGEST_PREFIX + key + vector).digest()


def refused_file(kb: Path) -> str | None:
    """Why the store's files in `kb` cannot be opened safely (a symbolic link, not a regular file); None if they can.

    Files that do not exist yet are fine: SQLite creates them as regular files in the folder.
    """
    for name in STORE_FILES:
        path = kb / name
        try:
            status = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            return f"{name} cannot be examined ({exc.strerror or exc})"
        if stat.S_ISLNK(status.st_mode):
            try:
                target = os.readlink(path)
            except OSError:
                target = "?"
            return (f"{name} is a symbolic link (to {target}); the store is kept only as a file inside the knowledge "
                    f"base folder: delete the link {path}")
        if not stat.S_ISREG(status.st_mode):
            return f"{name} is not a regular file; delete {path}"
    return None


@dataclass(frozen=True)
class StoreCheck:
    """What `SentenceVectorStore.check` found, for `veracity kb verify`."""

    rows: int
    """Rows read."""
    bad: int
    """Rows that are never used: a vector of the wrong length, not finite or not of unit length, or another digest."""
    undigested: int
    """Rows written by a veracity before digests: not trusted, recomputed when first read."""
    problem: str | None = None
    """Why the store cannot be read at all (a refused or damaged file); None when it was read."""


class SentenceVectorStore:
    """Sentence vectors by text for one model, in a SQLite file shared by every process using the knowledge base."""

    def __init__(self, kb: Path, *, model_id: str, dimensions: int) -> None:
        self.path = kb / STORE_NAME
        self.model_id = model_id
        self.dimensions = dimensions
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._broken = False
        self._problem: str | None = None
        self._writable = True
        self._digests = True
        """Whether the table has the digest column (False: an old store that could not be migrated)."""
        self._told_of_bad_rows = False

    # ------------------------------------------------------------------ opening

    def _connect(self) -> sqlite3.Connection | None:
        if self._connection is None and not self._broken:
            refused = refused_file(self.path.parent)
            if refused is not None:
                self._give_up(refused)
                return None
            try:
                connection = sqlite3.connect(self.path, timeout=2.0, check_same_thread=False, isolation_level=None)
            except sqlite3.Error as exc:
                self._give_up(str(exc))
                return None
            try:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=NORMAL")
                connection.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL, "
                                   "digest BLOB)")
                self._digests = self._with_digest_column(connection)
                # The files SQLite opened must still be those checked (nothing swapped in meanwhile).
                refused = refused_file(self.path.parent)
                if refused is not None:
                    raise sqlite3.DatabaseError(refused)
            except sqlite3.Error as exc:
                connection.close()
                self._give_up(str(exc))
                return None
            self._connection = connection
        return self._connection

    def _give_up(self, reason: str) -> None:
        logger.warning("sentence vectors of %s are not kept between runs: %s", self.path.parent, reason)
        self._broken = True
        self._problem = reason

    def _with_digest_column(self, connection: sqlite3.Connection) -> bool:
        """Add the digest column to a store written before digests; False where it cannot be added (read-only)."""
        if "digest" in {row[1] for row in connection.execute("PRAGMA table_info(vectors)")}:
            return True
        try:
            connection.execute("ALTER TABLE vectors ADD COLUMN digest BLOB")  # old rows get none: never trusted
        except sqlite3.OperationalError as exc:
            if "duplicate column" in str(exc):  # another process added it meanwhile
                return True
            logger.warning("the sentence vectors in %s cannot be checked (%s): they are recomputed", self.path, exc)
            return False
        return True

    # ------------------------------------------------------------------ reading

    def _usable(self, key: bytes, blob: object, digest: object) -> NDArray[np.float32] | None:
        """The row's vector as float32 if it passes every check, else None."""
        if not (isinstance(blob, bytes) and isinstance(digest, bytes)):
            return None
        if len(blob) != self.dimensions * np.dtype(STORED_DTYPE).itemsize:
            return None
        vector = np.frombuffer(blob, dtype=STORED_DTYPE).astype(np.float32)
        if not np.all(np.isfinite(vector)) or abs(float(np.linalg.norm(vector)) - 1.0) > UNIT_TOLERANCE:
            return None
        return vector if row_digest(key, blob) == digest else None

    def lookup(self, texts: Sequence[str]) -> dict[str, NDArray[np.float32]]:
        """The stored vectors of those texts that have a row passing every check (unit-length float32 rows).

        A row that fails is left out (the caller recomputes and stores it again); the first time
        this store meets such rows, the log says so.
        """
        found: dict[str, NDArray[np.float32]] = {}
        failed = 0
        for text, key, blob, digest in self._select(texts):
            vector = self._usable(key, blob, digest)
            if vector is None:
                failed += 1
            else:
                found[text] = vector
        self._tell_of_bad_rows(failed)
        return found

    def absent(self, texts: Sequence[str]) -> list[str]:
        """Those of `texts` with no stored vector that passes every check."""
        rows = self._select(texts)
        usable = {text for text, key, blob, digest in rows if self._usable(key, blob, digest) is not None}
        self._tell_of_bad_rows(len(rows) - len(usable))
        return [text for text in texts if text not in usable]

    def _tell_of_bad_rows(self, failed: int) -> None:
        if failed <= 0:
            return
        if not self._told_of_bad_rows:
            self._told_of_bad_rows = True
            logger.warning(
                "%d stored sentence vector(s) in %s failed their check (damaged, edited, or written by an older "
                "veracity without a digest): they are not used, but recomputed and stored again", failed, self.path)
        else:
            logger.debug("%d more stored sentence vector(s) in %s failed their check", failed, self.path)

    def _select(self, texts: Sequence[str]) -> list[tuple[str, bytes, object, object]]:
        """(text, key, stored vector, digest) of the texts that have a row, a bounded number of keys per query."""
        keys = {_key(self.model_id, text): text for text in texts}
        found: list[tuple[str, bytes, object, object]] = []
        with self._lock:
            connection = self._connect()
            if connection is None:
                return found
            columns = "vector, digest" if self._digests else "vector, NULL"
            ordered = list(keys)
            try:
                for start in range(0, len(ordered), _LOOKUP_BATCH):
                    part = ordered[start:start + _LOOKUP_BATCH]
                    query = f"SELECT key, {columns} FROM vectors WHERE key IN ({','.join('?' * len(part))})"
                    found.extend((keys[key], key, vector, digest)
                                 for key, vector, digest in connection.execute(query, part))
            except sqlite3.Error as exc:
                logger.warning("could not read stored sentence vectors: %s", exc)
        return found

    # ------------------------------------------------------------------ writing

    def store(self, texts: Sequence[str], vectors: NDArray[np.floating]) -> int:
        """Keep vectors for texts (as float16, with their digests); returns how many rows were written.

        A vector of the wrong length, not finite or not of unit length is not stored. Returns 0
        when the store is unusable.
        """
        rows = []
        for text, vector in zip(texts, vectors, strict=True):
            key, blob = _key(self.model_id, text), np.asarray(vector, dtype=STORED_DTYPE).tobytes()
            digest = row_digest(key, blob)
            if self._usable(key, blob, digest) is not None:
                rows.append((key, blob, digest))
        if len(rows) < len(texts):
            logger.warning("%d sentence vector(s) not stored in %s: not %d finite values of unit length",
                           len(texts) - len(rows), self.path, self.dimensions)
        with self._lock:
            connection = self._connect()
            if connection is None or not rows or not self._writable or not self._digests:
                return 0
            try:
                with connection:
                    connection.execute("BEGIN IMMEDIATE")
                    connection.executemany("INSERT OR REPLACE INTO vectors (key, vector, digest) VALUES (?, ?, ?)",
                                           rows)
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    self._writable = False  # read-only or full: said once, then the vectors stay in memory only
                logger.warning("could not store sentence vectors in %s: %s", self.path, exc)
                return 0
            except sqlite3.Error as exc:
                logger.warning("could not store sentence vectors in %s: %s", self.path, exc)
                return 0
        return len(rows)

    # ------------------------------------------------------------------ management

    def count(self) -> int:
        """How many vectors are stored with a digest (for any model); rows without one are not counted."""
        with self._lock:
            connection = self._connect() if self._exists() else None
            if connection is None or not self._digests:
                return 0
            try:
                return int(connection.execute("SELECT COUNT(*) FROM vectors WHERE digest IS NOT NULL").fetchone()[0])
            except sqlite3.Error:
                return 0

    def _exists(self) -> bool:
        return any(os.path.lexists(self.path.parent / name) for name in STORE_FILES)

    def check(self) -> StoreCheck | None:
        """Check every stored row (length, finite unit values, digest); None when there is no store."""
        with self._lock:
            if not self._exists():
                return None
            connection = self._connect()
            if connection is None:
                return StoreCheck(0, 0, 0, problem=self._problem)
            rows = bad = undigested = 0
            try:
                for key, blob, digest in self._all_rows(connection):
                    rows += 1
                    if digest is None:
                        undigested += 1
                    elif self._usable(key, blob, digest) is None:
                        bad += 1
            except sqlite3.Error as exc:
                return StoreCheck(rows, bad, undigested, problem=f"{STORE_NAME} cannot be read ({exc})")
        return StoreCheck(rows, bad, undigested)

    def _all_rows(self, connection: sqlite3.Connection) -> Iterator[tuple[bytes, object, object]]:
        digest = "digest" if self._digests else "NULL"
        yield from connection.execute(f"SELECT key, vector, {digest} FROM vectors")

    def close(self) -> None:
        """Close the connection (it is reopened when used again)."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None
