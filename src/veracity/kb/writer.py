"""Write the next generation of the index: copy the current one, apply changes, then switch the manifest.

Nothing the current generation holds is modified, so readers keep working while a builder runs,
and an ingest that fails or is interrupted leaves the knowledge base exactly as it was. The new
generation is written in a `.partial` folder, renamed when complete: one killed part-way is
never taken for a knowledge base (see `manifest.py`). A builder over a format-1 generation
migrates it: every chunk gets static sentence vectors, and its stored MiniLM sentence vectors
move to the sentence store, so nothing is embedded again.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

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
from veracity.kb.sentence_store import SentenceVectorStore
from veracity.kb.vectors import ChunkEmbedder, dense_ids, embed_dense, normalised, vector_count

if TYPE_CHECKING:
    import faiss

MIGRATION_BATCH = 512
"""Chunks re-embedded (and sentence rows moved) per step when a format-1 index is migrated."""


def new_dense_index(dimensions: int) -> faiss.Index:
    """An empty dense index under our own ids: inner products over vectors kept at half precision.

    Half the memory of float32, and faster to scan (one vector per sentence makes it large).
    """
    import faiss

    flat = faiss.IndexScalarQuantizer(dimensions, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT)
    return faiss.IndexIDMap2(flat)


def _add_dense(index: faiss.Index, chunk_ids: Sequence[int], vectors: Sequence[np.ndarray]) -> list[int]:
    """Add each chunk's dense vectors to `index` under their dense ids; return the ids."""
    ids = [dense_id for chunk_id, rows in zip(chunk_ids, vectors, strict=True)
           for dense_id in dense_ids(chunk_id, len(rows))]
    if ids:
        index.add_with_ids(np.concatenate(vectors).astype(np.float32), np.asarray(ids, dtype=np.int64))
    return ids


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
                 dimensions: int, chunk_embedder: ChunkEmbedder, sentence_store: SentenceVectorStore) -> None:

        self.kb = kb
        self.previous = previous
        self.settings = settings
        self.model_id = model_id
        self.dimensions = dimensions
        self.chunk_embedder = chunk_embedder
        self.changed = False
        self.migrated = False
        """True when `previous` was a format-1 index, rewritten in the current format by this builder."""
        self._committed = False
        self._generation = f"{GENERATION_PREFIX}{uuid.uuid4().hex[:12]}"
        self.files = GenerationFiles(kb / f"{self._generation}{PARTIAL_SUFFIX}")  # renamed by `commit`
        self.files.folder.mkdir(parents=True)
        self._open: tuple[int, list[int], list[int]] | None = None  # document id, old dense ids, new chunk ids
        self._new_dense: list[int] = []  # dense ids of the open document's new chunks
        # Dense ids of deleted chunks, removed in one pass by `commit`: each removal scans the whole index.
        self._stale: list[int] = []
        try:
            if previous is None:
                self._dense: faiss.Index = new_dense_index(dimensions)
            else:
                verify_contents(kb, previous)  # never carry damage forward into the next generation
                if not previous.legacy:
                    self._dense = load_dense(kb, previous)
                try:
                    metadata.copy_database(previous.files(kb).meta, self.files.meta)
                except sqlite3.Error as exc:
                    meta = previous.files(kb).meta.relative_to(kb)
                    raise unusable(kb, f"{meta} is not a usable SQLite database ({exc})") from exc
            self._db = open_metadata(kb, self.files, readonly=False)
            if previous is not None:
                check_counts(kb, self._db, previous)
                if previous.legacy:
                    self._dense = self._migrate(previous, sentence_store)
            self._db.execute("BEGIN")
        except BaseException:
            if hasattr(self, "_db"):
                self._db.close()
            shutil.rmtree(self.files.folder, ignore_errors=True)
            raise

    def _migrate(self, previous: Manifest, sentence_store: SentenceVectorStore) -> faiss.Index:
        """Rewrite a format-1 index: static sentence vectors for ranking, its MiniLM ones moved to the store."""
        dense = new_dense_index(self.dimensions)
        old_sentences = load_sentences(self.kb, previous)
        for batch in metadata.chunk_batches(self._db, MIGRATION_BATCH):
            vectors = embed_dense(self.chunk_embedder, list(zip(batch.texts, batch.sentences, strict=True)))
            _add_dense(dense, batch.ids, vectors)
            stored = [old_sentences[row:row + len(chunk)] for chunk, row in zip(batch.sentences, batch.rows,
                                                                                 strict=True)]
            sentence_store.store([text for chunk in batch.sentences for text in chunk],
                                 normalised(np.concatenate(stored)))
        metadata.clear_sentence_rows(self._db)
        self._db.commit()
        self.migrated = self.changed = True
        return dense

    # ------------------------------------------------------------------ reading

    def find(self, path: str) -> tuple[int, metadata.DocumentInfo] | None:
        """The document stored under `path`, if any."""
        return metadata.find_document(self._db, path)

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
            old_ids = self._dense_ids_of(existing[0])
            metadata.delete_document(self._db, existing[0])
        document_id = metadata.insert_document(self._db, path, sha256=sha256, size=size, mtime=mtime,
                                               ingested_at=utc_now())
        self._open = (document_id, old_ids, [])
        self._new_dense = []
        return document_id

    def add_chunks(self, chunks: Sequence[Chunk], spans: Sequence[Sequence[tuple[int, int]]],
                   vectors: Sequence[np.ndarray]) -> None:
        """Add chunks of the open document with their sentence spans and dense vectors (see `embed_dense`)."""
        document_id, _, new_ids = self._require_open()
        for chunk, chunk_spans, chunk_vectors in zip(chunks, spans, vectors, strict=True):
            chunk_id = metadata.insert_chunk(
                self._db, document_id, index=chunk.index, start=chunk.start, end=chunk.end, text=chunk.text,
                sentence_row=0, sentence_spans=chunk_spans,
            )
            new_ids.append(chunk_id)
            self._new_dense.extend(_add_dense(self._dense, [chunk_id], [chunk_vectors]))

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
        self._require_open()
        self._db.execute("ROLLBACK TO document")
        self._db.execute("RELEASE document")
        # Now, not at commit: the rollback hands these ids out again to the next chunks added.
        self._remove_dense(self._new_dense)
        self._open = None

    def remove(self, document_id: int) -> None:
        """Remove a document and its chunks."""
        self._stale.extend(self._dense_ids_of(document_id))
        metadata.delete_document(self._db, document_id)
        self.changed = True

    def _dense_ids_of(self, document_id: int) -> list[int]:
        return [dense_id for chunk_id, sentences in metadata.chunk_sizes_of(self._db, document_id)
                for dense_id in dense_ids(chunk_id, vector_count(sentences))]

    def _require_open(self) -> tuple[int, list[int], list[int]]:
        if self._open is None:
            raise RuntimeError("no document is open")
        return self._open

    def _remove_dense(self, ids: list[int]) -> None:
        if ids:
            # faiss's Python wrapper takes an id array here; its stubs list only IDSelector
            self._dense.remove_ids(np.asarray(ids, dtype=np.int64))  # type: ignore[arg-type]

    # ------------------------------------------------------------------ finishing

    def commit(self) -> Manifest:
        """Write the remaining files, switch the manifest to the new generation, and delete older ones."""
        import faiss

        if self._open is not None:
            raise RuntimeError("close or discard the open document first")
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
        self._db.close()
        shutil.rmtree(self.files.folder, ignore_errors=True)

    def _delete_other_generations(self) -> None:
        # Readers on Windows may still hold old files open; what cannot be deleted now goes next time.
        for entry in self.kb.iterdir():
            if entry.name.startswith(GENERATION_PREFIX) and entry != self.files.folder and entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            elif entry.name.startswith(TEMPORARY_PREFIX) and entry.suffix == ".tmp":
                entry.unlink(missing_ok=True)
