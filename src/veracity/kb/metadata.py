"""SQLite metadata: documents and their chunks. Every SQL statement of the knowledge base lives here."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL UNIQUE,          -- absolute resolved path, or demo:<file name>
    title TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime REAL,
    ingested_at TEXT NOT NULL,
    chunk_count INTEGER NOT NULL DEFAULT 0,
    notes TEXT NOT NULL DEFAULT '[]'    -- JSON list of strings
);
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,  -- also the chunk's id in the FAISS index
    document_id INTEGER NOT NULL REFERENCES documents(id),
    chunk_index INTEGER NOT NULL,
    start_char INTEGER NOT NULL,        -- [start_char, end_char) in the document text
    end_char INTEGER NOT NULL,
    text TEXT NOT NULL,
    sentence_row INTEGER NOT NULL,      -- first row of the chunk's sentences in sentences.npy
    sentence_count INTEGER NOT NULL,
    sentence_spans TEXT NOT NULL        -- JSON [[start, end], ...] of each sentence within `text`
);
CREATE INDEX chunks_by_document ON chunks(document_id);
"""


@dataclass(frozen=True)
class DocumentInfo:
    """One indexed document, as `veracity kb list` shows it."""

    path: str
    title: str
    sha256: str
    size: int
    mtime: float | None
    ingested_at: str
    chunks: int
    notes: tuple[str, ...]


@dataclass(frozen=True)
class ChunkRecord:
    """One chunk with its document's path and title, and where its sentence vectors are."""

    id: int
    path: str
    title: str
    index: int
    start: int
    end: int
    text: str
    sentence_row: int
    sentence_count: int
    sentence_spans: tuple[tuple[int, int], ...]

    @property
    def sentences(self) -> list[str]:
        """The chunk's sentence texts, in order (the same as `split_sentences(text)` gives)."""
        return [self.text[start:end] for start, end in self.sentence_spans]


@dataclass(frozen=True)
class ChunkBatch:
    """Consecutive chunks by id: their ids, texts, sentence texts and (format 1) first sentence rows."""

    ids: list[int]
    texts: list[str]
    sentences: list[list[str]]
    rows: list[int]


def connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    """Open the metadata database; a read-only connection may be used from several threads (with a lock)."""
    if readonly:
        uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
    else:
        connection = sqlite3.connect(path, isolation_level=None)
        # A generation being written is not live until the manifest names it, and `sync_files`
        # flushes it before that: no journal on disk, no fsync per statement.
        connection.execute("PRAGMA journal_mode = MEMORY")
        connection.execute("PRAGMA synchronous = OFF")
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not readonly and not tables:
        connection.executescript(_SCHEMA)
    elif not {"documents", "chunks"} <= tables:
        connection.close()
        raise sqlite3.DatabaseError("the documents and chunks tables are missing")
    return connection


def copy_database(source: Path, target: Path) -> None:
    """Copy a metadata database with SQLite's backup API."""
    old = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
    try:
        new = sqlite3.connect(target)
        try:
            old.backup(new)
        finally:
            new.close()
    finally:
        old.close()


def _document(row: Sequence[Any]) -> DocumentInfo:
    path, title, sha256, size, mtime, ingested_at, chunks, notes = row
    return DocumentInfo(path, title, sha256, size, mtime, ingested_at, chunks, tuple(json.loads(notes)))


_DOCUMENT_COLUMNS = "path, title, sha256, size, mtime, ingested_at, chunk_count, notes"


def list_documents(connection: sqlite3.Connection) -> list[DocumentInfo]:
    """Every document, ordered by path."""
    return [_document(row) for row in connection.execute(f"SELECT {_DOCUMENT_COLUMNS} FROM documents ORDER BY path")]


def find_document(connection: sqlite3.Connection, path: str) -> tuple[int, DocumentInfo] | None:
    """The id and record of the document stored under `path`, if any."""
    row = connection.execute(f"SELECT id, {_DOCUMENT_COLUMNS} FROM documents WHERE path = ?", (path,)).fetchone()
    return (row[0], _document(row[1:])) if row else None


def document_chunks(connection: sqlite3.Connection, path: str) -> list[tuple[int, int, str]] | None:
    """([start, end) offsets, text) of each chunk of the document stored under `path`, in order; None: no document."""
    found = find_document(connection, path)
    if found is None:
        return None
    rows = connection.execute(
        "SELECT start_char, end_char, text FROM chunks WHERE document_id = ? ORDER BY chunk_index", (found[0],)
    ).fetchall()
    return [(int(start), int(end), str(text)) for start, end, text in rows]


def documents_matching(connection: sqlite3.Connection, exact: str, prefix: str | None) -> list[tuple[int, str]]:
    """(id, path) of the document at `exact` and of every document whose path starts with `prefix`."""
    rows = connection.execute("SELECT id, path FROM documents ORDER BY path").fetchall()
    return [(id_, path) for id_, path in rows if path == exact or (prefix and path.startswith(prefix))]


def _inserted_id(cursor: sqlite3.Cursor) -> int:
    """The row id an INSERT just created."""
    if cursor.lastrowid is None:
        raise RuntimeError("SQLite gave no row id for an insert")
    return cursor.lastrowid


def insert_document(connection: sqlite3.Connection, path: str, *, sha256: str, size: int, mtime: float | None,
                    ingested_at: str) -> int:
    """Add a document row (title and chunk count are filled in by `finish_document`); return its id."""
    cursor = connection.execute(
        "INSERT INTO documents (path, title, sha256, size, mtime, ingested_at) VALUES (?, '', ?, ?, ?, ?)",
        (path, sha256, size, mtime, ingested_at),
    )
    return _inserted_id(cursor)


def finish_document(connection: sqlite3.Connection, document_id: int, *, title: str, chunks: int,
                    notes: Iterable[str]) -> None:
    """Record a document's title, chunk count and notes once all its chunks are in."""
    connection.execute(
        "UPDATE documents SET title = ?, chunk_count = ?, notes = ? WHERE id = ?",
        (title, chunks, json.dumps(list(notes)), document_id),
    )


def insert_chunk(connection: sqlite3.Connection, document_id: int, *, index: int, start: int, end: int, text: str,
                 sentence_row: int, sentence_spans: Sequence[tuple[int, int]]) -> int:
    """Add a chunk; return its id."""
    cursor = connection.execute(
        "INSERT INTO chunks (document_id, chunk_index, start_char, end_char, text, sentence_row, sentence_count,"
        " sentence_spans) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (document_id, index, start, end, text, sentence_row, len(sentence_spans),
         json.dumps([list(span) for span in sentence_spans])),
    )
    return _inserted_id(cursor)


def chunk_sizes_of(connection: sqlite3.Connection, document_id: int) -> list[tuple[int, int]]:
    """(id, sentence count) of a document's chunks."""
    return connection.execute("SELECT id, sentence_count FROM chunks WHERE document_id = ?", (document_id,)).fetchall()


def delete_document(connection: sqlite3.Connection, document_id: int) -> None:
    """Delete a document and its chunks."""
    connection.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,))
    connection.execute("DELETE FROM documents WHERE id = ?", (document_id,))


def chunk_batches(connection: sqlite3.Connection, size: int) -> Iterator[ChunkBatch]:
    """Every chunk in id order, `size` at a time: ids, texts, sentence texts of each, first sentence rows."""
    last = -1
    while True:
        rows = connection.execute(
            "SELECT id, text, sentence_spans, sentence_row FROM chunks WHERE id > ? ORDER BY id LIMIT ?", (last, size)
        ).fetchall()
        if not rows:
            return
        last = rows[-1][0]
        yield ChunkBatch(
            ids=[row[0] for row in rows], texts=[row[1] for row in rows],
            sentences=[[text[start:end] for start, end in json.loads(spans)] for _, text, spans, _ in rows],
            rows=[row[3] for row in rows],
        )


def clear_sentence_rows(connection: sqlite3.Connection) -> None:
    """Forget where a format-1 index kept each chunk's sentence vectors."""
    connection.execute("UPDATE chunks SET sentence_row = 0")


def chunk_texts(connection: sqlite3.Connection) -> tuple[list[int], list[str]]:
    """Ids and texts of every chunk, in chunk id order."""
    rows = connection.execute("SELECT id, text FROM chunks ORDER BY id").fetchall()
    return [row[0] for row in rows], [row[1] for row in rows]


def counts(connection: sqlite3.Connection) -> tuple[int, int, int]:
    """Numbers of documents, chunks and sentences."""
    documents = connection.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
    chunks, sentences = connection.execute("SELECT COUNT(*), COALESCE(SUM(sentence_count), 0) FROM chunks").fetchone()
    return int(documents), int(chunks), int(sentences)


def fetch_chunks(connection: sqlite3.Connection, ids: Sequence[int]) -> dict[int, ChunkRecord]:
    """The chunks with the given ids, keyed by id."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = connection.execute(
        "SELECT c.id, d.path, d.title, c.chunk_index, c.start_char, c.end_char, c.text, c.sentence_row,"
        " c.sentence_count, c.sentence_spans FROM chunks c JOIN documents d ON d.id = c.document_id"
        f" WHERE c.id IN ({marks})",
        [int(i) for i in ids],
    ).fetchall()
    records: dict[int, ChunkRecord] = {}
    for chunk_id, path, title, index, start, end, text, sentence_row, sentence_count, spans_json in rows:
        spans = tuple((int(first), int(last)) for first, last in json.loads(spans_json))
        records[chunk_id] = ChunkRecord(chunk_id, path, title, index, start, end, text, sentence_row, sentence_count,
                                        spans)
    return records
