"""Vector helpers: a chunk's dense vectors and their ids, normalisation, and format-1 sentence vector files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

STORED_DTYPE = np.float16
"""Sentence vectors are stored at half precision: half the disk, and well within the judge's tolerance."""


SENTENCE_ID_BITS = 16
"""A dense id is the chunk id shifted left by this many bits, plus the sentence's place in the chunk."""


def dense_ids(chunk_id: int, vectors: int) -> list[int]:
    """The dense ids of a chunk's `vectors` sentence vectors."""
    return [(chunk_id << SENTENCE_ID_BITS) | place for place in range(min(vectors, 1 << SENTENCE_ID_BITS))]


def chunk_of(dense_id: int) -> int:
    """The chunk a dense id belongs to."""
    return dense_id >> SENTENCE_ID_BITS


def vector_count(sentences: int) -> int:
    """How many dense vectors a chunk of `sentences` sentences has (a chunk without any has one, of its text)."""
    return min(max(sentences, 1), 1 << SENTENCE_ID_BITS)


def dense_texts(chunk_text: str, sentences: Sequence[str]) -> list[str]:
    """The texts a chunk's dense vectors are made of: its sentences (its whole text if it has none)."""
    return list(sentences[:vector_count(len(sentences))]) if sentences else [chunk_text]


class ChunkEmbedder(Protocol):
    """What ranking needs of an embedder: a unit vector per sentence (the static one, `offline/model/static.py`)."""

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One vector per text."""
        ...


def embed_on_threads(embedder: ChunkEmbedder, texts: Sequence[str], threads: int) -> NDArray[np.float32]:
    """`embedder.embed(texts)`, with the texts dealt into `threads` parts embedded side by side.

    For an embedder whose model runs on one core per call (the default MiniLM session) and a call
    large enough to keep several busy: a chunk's first retrieval embeds all its sentences, some
    hundreds for a handbook's chunks. Each text's vector is what one call would give it (the model
    reads each text on its own; padding is masked).
    """
    from concurrent.futures import ThreadPoolExecutor

    threads = max(1, min(threads, len(texts)))
    if threads == 1:
        return embedder.embed(texts)
    parts = [list(texts[start::threads]) for start in range(threads)]  # dealt, so each part gets long and short
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="veracity-embed") as pool:
        embedded = list(pool.map(embedder.embed, parts))
    vectors = np.empty((len(texts), embedded[0].shape[1]), dtype=np.float32)
    for start, part in enumerate(embedded):
        vectors[start::threads] = part
    return vectors


def embed_dense(embedder: ChunkEmbedder, chunks: Sequence[tuple[str, Sequence[str]]]) -> list[NDArray[np.float32]]:
    """Each chunk's dense vectors, given (chunk text, its sentences), all embedded in one call."""
    texts = [dense_texts(text, sentences) for text, sentences in chunks]
    vectors = embedder.embed([text for chunk in texts for text in chunk])
    bounds = np.cumsum([0, *(len(chunk) for chunk in texts)])
    return [vectors[start:end] for start, end in zip(bounds[:-1], bounds[1:], strict=True)]


def normalised(vectors: NDArray[np.floating[Any]]) -> NDArray[np.float32]:
    """Stored vectors back as unit-length float32 rows."""
    rows = np.asarray(vectors, dtype=np.float32)
    unit: NDArray[np.float32] = rows / np.clip(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12, None)
    return unit


def read_sentences(path: Path) -> NDArray[np.float16]:
    """Memory-map a format-1 sentence vector file."""
    mapped: NDArray[np.float16] = np.load(path, mmap_mode="r", allow_pickle=False)
    return mapped
