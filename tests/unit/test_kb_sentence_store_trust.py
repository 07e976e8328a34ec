"""The sentence-vector store is not trusted blindly: rows are checked on read, by `kb verify`, and never via a link."""

from __future__ import annotations

import hashlib
import logging
import math
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import veracity
from tests.unit.kb_fixtures import AUSTRALIA, TOWER, write
from veracity.cli.knowledge_base import kb_group
from veracity.kb import KnowledgeBase
from veracity.kb.sentence_store import STORE_NAME, SentenceVectorStore
from veracity.offline.model.embedder import DIMENSIONS, MODEL_ID, Embedder

QUERY = "What is the capital of Australia?"
CLAIM = "Canberra is the capital of Australia."


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder(threads=1)


@pytest.fixture
def warm_kb(tmp_path: Path, embedder: Embedder) -> KnowledgeBase:
    """A knowledge base of two documents with every sentence vector stored."""
    kb = KnowledgeBase(tmp_path / "kb", embedder=embedder)
    kb.ingest([write(tmp_path / "docs" / "australia.md", AUSTRALIA), write(tmp_path / "docs" / "tower.txt", TOWER)])
    assert kb.warm().computed > 0
    kb.sentence_store.close()
    return kb


def rewrite_rows(kb: KnowledgeBase, change: Callable[[int, np.ndarray], np.ndarray]) -> int:
    """Replace every stored vector by `change(row number, vector)`, as someone editing the file would."""
    with sqlite3.connect(kb.path / STORE_NAME) as connection:
        rows = connection.execute("SELECT key, vector FROM vectors ORDER BY key").fetchall()
        for number, (key, blob) in enumerate(rows):
            vector = np.frombuffer(blob, dtype=np.float16).astype(np.float32)
            connection.execute("UPDATE vectors SET vector = ? WHERE key = ?",
                               (np.asarray(change(number, vector), dtype=np.float16).tobytes(), key))
    connection.close()
    return len(rows)


def stored(kb: KnowledgeBase, texts: list[str]) -> dict[str, np.ndarray]:
    return SentenceVectorStore(kb.path, model_id=MODEL_ID, dimensions=DIMENSIONS).lookup(texts)


SENTENCES = [CLAIM, "Sydney is the largest city in Australia.", "The Eiffel Tower is in Paris."]


def test_rows_of_nan_or_inf_are_recomputed_not_used(warm_kb: KnowledgeBase, embedder: Embedder,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    rewrite_rows(warm_kb, lambda n, v: np.full_like(v, math.nan if n % 2 else math.inf))
    assert stored(warm_kb, SENTENCES) == {}
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="veracity.kb.sentence_store"):
        fresh = KnowledgeBase(warm_kb.path, embedder=Embedder(threads=1))
        hits = fresh.search(QUERY, limit=1)
        fresh.search(QUERY, limit=2)
    assert CLAIM in hits[0].text and math.isfinite(hits[0].score)
    assert caplog.text.count("failed their check") == 1  # said once
    again = stored(warm_kb, SENTENCES[:2])
    assert set(again) == set(SENTENCES[:2])
    for text, vector in again.items():
        assert np.all(np.isfinite(vector))
        assert float(vector @ embedder.embed([text])[0]) > 0.999


def test_a_check_over_rows_of_nan_ends_in_a_verdict_not_a_traceback(warm_kb: KnowledgeBase) -> None:
    rewrite_rows(warm_kb, lambda n, v: np.full_like(v, math.nan))
    report = veracity.check(CLAIM, search="kb", kb_path=str(warm_kb.path), max_revisions=0)
    assert [verdict.label for verdict in report.verdicts] == ["supported"] and not report.failures
    assert all(verdict.confidence is not None and math.isfinite(verdict.confidence) for verdict in report.verdicts)


@pytest.mark.parametrize("craft", [
    lambda n, v: np.roll(v, 1),  # permuted
    lambda n, v: np.zeros_like(v),  # zeroed
    lambda n, v: -v,  # negated
], ids=["permuted", "zeroed", "negated"])
def test_crafted_rows_are_found_by_verify_and_never_change_a_search(warm_kb: KnowledgeBase, embedder: Embedder,
                                                                    craft: Callable[[int, np.ndarray], np.ndarray],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")
    expected = [(hit.text, round(hit.score, 6)) for hit in KnowledgeBase(warm_kb.path).search(QUERY, limit=3)]
    runner = CliRunner()
    intact = runner.invoke(kb_group, ["verify", str(warm_kb.path)])
    assert intact.exit_code == 0 and "sentence vectors match their digests" in intact.stdout
    rows = rewrite_rows(warm_kb, craft)

    report = KnowledgeBase(warm_kb.path).check_integrity()
    assert report.store is not None and (report.store.rows, report.store.bad) == (rows, rows)
    result = runner.invoke(kb_group, ["verify", str(warm_kb.path)])
    assert result.exit_code == 2
    assert f"damaged: {STORE_NAME}: {rows} of {rows} sentence vectors fail their check" in result.stdout
    assert "they are never used" in result.stderr and "Traceback" not in result.output

    found = [(hit.text, round(hit.score, 6))
             for hit in KnowledgeBase(warm_kb.path, embedder=Embedder(threads=1)).search(QUERY, limit=3)]
    assert found == expected
    assert float(stored(warm_kb, [CLAIM])[CLAIM] @ embedder.embed([CLAIM])[0]) > 0.999  # stored again, right


@pytest.mark.parametrize("name", [STORE_NAME, f"{STORE_NAME}-wal"])
def test_a_store_file_that_is_a_symbolic_link_is_refused(tmp_path: Path, name: str,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    kb = KnowledgeBase(tmp_path / "kb")
    kb.ingest([write(tmp_path / "docs" / "tower.txt", TOWER)])
    outside = tmp_path / "elsewhere" / "victim.sqlite"
    outside.parent.mkdir()
    for file in kb.path.glob(f"{STORE_NAME}*"):
        file.unlink()
    os.symlink(outside, kb.path / name)
    with caplog.at_level(logging.WARNING, logger="veracity.kb.sentence_store"):
        hits = KnowledgeBase(kb.path).search("How tall is the Eiffel Tower?", limit=1)
    assert "Eiffel Tower" in hits[0].text
    assert not outside.exists()  # nothing written through the link
    assert f"{name} is a symbolic link (to {outside})" in caplog.text
    result = CliRunner().invoke(kb_group, ["verify", str(kb.path)], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and f"{name} is a symbolic link" in result.output
    assert not outside.exists()


def test_an_old_store_without_digests_is_migrated_and_its_rows_recomputed(tmp_path: Path, embedder: Embedder) -> None:
    kb = KnowledgeBase(tmp_path / "kb", embedder=embedder)
    kb.ingest([write(tmp_path / "docs" / "australia.md", AUSTRALIA)])
    texts = SENTENCES[:2]
    (kb.path / STORE_NAME).unlink(missing_ok=True)
    with sqlite3.connect(kb.path / STORE_NAME) as old:  # as an older veracity wrote it, with tampered rows
        old.execute("CREATE TABLE vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")
        for text, vector in zip(texts, embedder.embed(texts), strict=True):
            old.execute("INSERT INTO vectors VALUES (?, ?)", (key_of(text), (-vector).astype(np.float16).tobytes()))
    old.close()

    report = KnowledgeBase(kb.path).check_integrity()
    assert report.store is not None and (report.store.rows, report.store.undigested, report.store.bad) == (2, 2, 0)
    assert stored(kb, texts) == {}  # not trusted
    warmed = KnowledgeBase(kb.path, embedder=embedder).warm()
    assert warmed.computed == warmed.sentences  # the rows without a digest were recomputed too
    again = stored(kb, texts)
    assert set(again) == set(texts)
    assert all(float(vector @ embedder.embed([text])[0]) > 0.999 for text, vector in again.items())
    after = KnowledgeBase(kb.path).check_integrity().store
    assert after is not None and (after.undigested, after.bad) == (0, 0)


def key_of(text: str) -> bytes:
    """The store's key of a sentence (the model and the text)."""
    return hashlib.blake2b(f"{MODEL_ID}\x00{text}".encode(), digest_size=16).digest()


def test_vectors_that_are_not_finite_unit_rows_are_not_stored(tmp_path: Path) -> None:
    store = SentenceVectorStore(tmp_path, model_id="m", dimensions=4)
    rows = np.array([[math.nan, 0, 0, 0], [math.inf, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0]], dtype=np.float32)
    assert store.store(["nan", "inf", "zero", "unit"], rows) == 1
    assert list(store.lookup(["nan", "inf", "zero", "unit"])) == ["unit"]
