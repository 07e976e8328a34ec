"""Ingest embeds the chunks of consecutive documents together, reads each small file once, and still rolls back a
document that fails part-way on its own; sentence vectors are computed on first retrieval and kept."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

import veracity.kb.ingest
from tests.unit.kb_fixtures import model_runs, write
from veracity.cli.knowledge_base import CliProgress
from veracity.kb import FileResult, KnowledgeBase
from veracity.kb.reading import read_source, sha256_of
from veracity.kb.sources import Source
from veracity.kb.vectors import dense_ids, vector_count
from veracity.kb.writer import GenerationBuilder
from veracity.offline.model.embedder import Embedder, default_embedder
from veracity.offline.model.static import default_static_embedder
from veracity.sentences import split_sentences

NOTES = [
    f"# Note {i}\n\nRiver {i} flows into lake {i % 5}. Its water is {['cold', 'warm', 'salty'][i % 3]}. "
    f"Bridge {i} crosses it near village {i * 7}."
    for i in range(12)
]


def _notes(folder: Path, count: int = len(NOTES)) -> Path:
    for i, text in enumerate(NOTES[:count]):
        write(folder / f"note-{i:02d}.md", text)
    return folder


def _contents(kb: KnowledgeBase) -> tuple[list[tuple], np.ndarray]:
    """Chunks (path, index, offsets, text, spans) and their dense vectors, in chunk order."""
    import faiss

    files = kb.manifest().files(kb.path)
    connection = sqlite3.connect(files.meta)
    rows = connection.execute(
        "SELECT d.path, c.chunk_index, c.start_char, c.end_char, c.text, c.sentence_spans, c.id, c.sentence_count"
        " FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY d.path, c.chunk_index"
    ).fetchall()
    connection.close()
    dense = faiss.read_index(str(files.dense))
    ids = [dense_id for row in rows for dense_id in dense_ids(row[6], vector_count(row[7]))]
    assert dense.ntotal == len(ids)
    return [row[:6] for row in rows], np.stack([dense.reconstruct(dense_id) for dense_id in ids])


def _count_embed_calls(monkeypatch: pytest.MonkeyPatch, embedder: object) -> list[int]:
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
    calls = _count_embed_calls(monkeypatch, default_static_embedder())
    sentence_calls = _count_embed_calls(monkeypatch, default_embedder())
    report = together.ingest([docs])
    assert report.summary() == "added 12, updated 0, unchanged 0, skipped 0; 12 chunks indexed"
    assert calls == [together.stats().sentences]  # 12 documents' sentences, in one embedding call
    assert sentence_calls == []  # no sentence is embedded by the transformer at ingest
    assert [Path(r.key).name for r in report.results] == [f"note-{i:02d}.md" for i in range(12)]

    monkeypatch.undo()
    monkeypatch.setattr(veracity.kb.ingest, "EMBED_BATCH_CHUNKS", 1)  # one call per chunk
    one_by_one = KnowledgeBase(tmp_path / "one-by-one")
    one_by_one.ingest([docs])
    chunks, chunk_vectors = _contents(together)
    alone_chunks, alone_chunk_vectors = _contents(one_by_one)
    assert chunks == alone_chunks
    assert_same_stored_vectors(chunk_vectors, alone_chunk_vectors)


def assert_same_stored_vectors(first: np.ndarray, second: np.ndarray) -> None:
    """The same vectors as the index stores them: equal up to one step of half precision.

    A batch's sentence vectors come from one matrix product, a single sentence's from another
    shape of it; BLAS may sum those in another order (it does with OpenBLAS on AVX2), which moves
    the float32 result in its last bits and, now and then, rounds it to the neighbouring float16
    value. One float16 step of the larger value is the most that rounding can differ by.
    """
    assert first.shape == second.shape
    step = np.spacing(np.maximum(np.abs(first), np.abs(second)).astype(np.float16)).astype(np.float32)
    assert np.all(np.abs(first - second) <= step), float(np.max(np.abs(first - second) - step))


def test_a_long_document_is_embedded_in_several_calls(kb: KnowledgeBase, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    text = " ".join(f"Fact {i} says that road {i} ends at gate {i % 9}." for i in range(60))
    path = write(tmp_path / "long.txt", text)
    monkeypatch.setattr(veracity.kb.ingest, "EMBED_BATCH_CHUNKS", 2)
    calls = _count_embed_calls(monkeypatch, default_static_embedder())
    report = kb.ingest([path], chunk_tokens=40)
    assert report.results[0].status == "added" and report.results[0].chunks > 5
    assert len(calls) > 3 and sum(calls) == kb.stats().sentences  # each chunk's sentences, overlaps included
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
    monkeypatch.setattr(veracity.kb.ingest, "EMBED_BATCH_CHUNKS", 1)  # some of its chunks are written first
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
    monkeypatch.setattr(veracity.kb.ingest, "EMBED_BATCH_CHUNKS", 1)
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
    assert digest == sha256_of(source)
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


def test_sentence_vectors_are_computed_on_first_retrieval_and_kept(kb: KnowledgeBase, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    sentences = [f"Station {i} lies on line {i % 4} and opened in year {1900 + i}." for i in range(30)]
    path = write(tmp_path / "stations.txt", " ".join(sentences))
    kb.ingest([path], chunk_tokens=60)
    assert kb.stats().sentence_vectors == 0  # ingest embeds none

    first = Embedder(threads=1)  # an empty cache, as in a new process
    runs = model_runs(monkeypatch, first)
    hit = KnowledgeBase(kb.path, embedder=first).search("Station 12 lies on line 0", limit=1)[0]
    chunk_sentences = list(dict.fromkeys(s.text for s in split_sentences(hit.text)))
    assert [len(run) for run in runs][:1] == [1] and len(runs) == 2  # the query, then the reranked chunks' sentences
    assert kb.stats().sentence_vectors == len(runs[1]) >= len(chunk_sentences)
    primed = first.embed(chunk_sentences)
    assert len(runs) == 2  # served from the cache the search primed
    assert np.allclose(primed, default_embedder().embed(chunk_sentences), atol=1e-3)

    later = Embedder(threads=1)  # another process: the vectors come from the store, not the model
    later_runs = model_runs(monkeypatch, later)
    KnowledgeBase(kb.path, embedder=later).search("Station 12 lies on line 0", limit=1)
    assert later_runs == [["Station 12 lies on line 0"]]  # the query alone
    assert np.allclose(later.embed(chunk_sentences), primed, atol=1e-3)
    assert len(later_runs) == 1

    KnowledgeBase(kb.path).warm()  # every sentence has a vector now
    sentences[12] = "Station twelve was rebuilt after a fire."  # an edit keeps the unchanged sentences' vectors
    write(path, " ".join(sentences))
    assert KnowledgeBase(kb.path).ingest([path]).results[0].status == "updated"
    edited = Embedder(threads=1)
    edited_runs = model_runs(monkeypatch, edited)
    hit = KnowledgeBase(kb.path, embedder=edited).search("Station twelve was rebuilt after a fire", limit=1)[0]
    assert sentences[12] in hit.text
    assert edited_runs[1:] == [[sentences[12]]]  # after the query, the new sentence alone


def test_warm_fills_every_sentence_vector_and_is_resumable(kb: KnowledgeBase, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _notes(tmp_path / "docs", 6)
    kb.ingest([docs])
    kb.search(NOTES[0].splitlines()[-1], limit=1)  # one chunk's sentences are stored by a search
    distinct = {s.text for note in NOTES[:6] for s in split_sentences(note)}
    stored = kb.stats().sentence_vectors
    assert 0 < stored < len(distinct)
    embedder = Embedder(threads=1)
    runs = model_runs(monkeypatch, embedder)
    report = KnowledgeBase(kb.path, embedder=embedder).warm()
    assert (report.computed, report.sentences) == (len(distinct) - stored, len(distinct))
    assert sum(len(run) for run in runs) == len(distinct) - stored
    assert kb.stats().sentence_vectors == len(distinct)
    assert KnowledgeBase(kb.path, embedder=embedder).warm().computed == 0
