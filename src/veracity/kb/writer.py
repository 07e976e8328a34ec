"""Write the next generation of the index: copy the current one, apply changes, then switch the manifest.

Nothing the current generation holds is modified, so readers keep working while a builder runs,
and an ingest that fails or is interrupted leaves the knowledge base exactly as it was. The new
generation is written in a `.partial` folder, renamed when complete: one killed part-way is
never taken for a knowledge base (see `manifest.py`).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from veracity.kb import metadata
from veracity.kb.checksums import record_files
from veracity.kb.chunking import Chunk, ChunkSettings
from veracity.kb.generation import (
    check_counts,
    load_dense,
    load_sentences,
    open_metadata,
    verify_contents,
)
from veracity.kb.lexical import build_lexical
from veracity.kb.manifest import (
    FORMAT_VERSION,
    GENERATION_PREFIX,
    PARTIAL_SUFFIX,
    TEMPORARY_PREFIX,
    TOKEN_COUNT,
    GenerationFiles,
    Manifest,
    utc_now,
    write_manifest,
)
from veracity.kb.paths import unusable
from veracity.kb.vectors import SentenceSpool, write_sentences


def _sync_files(folder: Path) -> None:
    """Flush every file of a new generation to disk before the manifest points at it."""
    for path in folder.rglob("*"):
        if path.is_file():
            with open(path, "rb+") as handle:
                os.fsync(handle.fileno())


class GenerationBuilder:
    """Builds a new generation from `previous` (or from nothing); `commit` makes it current.

    Documents are written one at a time between `open_document` and `close_document` (or
    `discard_document`, which undoes everything since `open_document`).
    """

    def __init__(self, kb: Path, previous: Manifest | None, settings: ChunkSettings, *, model_id: str,
                 dimensions: int) -> None:
        import faiss

        self.kb = kb
        self.previous = previous
        self.settings = settings
        self.model_id = model_id
        self.dimensions = dimensions
        self.changed = False
        self._committed = False
        self._generation = f"{GENERATION_PREFIX}{uuid.uuid4().hex[:12]}"
        self.files = GenerationFiles(kb / f"{self._generation}{PARTIAL_SUFFIX}")  # renamed by `commit`
        self.files.folder.mkdir(parents=True)
        self._open: tuple[int, list[int], list[int]] | None = None  # document id, old chunk ids, new chunk ids
        # Dense ids of deleted chunks, removed in one pass by `commit`: each removal scans the whole index.
        self._stale: list[int] = []
        try:
            if previous is None:
                self._old_sentences = np.zeros((0, dimensions), dtype=np.float16)
                self._dense: faiss.Index = faiss.IndexIDMap2(faiss.IndexFlatIP(dimensions))
            else:
                verify_contents(kb, previous)  # never carry damage forward into the next generation
                self._old_sentences = load_sentences(kb, previous)
                self._dense = load_dense(kb, previous)
                try:
                    metadata.copy_database(previous.files(kb).meta, self.files.meta)
                except sqlite3.Error as exc:
                    meta = previous.files(kb).meta.relative_to(kb)
                    raise unusable(kb, f"{meta} is not a usable SQLite database ({exc})") from exc
            self._db = open_metadata(kb, self.files, readonly=False)
            if previous is not None:
                check_counts(kb, self._db, previous)
            self._db.execute("BEGIN")
            self._spool = SentenceSpool(self.files.spool, dimensions)
        except BaseException:
            if hasattr(self, "_db"):
                self._db.close()
            shutil.rmtree(self.files.folder, ignore_errors=True)
            raise

    # ------------------------------------------------------------------ reading

    def find(self, path: str) -> tuple[int, metadata.DocumentInfo] | None:
        """The document stored under `path`, if any."""
        return metadata.find_document(self._db, path)

    def stored_sentences(self, document_id: int) -> dict[str, np.ndarray]:
        """The sentence vectors of a document of the previous generation by text (float16 rows, read when used)."""
        old_rows = self._old_sentences.shape[0]
        vectors: dict[str, np.ndarray] = {}
        for sentences, row in metadata.sentences_of(self._db, document_id):
            if row + len(sentences) <= old_rows:  # rows beyond are this ingest's own, still in the spool
                vectors.update((text, self._old_sentences[row + offset]) for offset, text in enumerate(sentences))
        return vectors

    def matching(self, exact: str, prefix: str | None) -> list[tuple[int, str]]:
        """(id, path) of documents at `exact` or under `prefix`."""
        return metadata.documents_matching(self._db, exact, prefix)

    # ------------------------------------------------------------------ writing

    def open_document(self, path: str, *, sha256: str, size: int, mtime: float | None) -> int:
        """Start (re)writing the document at `path`; its previous version goes when the document is closed."""
        if self._open is not None:
            raise RuntimeError("a document is already open")
        self._db.execute("SAVEPOINT document")
        old_ids: list[int] = []
        if (existing := self.find(path)) is not None:
            old_ids = metadata.chunk_ids_of(self._db, existing[0])
            metadata.delete_document(self._db, existing[0])
        document_id = metadata.insert_document(self._db, path, sha256=sha256, size=size, mtime=mtime,
                                               ingested_at=utc_now())
        self._open = (document_id, old_ids, [])
        return document_id

    def add_chunks(self, chunks: Sequence[Chunk], spans: Sequence[Sequence[tuple[int, int]]],
                   sentence_vectors: Sequence[np.ndarray], chunk_vectors: np.ndarray) -> None:
        """Add chunks of the open document with their sentence spans and vectors."""
        document_id, _, new_ids = self._require_open()
        for chunk, chunk_spans, vectors in zip(chunks, spans, sentence_vectors, strict=True):
            row = self._old_sentences.shape[0] + self._spool.append(vectors)
            new_ids.append(metadata.insert_chunk(
                self._db, document_id, index=chunk.index, start=chunk.start, end=chunk.end, text=chunk.text,
                sentence_row=row, sentence_spans=chunk_spans,
            ))
        ids = np.asarray(new_ids[-len(chunks):], dtype=np.int64)
        self._dense.add_with_ids(np.asarray(chunk_vectors, dtype=np.float32), ids)

    def close_document(self, *, title: str, chunks: int, notes: Sequence[str]) -> None:
        """Keep the open document; its previous version, if any, is dropped."""
        document_id, old_ids, _ = self._require_open()
        metadata.finish_document(self._db, document_id, title=title, chunks=chunks, notes=notes)
        self._db.execute("RELEASE document")
        self._stale.extend(old_ids)
        self._open = None
        self.changed = True

    def discard_document(self) -> None:
        """Undo everything since `open_document`: the previous version, if any, stays."""
        _, _, new_ids = self._require_open()
        self._db.execute("ROLLBACK TO document")
        self._db.execute("RELEASE document")
        # Now, not at commit: the rollback hands these ids out again to the next chunks added.
        self._remove_dense(new_ids)
        self._open = None  # its spooled sentence rows are unreferenced and dropped by `commit`

    def remove(self, document_id: int) -> None:
        """Remove a document and its chunks."""
        self._stale.extend(metadata.chunk_ids_of(self._db, document_id))
        metadata.delete_document(self._db, document_id)
        self.changed = True

    def _require_open(self) -> tuple[int, list[int], list[int]]:
        if self._open is None:
            raise RuntimeError("no document is open")
        return self._open

    def _remove_dense(self, ids: list[int]) -> None:
        if ids:
            # faiss's Python wrapper takes an id array here; its stubs list only IDSelector
            self._dense.remove_ids(np.asarray(ids, dtype=np.int64))  # type: ignore[arg-type]

    # ------------------------------------------------------------------ finishing

    def _sentence_segments(self, spooled: np.ndarray, layout: list[tuple[int, int, int]]) -> Iterator[np.ndarray]:
        """The sentence rows of every remaining chunk in chunk id order, merged into contiguous runs."""
        old_rows = self._old_sentences.shape[0]
        run: tuple[int, int] | None = None
        for _, row, count in layout:
            if run is not None and row == run[1] and (row < old_rows) == (run[0] < old_rows):
                run = (run[0], run[1] + count)
                continue
            if run is not None:
                yield self._rows(spooled, *run)
            run = (row, row + count)
        if run is not None:
            yield self._rows(spooled, *run)

    def _rows(self, spooled: np.ndarray, start: int, end: int) -> np.ndarray:
        old_rows = self._old_sentences.shape[0]
        if start < old_rows:
            return self._old_sentences[start:end]
        return spooled[start - old_rows:end - old_rows]

    def commit(self) -> Manifest:
        """Write the remaining files, switch the manifest to the new generation, and delete older ones."""
        import faiss

        if self._open is not None:
            raise RuntimeError("close or discard the open document first")
        spooled = self._spool.finish()
        layout = metadata.sentence_layout(self._db)
        total = sum(count for _, _, count in layout)
        write_sentences(self.files.sentences, total, self.dimensions, self._sentence_segments(spooled, layout))
        del spooled
        self.files.spool.unlink()
        new_rows, position = [], 0
        for chunk_id, _, count in layout:
            new_rows.append((position, chunk_id))
            position += count
        metadata.set_sentence_rows(self._db, new_rows)
        self._db.execute("COMMIT")
        chunk_ids, texts = metadata.chunk_texts(self._db)
        if chunk_ids:
            build_lexical(self.files.lexical, self.files.lexical_ids, chunk_ids, texts)
        documents, chunks, sentences = metadata.counts(self._db)
        self._db.close()
        self._remove_dense(self._stale)
        faiss.write_index(self._dense, str(self.files.dense))
        _sync_files(self.files.folder)
        records = record_files(self.files.folder)
        complete = GenerationFiles(self.kb / self._generation)
        self.files.folder.rename(complete.folder)
        self.files = complete
        now = utc_now()
        manifest = Manifest(
            format_version=FORMAT_VERSION, model_id=self.model_id, dimensions=self.dimensions,
            chunk_tokens=self.settings.chunk_tokens, overlap_tokens=self.settings.overlap_tokens,
            token_count=TOKEN_COUNT, generation=self.files.folder.name, documents=documents, chunks=chunks,
            sentences=sentences, created_at=self.previous.created_at if self.previous else now, updated_at=now,
            checksums=records,
        )
        write_manifest(self.kb, manifest)
        self._committed = True
        self._delete_other_generations()
        return manifest

    def abort(self) -> None:
        """Drop the new generation; the current one stays as it was."""
        if self._committed:
            return
        self._spool.close()
        self._db.close()
        shutil.rmtree(self.files.folder, ignore_errors=True)

    def _delete_other_generations(self) -> None:
        # Readers on Windows may still hold old files open; what cannot be deleted now goes next time.
        for entry in self.kb.iterdir():
            if entry.name.startswith(GENERATION_PREFIX) and entry != self.files.folder and entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            elif entry.name.startswith(TEMPORARY_PREFIX) and entry.suffix == ".tmp":
                entry.unlink(missing_ok=True)
