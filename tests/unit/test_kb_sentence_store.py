"""Format-1 knowledge bases work and migrate on the next write; the sentence store is a cache, never a failure."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.unit.kb_fixtures import TOWER, corrupt, model_runs, write
from veracity.kb import KnowledgeBase, KnowledgeBaseError
from veracity.kb.manifest import FORMAT_VERSION, LEGACY_FORMAT_VERSION
from veracity.kb.sentence_store import STORE_NAME, SentenceVectorStore
from veracity.kb.vectors import normalised, read_sentences
from veracity.offline.model.embedder import DIMENSIONS, MODEL_ID, Embedder
from veracity.offline.model.static import STATIC_MODEL_ID

FORMAT1 = Path(__file__).parent / "kb_fixtures" / "format1"
"""Two documents indexed by the previous format (australia.md and tower.txt), copied as that version wrote them."""


@pytest.fixture
def old_kb(tmp_path: Path) -> KnowledgeBase:
    target = tmp_path / "old-kb"
    shutil.copytree(FORMAT1, target)
    return KnowledgeBase(target)


def test_a_format_1_index_answers_searches_from_its_own_vectors(old_kb: KnowledgeBase,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    manifest = old_kb.manifest()
    assert (manifest.format_version, manifest.model_id) == (LEGACY_FORMAT_VERSION, MODEL_ID)
    embedder = Embedder(threads=1)
    runs = model_runs(monkeypatch, embedder)
    hits = KnowledgeBase(old_kb.path, embedder=embedder).search("What is the capital of Australia?", limit=1)
    assert "Canberra is the capital of Australia." in hits[0].text
    assert runs == [["What is the capital of Australia?"]]  # its sentence vectors are stored in it
    assert old_kb.stats().sentence_vectors == manifest.sentences
    assert old_kb.warm().computed == 0
    assert not (old_kb.path / STORE_NAME).exists()  # reading never writes


def test_the_next_ingest_migrates_a_format_1_index(old_kb: KnowledgeBase, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    old_files = old_kb.manifest().files(old_kb.path)
    old_vectors = normalised(read_sentences(old_files.sentences))
    report = old_kb.ingest([write(tmp_path / "tower-notes.txt", TOWER.replace("Paris", "the French capital"))])
    assert report.migrated and "the index was migrated to the current format" in report.summary()
    manifest = old_kb.manifest()
    assert (manifest.format_version, manifest.model_id, manifest.documents) == (FORMAT_VERSION, STATIC_MODEL_ID, 3)
    assert not manifest.files(old_kb.path).sentences.exists() and not old_files.folder.exists()

    store = SentenceVectorStore(old_kb.path, model_id=MODEL_ID, dimensions=DIMENSIONS)
    moved = store.lookup(["Canberra is the capital of Australia.", "The Eiffel Tower is in Paris."])
    assert len(moved) == 2
    assert max(float(np.max(vector @ old_vectors.T)) for vector in moved.values()) > 0.999  # the stored rows
    embedder = Embedder(threads=1)
    runs = model_runs(monkeypatch, embedder)
    hits = KnowledgeBase(old_kb.path, embedder=embedder).search("What is the capital of Australia?", limit=1)
    assert "Canberra is the capital of Australia." in hits[0].text
    assert "Canberra is the capital of Australia." not in [text for run in runs for text in run]
    assert KnowledgeBase(old_kb.path).ingest([tmp_path / "tower-notes.txt"]).migrated is False


def test_a_damaged_format_1_sentence_file_is_refused(old_kb: KnowledgeBase) -> None:
    corrupt(old_kb.manifest().files(old_kb.path).sentences)
    with pytest.raises(KnowledgeBaseError, match="sentences.npy is damaged"):
        KnowledgeBase(old_kb.path).search("Canberra")


def test_an_unusable_store_costs_recomputation_not_a_search(old_kb: KnowledgeBase, tmp_path: Path,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    kb = KnowledgeBase(tmp_path / "kb")
    kb.ingest([write(tmp_path / "docs" / "tower.txt", TOWER)])
    (kb.path / STORE_NAME).unlink(missing_ok=True)
    (kb.path / STORE_NAME).mkdir()  # SQLite cannot open a folder
    with caplog.at_level(logging.WARNING, logger="veracity.kb.sentence_store"):
        hits = KnowledgeBase(kb.path).search("How tall is the Eiffel Tower?", limit=1)
    assert "Eiffel Tower" in hits[0].text
    assert "not kept between runs" in caplog.text
    assert KnowledgeBase(kb.path).stats().sentence_vectors == 0
    with pytest.raises(KnowledgeBaseError, match="cannot store sentence vectors"):
        KnowledgeBase(kb.path).warm()


def test_stored_rows_of_the_wrong_size_are_recomputed(tmp_path: Path) -> None:
    store = SentenceVectorStore(tmp_path, model_id="m", dimensions=4)
    vectors = np.eye(4, dtype=np.float32)[:2]
    assert store.store(["one", "two"], vectors) == 2
    other = SentenceVectorStore(tmp_path, model_id="m", dimensions=4)  # another process, the same file
    assert np.array_equal(other.lookup(["one", "two", "three"])["two"], vectors[1])
    assert other.absent(["three", "one", "four"]) == ["three", "four"]
    assert SentenceVectorStore(tmp_path, model_id="other model", dimensions=4).lookup(["one"]) == {}
    assert SentenceVectorStore(tmp_path, model_id="m", dimensions=8).lookup(["one"]) == {}  # 4 values, not 8
    assert other.count() == 2
