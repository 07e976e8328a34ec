"""The read side: one loaded generation answering hybrid (dense + BM25) searches."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from veracity.contracts import SearchHit
from veracity.kb import metadata
from veracity.kb.fusion import reciprocal_rank_fusion
from veracity.kb.generation import (
    check_counts,
    load_dense,
    load_sentences,
    open_metadata,
    verify,
)
from veracity.kb.lexical import LexicalIndex
from veracity.kb.manifest import Manifest
from veracity.kb.paths import unusable
from veracity.kb.vectors import normalised
from veracity.offline.sentences import split_sentences

CANDIDATES = 50
"""Each ranking contributes at least this many candidates to the fusion (more for large limits)."""


class IndexReader:
    """A loaded, read-only generation: FAISS, BM25, memory-mapped sentence vectors and SQLite metadata.

    Safe to search from several threads at once.
    """

    def __init__(self, kb: Path, manifest: Manifest) -> None:
        self.kb = kb
        self.manifest = manifest
        files = manifest.files(kb)
        verify(kb, manifest)
        self._db = open_metadata(kb, files, readonly=True)
        self._db_lock = threading.Lock()
        try:
            check_counts(kb, self._db, manifest)
            self._dense = load_dense(kb, manifest)
            self._sentences = load_sentences(kb, manifest)
            self._lexical = None
            if manifest.chunks:
                try:
                    self._lexical = LexicalIndex(files.lexical, files.lexical_ids)
                except Exception as exc:  # bm25s raises assorted errors on damaged files
                    raise unusable(kb, f"the BM25 index cannot be loaded ({exc})") from exc
        except BaseException:
            self._db.close()
            raise

    def close(self) -> None:
        """Release the metadata connection."""
        self._db.close()

    def rank(self, query: str, query_vector: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """(chunk id, fused score) of the best `limit` chunks for a query and its embedding."""
        pool = min(self.manifest.chunks, max(CANDIDATES, 5 * limit))
        if pool == 0:
            return []
        _, found = self._dense.search(np.asarray(query_vector, dtype=np.float32).reshape(1, -1), pool)
        dense = [int(chunk_id) for chunk_id in found[0] if chunk_id >= 0]
        lexical = self._lexical.search(query, pool) if self._lexical is not None else []
        return reciprocal_rank_fusion([dense, lexical])[:limit]

    def chunks(self, ids: list[int]) -> dict[int, metadata.ChunkRecord]:
        """Chunk records by id."""
        with self._db_lock:
            return metadata.fetch_chunks(self._db, ids)

    def sentence_vectors(self, record: metadata.ChunkRecord) -> np.ndarray:
        """A chunk's sentence vectors as unit-length float32 rows."""
        return normalised(self._sentences[record.sentence_row:record.sentence_row + record.sentence_count])

    def documents(self) -> list[metadata.DocumentInfo]:
        """Every document, ordered by path."""
        with self._db_lock:
            return metadata.list_documents(self._db)

    def hits(self, ranked: list[tuple[int, float]]) -> tuple[list[SearchHit], list[str], list[np.ndarray]]:
        """Search hits for ranked chunk ids, with the sentence texts and vectors of those chunks.

        The texts are what `split_sentences` gives for each chunk now; a chunk indexed with a
        splitter that cut it differently contributes no vectors (they would not be looked up).
        """
        records = self.chunks([chunk_id for chunk_id, _ in ranked])
        hits: list[SearchHit] = []
        texts: list[str] = []
        vectors: list[NDArray[np.float16]] = []
        for chunk_id, score in ranked:
            record = records.get(chunk_id)
            if record is None:
                continue
            hits.append(SearchHit(title=record.title, url=record.path, text=record.text, score=score))
            sentences = split_sentences(record.text)
            if tuple((s.start, s.end) for s in sentences) == record.sentence_spans:
                texts.extend(s.text for s in sentences)
                vectors.append(self.sentence_vectors(record))
        return hits, texts, vectors
