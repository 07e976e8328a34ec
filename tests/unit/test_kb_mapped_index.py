"""Searches read the FAISS index memory-mapped; writers read it into memory."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.unit.kb_fixtures import AUSTRALIA, TOWER, write
from veracity.kb import KnowledgeBase
from veracity.kb import generation as generation_module
from veracity.kb.generation import load_dense

FORMAT1 = Path(__file__).parent / "kb_fixtures" / "format1"


@pytest.fixture(params=["current", "format 1"])
def filled_kb(request: pytest.FixtureRequest, kb: KnowledgeBase, tmp_path: Path) -> KnowledgeBase:
    if request.param == "format 1":
        shutil.copytree(FORMAT1, tmp_path / "old-kb")
        return KnowledgeBase(tmp_path / "old-kb")
    docs = tmp_path / "docs"
    write(docs / "australia.md", AUSTRALIA)
    write(docs / "tower.txt", TOWER)
    kb.ingest([docs])
    return kb


def test_a_mapped_index_finds_what_the_index_in_memory_finds(filled_kb: KnowledgeBase) -> None:
    manifest = filled_kb.manifest()
    in_memory = load_dense(filled_kb.path, manifest)
    mapped = load_dense(filled_kb.path, manifest, mapped=True)
    queries = filled_kb.embedder.embed(["capital of Australia", "How tall is the tower?", "bees"])
    assert mapped.ntotal == in_memory.ntotal > 0
    for found, expected in zip(mapped.search(queries, 5), in_memory.search(queries, 5), strict=True):
        assert np.array_equal(found, expected)


def test_searches_map_the_index_and_an_ingest_reads_it_into_memory(kb: KnowledgeBase, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    docs = tmp_path / "docs"
    write(docs / "australia.md", AUSTRALIA)
    kb.ingest([docs])
    calls: list[bool] = []
    real_load = generation_module.load_dense

    def recording(kb_path: Path, manifest: object, *, mapped: bool = False) -> object:
        calls.append(mapped)
        return real_load(kb_path, manifest, mapped=mapped)

    monkeypatch.setattr("veracity.kb.index.load_dense", recording)
    monkeypatch.setattr("veracity.kb.writer.load_dense", recording)
    assert "Canberra" in KnowledgeBase(kb.path).search("capital of Australia", limit=1)[0].text
    write(docs / "tower.txt", TOWER)
    KnowledgeBase(kb.path).ingest([docs])  # builds on the current generation's index
    assert calls == [True, False]
    assert "Eiffel" in KnowledgeBase(kb.path).search("How tall is the Eiffel Tower?", limit=1)[0].text
