"""Ingest embeds the chunks of consecutive documents together, reads each small file once, and still rolls back a
document that fails part-way on its own."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

import veracity.kb.ingest
from tests.unit.kb_fixtures import write
from veracity.cli.knowledge_base import CliProgress
from veracity.kb import FileResult, KnowledgeBase
from veracity.kb.ingest import read_source
from veracity.kb.sources import Source
from veracity.kb.writer import GenerationBuilder
from veracity.offline.model.embedder import Embedder, bulk_embedder, default_embedder

NOTES = [
    f"# Note {i}\n\nRiver {i} flows into lake {i % 5}. Its water is {['cold', 'warm', 'salty'][i % 3]}. "
    f"Bridge {i} crosses it near village {i * 7}."
    for i in range(12)
]


def _notes(folder: Path, count: int = len(NOTES)) -> Path:
    for i, text in enumerate(NOTES[:count]):
        write(folder / f"note-{i:02d}.md", text)
    return folder


def _contents(kb: KnowledgeBase) -> tuple[list[tuple], np.ndarray, np.ndarray]:
    """Chunks (path, index, offsets, text, spans), their sentence vectors and their dense vectors, in chunk order."""
    import faiss

    files = kb.manifest().files(kb.path)
    connection = sqlite3.connect(files.meta)
    rows = connection.execute(
        "SELECT d.path, c.chunk_index, c.start_char, c.end_char, c.text, c.sentence_spans, c.id, c.sentence_row,"
        " c.sentence_count FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY d.path, c.chunk_index"
    ).fetchall()
    connection.close()
    sentences = np.load(files.sentences)
    dense = faiss.read_index(str(files.dense))
    sentence_vectors = np.concatenate([sentences[row[7]:row[7] + row[8]] for row in rows])
    chunk_vectors = np.stack([dense.reconstruct(row[6]) for row in rows])
    return [row[:6] for row in rows], sentence_vectors.astype(np.float32), chunk_vectors


def _count_embed_calls(monkeypatch: pytest.MonkeyPatch, embedder: Embedder) -> list[int]:
    calls: list[int] = []
    real_embed = embedder.embed

    def counting_embed(texts, **kwargs):
        calls.append(len(texts))
        return real_embed(texts, **kwargs)

    monkeypatch.setattr(embedder, "embed", counting_embed)
    return calls


def test_short_documents_are_embedded_together_with_the_same_results(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _notes(tmp_path / "docs")
    together = KnowledgeBase(tmp_path / "together")
    calls = _count_embed_calls(monkeypatch, bulk_embedder())
    report = together.ingest([docs])
    assert report.summary() == "added 12, updated 0, unchanged 0, skipped 0; 12 chunks indexed"
    assert len(calls) == 1  # 12 documents, one embedding call
    assert [Path(r.key).name for r in report.results] == [f"note-{i:02d}.md" for i in range(12)]

    monkeypatch.undo()
    monkeypatch.setattr(veracity.kb.ingest, "EMBED_BATCH_SENTENCES", 1)  # one call per chunk, as before
    one_by_one = KnowledgeBase(tmp_path / "one-by-one")
    one_by_one.ingest([docs])
    chunks, sentence_vectors, chunk_vectors = _contents(together)
    alone_chunks, alone_sentence_vectors, alone_chunk_vectors = _contents(one_by_one)
    assert chunks == alone_chunks
    assert np.allclose(sentence_vectors, alone_sentence_vectors, atol=1e-3)  # float16 storage
    assert np.allclose(chunk_vectors, alone_chunk_vectors, atol=1e-5)


def test_a_long_document_is_embedded_in_several_calls(kb: KnowledgeBase, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    text = " ".join(f"Fact {i} says that road {i} ends at gate {i % 9}." for i in range(60))
    path = write(tmp_path / "long.txt", text)
    monkeypatch.setattr(veracity.kb.ingest, "EMBED_BATCH_SENTENCES", 8)
    calls = _count_embed_calls(monkeypatch, bulk_embedder())
    report = kb.ingest([path], chunk_tokens=40)
    assert report.results[0].status == "added" and report.results[0].chunks > 5
    assert len(calls) > 3 and sum(calls) >= 60  # the overlap repeats sentences; the cache embeds them once
    assert kb.stats().chunks == report.results[0].chunks


def _failing_chunk_stream(monkeypatch: pytest.MonkeyPatch, name: str, after: int) -> list[int]:
    """Make reading the document named `name` fail with an OSError after `after` chunks; count the roll-backs."""
    real = veracity.kb.ingest.chunk_stream
    real_discard = GenerationBuilder.discard_document
    discarded: list[int] = []

    def discard_document(builder):
        discarded.append(len(builder._require_open()[2]))  # chunks written before the failure
        real_discard(builder)

    def chunk_stream(pieces, settings=None):
        first = next(iter(pieces), "")
        for number, chunk in enumerate(real([first, *pieces], settings)):
            if name in first and number == after:
                raise OSError(5, "Input/output error")
            yield chunk

    monkeypatch.setattr(veracity.kb.ingest, "chunk_stream", chunk_stream)
    monkeypatch.setattr(GenerationBuilder, "discard_document", discard_document)
    return discarded


def test_a_document_that_fails_part_way_is_rolled_back_alone(kb: KnowledgeBase, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _notes(tmp_path / "docs", 3)
    long_text = "Marker document. " + " ".join(f"Gate {i} opens at hour {i % 24} daily." for i in range(40))
    write(docs / "note-01.md", long_text)
    kb.ingest([docs], chunk_tokens=40)
    before = {d.path: d for d in kb.documents()}
    write(docs / "note-01.md", long_text + " One more sentence changes the file.")
    write(docs / "note-00.md", NOTES[5])  # changed too: queued before the failing document
    write(docs / "note-03.md", NOTES[6])  # new, after it
    monkeypatch.setattr(veracity.kb.ingest, "EMBED_BATCH_SENTENCES", 4)  # some of its chunks are written first
    discarded = _failing_chunk_stream(monkeypatch, "Marker document", after=6)
    report = kb.ingest([docs])
    assert len(discarded) == 1 and 0 < discarded[0] <= 6
    by_name = {Path(r.key).name: r for r in report.results}
    assert by_name["note-01.md"].status == "skipped"
    assert by_name["note-01.md"].reason == "cannot read: Input/output error; the version indexed before is kept"
    assert (by_name["note-00.md"].status, by_name["note-03.md"].status) == ("updated", "added")
    after = {Path(d.path).name: d for d in kb.documents()}
    failing = str((docs / "note-01.md").resolve())
    assert after["note-01.md"] == before[failing]  # the old version, whole
    total = sum(d.chunks for d in after.values())
    assert kb.stats().chunks == total  # no stray chunk: FAISS, SQLite and the sentence rows agree
    assert any("Gate 17 opens" in hit.text for hit in kb.search("Gate 17 opens at hour", limit=3))
    assert kb.search(NOTES[6].splitlines()[-1], limit=1)[0].url == str((docs / "note-03.md").resolve())


def test_a_new_document_that_fails_part_way_leaves_no_trace(kb: KnowledgeBase, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _notes(tmp_path / "docs", 2)
    write(docs / "note-01.md", "Marker document. " + " ".join(f"Gate {i} opens at hour {i}." for i in range(40)))
    monkeypatch.setattr(veracity.kb.ingest, "EMBED_BATCH_SENTENCES", 4)
    discarded = _failing_chunk_stream(monkeypatch, "Marker document", after=5)
    report = kb.ingest([docs], chunk_tokens=40)
    assert len(discarded) == 1 and discarded[0] > 0
    assert [r.status for r in report.results] == ["added", "skipped"]
    assert [Path(d.path).name for d in kb.documents()] == ["note-00.md"]
    assert kb.stats().chunks == 1 and kb.stats().sentences == 4


def test_the_same_file_twice_is_indexed_once(kb: KnowledgeBase, tmp_path: Path) -> None:
    path = write(tmp_path / "note.md", NOTES[0])
    source = Source.from_path(path)
    report = kb.ingest_sources([source, source])
    assert [r.status for r in report.results] == ["added", "unchanged"]
    assert kb.stats().documents == 1


def test_a_small_file_is_read_once_and_a_large_one_is_streamed(tmp_path: Path) -> None:
    path = write(tmp_path / "note.md", NOTES[0])
    opened = []
    source = Source.from_path(path)
    counted = Source(source.key, source.name, source.kind, source.size, source.mtime,
                     opener=lambda: opened.append(1) or open(path, "rb"))
    loadable, digest = read_source(counted)
    assert loadable.open().read() == path.read_bytes() and len(opened) == 1
    assert digest == veracity.kb.ingest.sha256_of(source)
    large, large_digest = read_source(counted, stream_threshold=10)
    assert large is counted and large_digest == digest


def test_token_batches_give_the_same_vectors_within_their_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [" ".join(["word"] * n) + f" number {n}." for n in (40, 3, 25, 4, 60, 10, 11, 2, 33, 7)]
    embedder = Embedder(batch_tokens=100)
    shapes = []
    real_run = embedder._run_encoded

    def recording_run(batch):
        lengths = [len(e.ids) for e in batch]
        shapes.append((len(batch), max(lengths)))
        return real_run(batch)

    monkeypatch.setattr(embedder, "_run_encoded", recording_run)
    vectors = embedder.embed(texts + texts[:2])
    assert np.allclose(vectors[:len(texts)], default_embedder().embed(texts), atol=1e-5)
    assert np.array_equal(vectors[len(texts):], vectors[:2])
    assert sum(count for count, _ in shapes) == len(texts)  # each distinct text once
    assert all(count * longest <= 100 or count == 1 for count, longest in shapes)
    assert [longest for _, longest in shapes] == sorted(longest for _, longest in shapes)


def test_the_progress_bar_shows_the_rate_and_the_time_left(tmp_path: Path) -> None:
    out = io.StringIO()
    progress = CliProgress(Console(file=out, force_terminal=True, width=200), tmp_path)
    progress.started(2, 1000)
    progress.file_started("/docs/a.md", 600)
    progress.chunks_indexed("/docs/a.md", 3)
    progress.file_finished(FileResult("/docs/a.md", "added", 3))
    assert progress.bar is not None
    task = progress.bar.tasks[0]
    assert (task.completed, task.total, task.fields["files"], task.fields["chunks"]) == (600, 1000, 1, 3)
    assert task.fields["rate"].endswith(" chunks/s")
    progress.bar.refresh()
    progress.stop()
    shown = out.getvalue()
    assert "1/2 files" in shown and "3 chunks" in shown and "chunks/s" in shown and "left" in shown


def test_manifest_counts_match_after_updates_and_removals(kb: KnowledgeBase, tmp_path: Path) -> None:
    docs = _notes(tmp_path / "docs", 6)
    kb.ingest([docs])
    for i in range(3):
        write(docs / f"note-{i:02d}.md", NOTES[i + 6])
    kb.ingest([docs])
    kb.remove([docs / "note-04.md"])
    manifest = json.loads((kb.path / "manifest.json").read_text())
    assert (manifest["documents"], manifest["chunks"]) == (5, 5)
    assert kb.search(NOTES[7].splitlines()[-1], limit=1)[0].url == str((docs / "note-01.md").resolve())
    assert all("note-04" not in hit.url for hit in kb.search(NOTES[4].splitlines()[-1], limit=5))


def _sentence_vectors(kb: KnowledgeBase) -> dict[str, np.ndarray]:
    chunks, vectors, _ = _contents(kb)
    texts = [text[start:end] for *_, text, spans in chunks for start, end in json.loads(spans)]
    return dict(zip(texts, vectors, strict=True))


def test_an_edited_document_embeds_only_its_new_sentences(kb: KnowledgeBase, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    sentences = [f"Station {i} lies on line {i % 4} and opened in year {1900 + i}." for i in range(30)]
    path = write(tmp_path / "stations.txt", " ".join(sentences))
    kb.ingest([path], chunk_tokens=60)
    before = _sentence_vectors(kb)
    sentences[12] = "Station twelve was rebuilt after a fire."
    write(path, " ".join(sentences))
    fresh = Embedder(threads=1)  # an empty cache: nothing is known from the first ingest
    calls = _count_embed_calls(monkeypatch, fresh)
    edited = KnowledgeBase(kb.path, embedder=fresh)
    assert edited.ingest([path]).results[0].status == "updated"
    assert calls == [1]  # the new sentence alone
    after = _sentence_vectors(edited)
    assert set(after) == set(sentences)
    assert set(before) - set(after) == {"Station 12 lies on line 0 and opened in year 1912."}
    for text in set(after) - {sentences[12]}:
        assert np.array_equal(after[text], before[text])  # the stored values, as they were
    assert np.allclose(after[sentences[12]], default_embedder().embed([sentences[12]])[0], atol=1e-3)
    assert np.allclose(np.linalg.norm(_contents(edited)[2], axis=1), 1.0, atol=1e-5)
