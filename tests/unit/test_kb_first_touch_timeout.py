"""A first check on a new knowledge base: computing its sentence vectors is slower, never a failed search.

A real knowledge base on disk; the first touch (the sentence vectors of chunks returned for the first
time) is slowed down to many times the search timeout. The search timeout counts the retrieval and
the rerank, not that work: the check finds its evidence and rules as it would on a filled knowledge
base. A search whose retrieval itself overruns still times out.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

import veracity
from tests.unit.kb_fixtures import write
from veracity.contracts import Report, ToolFailure
from veracity.evidence.search_clock import not_counted, within_search_timeout
from veracity.kb import KnowledgeBase
from veracity.kb.backend import KnowledgeBaseBackend
from veracity.kb.shortlist import Shortlist

SEARCH_TIMEOUT = 1.0
FIRST_TOUCH_S = 6 * SEARCH_TIMEOUT
"""How long computing the first-touch vectors takes in these tests: more than all three search attempts
(`search_attempts`, with almost no back-off between them) could wait, before."""
STATIONS = [f"Station {i} lies on line {i % 3} and opened in the year {1900 + 7 * i}." for i in range(18)]
TEXT = "Station 4 lies on line 1. Station 9 opened in the year 1963."


@pytest.fixture
def new_kb(kb: KnowledgeBase, tmp_path: Path) -> KnowledgeBase:
    """A freshly ingested knowledge base (no sentence vector computed yet), its index and embedder loaded."""
    kb.ingest([write(tmp_path / "stations.txt", "\n\n".join(" ".join(STATIONS[i:i + 3]) for i in range(0, 18, 3)))],
              chunk_tokens=60)
    fresh = KnowledgeBase(kb.path)
    fresh.load()
    fresh.embedder.embed(["warm the embedder up"])
    assert fresh.stats().sentence_vectors == 0
    return fresh


def slowed_first_touch(knowledge_base: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Make computing first-touch vectors take `FIRST_TOUCH_S`; return the sentences of each computation."""
    computed: list[list[str]] = []
    embed_and_store = knowledge_base._embed_and_store

    def slow(texts: list[str]) -> list[NDArray[np.float32]]:
        computed.append(texts)
        time.sleep(FIRST_TOUCH_S)
        return embed_and_store(texts)

    monkeypatch.setattr(knowledge_base, "_embed_and_store", slow)
    return computed


def check(backend: KnowledgeBaseBackend) -> Report:
    """An offline check of `TEXT` against `backend`, searches limited to `SEARCH_TIMEOUT`."""
    return veracity.check(TEXT, model="offline", backend=backend, search_timeout=SEARCH_TIMEOUT,
                          search_backoff=0.01, cache=False)


def test_a_first_check_waits_for_its_first_touch_and_rules_as_on_a_filled_knowledge_base(
    new_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch,
) -> None:
    computed = slowed_first_touch(new_kb, monkeypatch)
    backend = KnowledgeBaseBackend(knowledge_base=new_kb)

    first = check(backend)
    assert computed, "the first check computed the sentence vectors of the chunks it found"
    assert not [failure for failure in first.failures if isinstance(failure, ToolFailure)]  # before: timed out
    assert len(first.claims) == 2 and {item.claim_id for item in first.evidence} == {c.id for c in first.claims}

    computations = len(computed)
    again = check(backend)  # the knowledge base is filled now: nothing is computed
    assert len(computed) == computations
    assert new_kb.stats().sentence_vectors > 0
    assert [(v.label, v.evidence_id, v.quote) for v in again.verdicts] == \
        [(v.label, v.evidence_id, v.quote) for v in first.verdicts]
    assert [(item.id, item.text) for item in again.evidence] == [(item.id, item.text) for item in first.evidence]


def test_a_search_whose_retrieval_overruns_still_times_out(
    new_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch,
) -> None:
    shortlist = new_kb.shortlist

    def slow_retrieval(query: str, limit: int) -> Shortlist:
        time.sleep(FIRST_TOUCH_S)
        return shortlist(query, limit)

    monkeypatch.setattr(new_kb, "shortlist", slow_retrieval)
    report = veracity.check(TEXT, model="offline", backend=KnowledgeBaseBackend(knowledge_base=new_kb),
                            search_timeout=SEARCH_TIMEOUT, search_attempts=1, cache=False)
    failures = [failure for failure in report.failures if isinstance(failure, ToolFailure)]
    assert len(failures) == 2 and all("timed out" in failure.message for failure in failures)


async def test_time_not_counted_is_left_out_of_the_search_timeout() -> None:
    async with within_search_timeout(0.2):
        with not_counted():
            await asyncio.sleep(0.5)  # longer than the whole timeout: not counted
        await asyncio.sleep(0)
    with pytest.raises(TimeoutError):
        async with within_search_timeout(0.2):
            with not_counted():
                await asyncio.sleep(0.01)
            await asyncio.sleep(30)  # counted again: the timeout ends it (a hang guard, not a speed target)


def test_outside_a_search_not_counted_does_nothing() -> None:
    with not_counted():
        pass
