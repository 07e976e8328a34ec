"""The read side: one loaded generation answering hybrid (dense + BM25) searches."""

from __future__ import annotations

import threading
from collections.abc import Collection
from dataclasses import dataclass
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
    verify_changed,
)
from veracity.kb.lexical import LexicalIndex
from veracity.kb.manifest import Manifest
from veracity.kb.mapped import MappedFiles
from veracity.kb.paths import unusable
from veracity.kb.vectors import chunk_of, normalised
from veracity.sentences import split_sentences


@dataclass(frozen=True)
class Candidate:
    """A chunk found by the first stage: its id, hit, sentences, and their stored vectors if the index has them."""

    chunk_id: int
    hit: SearchHit
    sentences: list[str]
    stored: NDArray[np.float32] | None


@dataclass(frozen=True)
class Ranking:
    """The first stage's answer: the best chunks by fused score, and the BM25 ranking that went into it."""

    fused: list[tuple[int, float]]
    """(chunk id, fused score), best first."""
    lexical: list[int]
    """Chunk ids by BM25 score, best first; chunks sharing no term with the query are not in it."""


CANDIDATES = 50
"""Each ranking contributes at least this many candidates to the fusion (more for large limits)."""

SENTENCES_PER_CANDIDATE = 8
"""A current index holds one vector per sentence: this many are read per chunk wanted, since a
chunk's best sentence ranks it and its others repeat it."""


class IndexReader:
    """A loaded, read-only generation: FAISS, BM25, SQLite metadata (and a format-1 index's sentence vectors).

    Safe to search from several threads at once. The files it memory-maps are checked before
    they are mapped, and `mapped` tells whether they changed on disk since (see `mapped.py`).
    """

    def __init__(self, kb: Path, manifest: Manifest, *, changed: Collection[str] = ()) -> None:
        """Check and open the current generation; `changed` names its files seen to change while in use, hashed now."""
        self.kb = kb
        self.manifest = manifest
        files = manifest.files(kb)
        mapped = [files.dense.name, *([files.sentences.name] if manifest.legacy else [])]
        self.mapped = MappedFiles.taken(files.folder, mapped)
        verify(kb, manifest)
        verify_changed(kb, manifest, changed)
        self._db = open_metadata(kb, files, readonly=True)
        self._db_lock = threading.Lock()
        try:
            check_counts(kb, self._db, manifest)
            self._dense = load_dense(kb, manifest, mapped=True)
            self._sentences = load_sentences(kb, manifest) if manifest.legacy else None
            self._lexical = None
            if manifest.chunks:
                try:
                    self._lexical = LexicalIndex(files.lexical, files.lexical_ids)
                except Exception as exc:  # bm25s raises assorted errors on damaged files
                    raise unusable(kb, f"the BM25 index cannot be loaded ({exc})") from exc
            if moved := self.mapped.changed():  # written to between the check and the mapping: hash them now
                settled = MappedFiles.taken(files.folder, mapped)
                verify_changed(kb, manifest, moved)
                if settled.changed():
                    raise unusable(kb, f"{', '.join(settled.describe(name) for name in settled.changed())} "
                                       f"in {files.folder.name} while it was being opened")
                self.mapped = settled
        except BaseException:
            self._db.close()
            raise

    def close(self) -> None:
        """Release the metadata connection."""
        self._db.close()

    def rank(self, text: str, query_vector: np.ndarray, limit: int) -> Ranking:
        """The best `limit` chunks for a query and its embedding: dense and BM25 rankings fused."""
        pool = min(self.manifest.chunks, max(CANDIDATES, 5 * limit))
        if pool == 0:
            return Ranking([], [])
        query = np.asarray(query_vector, dtype=np.float32).reshape(1, -1)
        if self.manifest.legacy:
            _, found = self._dense.search(query, pool)
            dense = [int(chunk_id) for chunk_id in found[0] if chunk_id >= 0]
        else:
            _, found = self._dense.search(query, min(self._dense.ntotal, pool * SENTENCES_PER_CANDIDATE))
            dense = list(dict.fromkeys(chunk_of(int(dense_id)) for dense_id in found[0] if dense_id >= 0))[:pool]
        lexical = self._lexical.search(text, pool) if self._lexical is not None else []
        return Ranking(reciprocal_rank_fusion([dense, lexical])[:limit], lexical)

    def chunks(self, ids: list[int]) -> dict[int, metadata.ChunkRecord]:
        """Chunk records by id."""
        with self._db_lock:
            return metadata.fetch_chunks(self._db, ids)

    def sentence_vectors(self, record: metadata.ChunkRecord) -> np.ndarray | None:
        """A chunk's stored sentence vectors as unit-length float32 rows; None unless the index is format 1."""
        if self._sentences is None:
            return None
        return normalised(self._sentences[record.sentence_row:record.sentence_row + record.sentence_count])

    def documents(self) -> list[metadata.DocumentInfo]:
        """Every document, ordered by path."""
        with self._db_lock:
            return metadata.list_documents(self._db)

    def candidates(self, ranked: list[tuple[int, float]]) -> list[Candidate]:
        """The ranked chunks as search hits, each with its sentence texts and (format 1) their stored vectors.

        The texts are what `split_sentences` gives for each chunk now, as the judge will split it.
        A format-1 chunk that its splitter cut differently has no usable stored vectors.
        """
        records = self.chunks([chunk_id for chunk_id, _ in ranked])
        found: list[Candidate] = []
        for chunk_id, score in ranked:
            record = records.get(chunk_id)
            if record is None:
                continue
            sentences = split_sentences(record.text)
            stored = self.sentence_vectors(record)
            if stored is not None and tuple((s.start, s.end) for s in sentences) != record.sentence_spans:
                stored = None
            hit = SearchHit(title=record.title, url=record.path, text=record.text, score=score)
            found.append(Candidate(chunk_id, hit, [s.text for s in sentences], stored))
        return found
