"""The local embedder: one shared instance across threads, cache priming, vector shape."""

from __future__ import annotations

import functools
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from veracity.offline.model import embedder as embedder_module
from veracity.offline.model.embedder import DIMENSIONS, default_embedder


def test_concurrent_first_use_shares_one_instance(monkeypatch) -> None:
    created: list[object] = []

    @functools.lru_cache(maxsize=1)
    def slow_loader() -> object:
        time.sleep(0.05)  # widen the window in which threads race on first use
        created.append(object())
        return created[-1]

    monkeypatch.setattr(embedder_module, "_load_default_embedder", slow_loader)
    with ThreadPoolExecutor(max_workers=8) as pool:
        instances = list(pool.map(lambda _: default_embedder(), range(16)))
    assert len(created) == 1 and all(i is instances[0] for i in instances)


def test_vectors_are_normalised_and_primed_vectors_are_served() -> None:
    embedder = default_embedder()
    vectors = embedder.embed(["Canberra is the capital city of Australia.", "Bananas are yellow."])
    assert vectors.shape == (2, DIMENSIONS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    marker = np.zeros(DIMENSIONS, dtype=np.float32)
    marker[0] = 1.0
    embedder.prime(["a sentence only the cache knows"], marker[None, :])
    assert np.array_equal(embedder.embed(["a sentence only the cache knows"])[0], marker)
