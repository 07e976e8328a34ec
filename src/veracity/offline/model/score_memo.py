"""`ScoreMemo`: a bounded, thread-safe memory of the entailment model's scores, one row per (premise, hypothesis).

A server sees the same source and much the same answers again and again, so the same passage is
scored against the same claim many times. The model's scores do not depend on what else is in a
batch (each pair is masked from the others; the tests check it), so a remembered row is the row
the model would compute again, and a verdict reached from memory is the verdict reached without it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from veracity.bounded_memory import BoundedMemory

DEFAULT_SCORES_REMEMBERED = 32_768
"""Rows a memo keeps by default: about a thousand five-claim checks, a few MiB."""


def pair_key(premise: str, hypothesis: str) -> bytes:
    """A 16-byte digest of the pair (the texts are not kept)."""
    first = premise.encode("utf-8")
    digest = hashlib.blake2b(len(first).to_bytes(8, "little"), digest_size=16)  # ("ab", "c") is not ("a", "bc")
    digest.update(first)
    digest.update(hypothesis.encode("utf-8"))
    return digest.digest()


class ScoreMemo:
    """The last `size` rows of scores, least recently used forgotten first; `size` 0 keeps none."""

    def __init__(self, size: int = DEFAULT_SCORES_REMEMBERED) -> None:
        """An empty memo for at most `size` rows."""
        self._rows: BoundedMemory[bytes, bytes] = BoundedMemory(size)

    @property
    def size(self) -> int:
        """The most rows kept."""
        return self._rows.size

    @property
    def reused(self) -> int:
        """How many rows were answered from memory (for tests and benchmarks)."""
        return self._rows.hits

    def __len__(self) -> int:
        """How many rows are remembered now."""
        return len(self._rows)

    def recall(self, keys: Sequence[bytes], width: int) -> list[NDArray[np.float32] | None]:
        """The remembered row of each key (float32, `width` values), or None."""
        return [None if row is None else np.frombuffer(row, dtype=np.float32, count=width)
                for row in self._rows.get_many(keys)]

    def keep(self, keys: Sequence[bytes], rows: NDArray[np.float32]) -> None:
        """Remember `rows` (one per key), forgetting the least recently used past the size."""
        self._rows.put_many((key, np.ascontiguousarray(row, dtype=np.float32).tobytes())
                            for key, row in zip(keys, rows, strict=True))
