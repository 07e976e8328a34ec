"""Shared first-touch work: searches side by side compute a sentence's vector once."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.unit.kb_fixtures import write
from veracity.kb import KnowledgeBase
from veracity.kb.in_flight import InFlight
from veracity.offline.model.embedder import Embedder
from veracity.sentences import split_sentences

WAIT = 10.0


def test_a_key_being_computed_is_waited_for_not_computed_again() -> None:
    shared: InFlight[str, str] = InFlight()
    calls: list[list[str]] = []
    started, release = threading.Event(), threading.Event()

    def slow(keys: list[str]) -> list[str]:
        calls.append(keys)
        started.set()
        assert release.wait(WAIT)
        return [key.upper() for key in keys]

    def quick(keys: list[str]) -> list[str]:
        calls.append(keys)
        return [key.upper() for key in keys]

    results: dict[str, dict[str, str]] = {}
    first = threading.Thread(target=lambda: results.update(first=shared.compute(["a", "b"], slow)))
    first.start()
    assert started.wait(WAIT)
    second = threading.Thread(target=lambda: results.update(second=shared.compute(["b", "c"], quick)))
    second.start()
    while len(calls) < 2:  # the second caller computes only "c", then waits for "b"
        time.sleep(0.01)
    release.set()
    first.join(WAIT)
    second.join(WAIT)
    assert calls == [["a", "b"], ["c"]]
    assert results == {"first": {"a": "A", "b": "B"}, "second": {"b": "B", "c": "C"}}
    assert shared.compute(["b"], quick) == {"b": "B"} and calls[-1] == ["b"]  # nothing is kept afterwards


def test_when_the_computing_caller_fails_the_waiting_one_computes_the_key_itself() -> None:
    shared: InFlight[str, str] = InFlight()
    started, release = threading.Event(), threading.Event()
    calls: list[list[str]] = []

    def failing(keys: list[str]) -> list[str]:
        started.set()
        assert release.wait(WAIT)
        raise RuntimeError("model failed")

    def working(keys: list[str]) -> list[str]:
        calls.append(keys)
        if len(calls) == 1:
            release.set()  # let the first caller fail while this one waits for "b"
        return [key.upper() for key in keys]

    errors: list[BaseException] = []

    def first_caller() -> None:
        try:
            shared.compute(["b"], failing)
        except RuntimeError as exc:
            errors.append(exc)

    first = threading.Thread(target=first_caller)
    first.start()
    assert started.wait(WAIT)
    assert shared.compute(["b", "c"], working) == {"b": "B", "c": "C"}
    first.join(WAIT)
    assert calls == [["c"], ["b"]]
    assert [str(error) for error in errors] == ["model failed"]


def test_searches_side_by_side_embed_each_new_sentence_once(kb: KnowledgeBase, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    sentences = [f"Station {i} lies on line {i % 4} and opened in year {1900 + i}." for i in range(30)]
    kb.ingest([write(tmp_path / "stations.txt", " ".join(sentences))], chunk_tokens=60)
    fresh = KnowledgeBase(kb.path, embedder=Embedder(threads=1))  # nothing computed or cached yet
    computed: list[list[str]] = []
    inside, second_waiting = threading.Event(), threading.Event()
    embed_and_store = fresh._embed_and_store

    def slow_first(texts: list[str]):
        computed.append(texts)
        inside.set()
        second_waiting.wait(WAIT)
        return embed_and_store(texts)

    monkeypatch.setattr(fresh, "_embed_and_store", slow_first)
    query = "Station 12 lies on line 0"
    fresh.embedder.embed([query])  # both searches find the query's vector in the cache
    hits: list[list] = []
    first = threading.Thread(target=lambda: hits.append(fresh.search(query, limit=2)))
    first.start()
    assert inside.wait(WAIT)
    second = threading.Thread(target=lambda: hits.append(fresh.search(query, limit=2)))
    second.start()
    time.sleep(0.5)  # the second search reaches the sentences the first is computing, and waits
    second_waiting.set()
    first.join(WAIT)
    second.join(WAIT)
    assert len(computed) == 1  # the second search computed nothing
    reranked = {s.text for hit in hits[0] for s in split_sentences(hit.text)}
    assert reranked <= set(computed[0]) and len(computed[0]) == len(set(computed[0]))
    assert [[h.text for h in found] for found in hits] == [[h.text for h in hits[0]]] * 2
