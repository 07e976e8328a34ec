"""The `kb` evidence backend: SearchHits from the local knowledge base, errors as the engine expects them."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity.contracts import SearchHit
from veracity.errors import ConfigurationError, ToolError
from veracity.evidence.base import EvidenceBackend
from veracity.kb import KB_ENV, KnowledgeBase, KnowledgeBaseError
from veracity.kb.backend import KnowledgeBaseBackend
from veracity.offline.model.embedder import default_embedder
from veracity.sentences import split_sentences


async def test_search_returns_hits_and_primes_the_embedder(demo_kb: KnowledgeBase,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    backend = KnowledgeBaseBackend(demo_kb.path)
    assert isinstance(backend, EvidenceBackend) and backend.name == "kb"
    default_embedder().cache.clear()
    hits = await backend.search("The Sydney Opera House was designed by a Danish architect.", limit=3)
    assert len(hits) == 3 and all(isinstance(hit, SearchHit) for hit in hits)
    assert hits[0].url == "demo:sydney-opera-house.md" and hits[0].title == "Sydney Opera House"
    assert "Jørn Utzon" in hits[0].text and hits[0].score > hits[-1].score

    def no_model(texts):
        raise AssertionError("the judge's sentences should come from the cache")

    monkeypatch.setattr(default_embedder(), "_run", no_model)
    default_embedder().embed([s.text for hit in hits for s in split_sentences(hit.text)])


def test_a_missing_knowledge_base_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(KnowledgeBaseError, match="veracity ingest") as caught:
        KnowledgeBaseBackend(tmp_path / "none")
    assert isinstance(caught.value, ConfigurationError)


def test_a_damaged_knowledge_base_fails_at_construction(demo_kb: KnowledgeBase) -> None:
    (demo_kb.path / demo_kb.manifest().generation / "dense.faiss").write_bytes(b"junk")
    with pytest.raises(KnowledgeBaseError, match="--replace"):
        KnowledgeBaseBackend(demo_kb.path)


async def test_damage_found_during_a_search_is_a_permanent_tool_error(demo_kb: KnowledgeBase) -> None:
    backend = KnowledgeBaseBackend(demo_kb.path)
    (demo_kb.path / demo_kb.manifest().generation / "bm25_ids.npy").write_bytes(b"\x93NUMPY junk")
    with pytest.raises(ToolError) as caught:
        await backend.search("Canberra", limit=2)
    assert caught.value.kind == "unavailable" and caught.value.transient is False
    assert "--replace" in str(caught.value)


async def test_a_search_failure_names_the_knowledge_base_without_its_path(demo_kb: KnowledgeBase) -> None:
    backend = KnowledgeBaseBackend(demo_kb.path)
    (demo_kb.path / demo_kb.manifest().generation / "bm25_ids.npy").write_bytes(b"\x93NUMPY junk")
    with pytest.raises(ToolError) as caught:
        await backend.search("Canberra", limit=2)
    # The message reaches reports, and a server's reports reach its clients.
    assert str(demo_kb.path.parent) not in str(caught.value)
    assert f"knowledge base {demo_kb.path.name!r}" in str(caught.value)


async def test_no_path_uses_the_default_knowledge_base_seeded_with_the_demo(monkeypatch: pytest.MonkeyPatch,
                                                                           tmp_path: Path) -> None:
    monkeypatch.setenv(KB_ENV, str(tmp_path / "default-kb"))
    backend = KnowledgeBaseBackend()
    assert backend.knowledge_base.path == tmp_path / "default-kb"
    hits = await backend.search("What is the capital of Australia?", limit=1)
    assert hits[0].url == "demo:australia.md"
