"""A large first touch is embedded on several threads, and each sentence gets the vector one call gives it."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

import veracity.kb.store
from tests.unit.kb_fixtures import write
from veracity.kb import KnowledgeBase
from veracity.kb.vectors import embed_on_threads
from veracity.offline.model.embedder import Embedder

SENTENCES = [
    f"Platform {n} serves the {['northbound', 'southbound', 'airport', 'harbour'][n % 4]} trains"
    + (" on weekdays only, except during the summer timetable when it also opens on Saturdays." if n % 3 else ".")
    for n in range(90)
]


class _Recording:
    """Delegates to a real embedder and notes the thread of every call."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.threads: list[str] = []
        self.cache = inner.cache

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.threads.append(threading.current_thread().name)
        return self.inner.embed(texts)

    def prime(self, texts: Sequence[str], vectors: NDArray[np.float32]) -> None:
        self.inner.prime(texts, vectors)


def test_vectors_on_threads_are_those_of_one_call() -> None:
    alone = Embedder().embed(SENTENCES)
    together = embed_on_threads(Embedder(), SENTENCES, 3)  # a second model: nothing comes from the first's cache
    assert together.shape == alone.shape
    assert np.array_equal(together, alone)


def test_few_texts_stay_on_the_calling_thread() -> None:
    recording = _Recording(Embedder())
    embed_on_threads(recording, SENTENCES[:1], 4)
    embed_on_threads(recording, SENTENCES[:5], 1)
    assert recording.threads == [threading.current_thread().name] * 2


def test_a_large_first_touch_uses_the_usable_cores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "docs" / "platforms.md", "# Platforms\n\n" + " ".join(SENTENCES))
    recording = _Recording(Embedder())
    kb = KnowledgeBase(tmp_path / "kb", embedder=recording)  # type: ignore[arg-type]
    kb.ingest([tmp_path / "docs"], chunk_tokens=2000)
    monkeypatch.setattr(veracity.kb.store, "usable_cores", lambda: 2)
    hits = kb.search("Which platform serves the airport trains?", limit=1)
    assert hits and "airport" in hits[0].text
    workers = [name for name in recording.threads if name.startswith("veracity-embed")]
    assert len(set(workers)) == 2  # two parts, side by side
    assert kb.stats().sentence_vectors == len(SENTENCES) + 1  # and the heading: every one stored
