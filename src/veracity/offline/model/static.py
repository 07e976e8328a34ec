"""Static sentence vectors distilled from the MiniLM embedder: the knowledge base's first-stage vectors.

A sentence's vector is the mean of its tokens' rows in a table, mapped by a fitted linear
projection into the MiniLM space and normalised (both made by `training/distill_static.py`).
That is a lookup and a small matrix product, hundreds of times cheaper than a transformer run,
and close enough to MiniLM that a MiniLM query vector can rank them beside BM25. The judge
still reads real MiniLM sentence vectors.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from importlib import resources

import numpy as np
from numpy.typing import NDArray

STATIC_MODEL_ID = "all-MiniLM-L6-v2-static-projected"
"""Identifies the table and projection; stored in indexes built with them."""

STATIC_DIMENSIONS = 384
"""The vectors live in the MiniLM space, so they have its dimensions."""


class StaticEmbedder:
    """Embeds sentences as the projected, normalised mean of their tokens' rows."""

    def __init__(self) -> None:
        """Load the token table (float16, vocabulary x 256), the projection and the MiniLM tokenizer."""
        from tokenizers import Tokenizer

        assets = resources.files("veracity.offline").joinpath("assets")
        with assets.joinpath("static/tokens.npy").open("rb") as handle:
            self._table: NDArray[np.float16] = np.load(handle, allow_pickle=False)
        with assets.joinpath("static/projection.npy").open("rb") as handle:
            projection: NDArray[np.float32] = np.load(handle, allow_pickle=False)
        self._weights, self._bias = projection[:-1], projection[-1]
        self._tokenizer = Tokenizer.from_str(assets.joinpath("minilm-tokenizer.json").read_text(encoding="utf-8"))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One unit-length float32 vector per text (shape: len(texts) x 384)."""
        means = np.zeros((len(texts), self._table.shape[1]), dtype=np.float32)
        for row, encoding in enumerate(self._tokenizer.encode_batch(list(texts), add_special_tokens=False)):
            if encoding.ids:
                means[row] = self._table[encoding.ids].mean(axis=0, dtype=np.float32)
        vectors: NDArray[np.float32] = means @ self._weights + self._bias
        vectors /= np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
        return vectors


_lock = threading.Lock()


def default_static_embedder() -> StaticEmbedder:
    """The process-wide static embedder, loaded on first use (about 0.1 s)."""
    with _lock:
        return _load()


@functools.lru_cache(maxsize=1)
def _load() -> StaticEmbedder:
    return StaticEmbedder()
