"""Ingest with documents read ahead in worker processes writes the index a one-process ingest writes,
reports every file the same way, and finishes the job itself when a worker dies."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
from pathlib import Path

import numpy as np

from tests.unit.kb_fixtures import write
from veracity.kb import FileResult, IngestProgress, KnowledgeBase
from veracity.kb.chunking import ChunkSettings
from veracity.kb.loaders import STREAM_THRESHOLD
from veracity.kb.read_ahead import ReadAhead, ReadDocument, Unchanged, Unreadable, read_document
from veracity.kb.sources import Source, demo_sources
from veracity.kb.vectors import dense_ids, vector_count

PAGE = """<html><head><title>Ferry {n}</title><style>p {{ color: red }}</style></head><body>
<nav><a href="/">Home</a> | <a href="/timetable">Timetable</a></nav>
<article><h1>Ferry route {n}</h1>
<p>The ferry to island {n} leaves the harbour every {minutes} minutes
between April and October. Tickets bought on board cost {price} euros, and
<code class="literal"><span class="pre">season</span><span class="pre">_pass</span></code> holders travel free.</p>
<pre>ferry --route {n} --depart 08:15</pre>
<p>Bicycles may be taken on board except on the last crossing of the day. Dogs
must stay on a lead; cats travel in a closed basket.</p>
<p>In winter the crossing to island {n} runs twice a day, weather permitting.</p>
</article><footer>Copyright the ferry company</footer></body></html>"""


def _corpus(folder: Path) -> Path:
    for n in range(7):
        write(folder / "pages" / f"ferry-{n}.html", PAGE.format(n=n, minutes=20 + 5 * n, price=4 + n))
    for n in range(4):
        write(folder / "notes" / f"note-{n}.md",
              f"# Harbour note {n}\n\nThe harbour office opens at {7 + n} o'clock. Parking costs {n + 2} euros a day.")
    write(folder / "plain.txt", "Lockers at the terminal take coins only. They are emptied every night at midnight.")
    write(folder / "empty.md", "")
    (folder / "binary.txt").write_bytes(b"\x00\x01\x02 not text")
    return folder


def _contents(kb: KnowledgeBase) -> tuple[list[tuple], list[tuple], np.ndarray]:
    """Documents, chunks (with their ids) and every dense vector, in id order."""
    import faiss

    files = kb.manifest().files(kb.path)
    connection = sqlite3.connect(files.meta)
    documents = connection.execute(
        "SELECT id, path, title, sha256, size, chunk_count, notes FROM documents ORDER BY id").fetchall()
    chunks = connection.execute(
        "SELECT c.id, d.path, c.chunk_index, c.start_char, c.end_char, c.text, c.sentence_spans, c.sentence_count"
        " FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY c.id").fetchall()
    connection.close()
    dense = faiss.read_index(str(files.dense))
    ids = [dense_id for row in chunks for dense_id in dense_ids(row[0], vector_count(row[7]))]
    return documents, chunks, np.stack([dense.reconstruct(dense_id) for dense_id in ids])


def _same_index(first: KnowledgeBase, second: KnowledgeBase) -> None:
    documents_a, chunks_a, vectors_a = _contents(first)
    documents_b, chunks_b, vectors_b = _contents(second)
    assert documents_a == documents_b
    assert chunks_a == chunks_b
    assert np.array_equal(vectors_a, vectors_b)  # bit for bit: the same batches were embedded


def _outcomes(results: list[FileResult]) -> list[tuple[str, str, int, str | None]]:
    return [(Path(r.key).name, r.status, r.chunks, r.reason) for r in results]


def test_workers_write_the_index_one_process_writes(tmp_path: Path) -> None:
    docs = _corpus(tmp_path / "docs")
    alone, together = KnowledgeBase(tmp_path / "kb-1"), KnowledgeBase(tmp_path / "kb-2")
    first = alone.ingest([docs], chunk_tokens=40, workers=1)
    second = together.ingest([docs], chunk_tokens=40, workers=2)
    assert _outcomes(first.results) == _outcomes(second.results)
    statuses = [status for _, status, _, _ in _outcomes(second.results)]
    assert statuses.count("added") == 12 and statuses.count("skipped") == 2
    assert first.chunks > 12  # the pages span several chunks, so batches cross documents
    _same_index(alone, together)
    page = next(hit.text for hit in together.search("season_pass holders travel free", limit=1))
    assert "season_pass holders" in page and "--depart" not in page  # code spans joined, listing left out

    write(docs / "pages" / "ferry-3.html", PAGE.format(n=3, minutes=90, price=12))
    write(docs / "notes" / "note-9.md", "# Late note\n\nThe last bus leaves the terminal at 23:10.")
    again_alone, again_together = alone.ingest([docs], workers=1), together.ingest([docs], workers=2)
    assert _outcomes(again_alone.results) == _outcomes(again_together.results)
    by_name = {name: status for name, status, _, _ in _outcomes(again_together.results)}
    assert (by_name["ferry-3.html"], by_name["note-9.md"], by_name["ferry-4.html"]) == ("updated", "added", "unchanged")
    _same_index(alone, together)


class _KillWorkers(IngestProgress):
    """Kills every worker process (as the kernel's out-of-memory killer would) when the third file starts."""

    def __init__(self) -> None:
        self.started_files = 0
        self.killed = 0

    def file_started(self, key: str, size: int = 0) -> None:
        self.started_files += 1
        if self.started_files == 3:
            for child in multiprocessing.active_children():
                os.kill(child.pid, signal.SIGKILL)
                self.killed += 1


def test_when_a_worker_dies_the_ingest_reads_the_rest_itself(tmp_path: Path) -> None:
    docs = _corpus(tmp_path / "docs")
    reference = KnowledgeBase(tmp_path / "kb-1")
    reference.ingest([docs], chunk_tokens=40, workers=1)
    progress = _KillWorkers()
    survivor = KnowledgeBase(tmp_path / "kb-2")
    report = survivor.ingest([docs], chunk_tokens=40, workers=2, progress=progress)
    assert progress.killed >= 1
    assert [r.status for r in report.results].count("added") == 12
    _same_index(reference, survivor)


def test_a_worker_reads_a_document_as_the_ingest_loop_would(tmp_path: Path) -> None:
    settings = ChunkSettings.resolve(40, None, None)
    page = Source.from_path(write(tmp_path / "ferry.html", PAGE.format(n=1, minutes=30, price=5)))
    read = read_document(page, None, settings, STREAM_THRESHOLD)
    assert isinstance(read, ReadDocument) and read.title == "Ferry 1" and read.chunks
    assert all(sentences for _, sentences in read.chunks)
    assert read_document(page, read.digest, settings, STREAM_THRESHOLD) == Unchanged(read.digest)
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\x00 binary")
    skipped = read_document(Source.from_path(binary), None, settings, STREAM_THRESHOLD)
    assert isinstance(skipped, Unreadable) and "binary file" in skipped.reason and skipped.while_loading
    gone = Source.from_path(write(tmp_path / "gone.md", "# Soon gone"))
    os.remove(gone.key)
    missing = read_document(gone, None, settings, STREAM_THRESHOLD)
    assert isinstance(missing, Unreadable) and missing.reason.startswith("cannot read") and not missing.while_loading


def test_reading_ahead_is_kept_for_jobs_it_pays_for(tmp_path: Path) -> None:
    files = [Source.from_path(write(tmp_path / f"n{n}.md", f"# Note {n}\n\nText {n}.")) for n in range(5)]
    assert ReadAhead.wanted(files, workers=2, stream_threshold=STREAM_THRESHOLD)
    assert not ReadAhead.wanted(files, workers=1, stream_threshold=STREAM_THRESHOLD)
    assert not ReadAhead.wanted(files[:3], workers=2, stream_threshold=STREAM_THRESHOLD)
    assert not ReadAhead.wanted([*files, files[0]], workers=2, stream_threshold=STREAM_THRESHOLD)  # a key twice
    assert not ReadAhead.wanted(files, workers=2, stream_threshold=4)  # every file streams
    assert not ReadAhead.wanted([*demo_sources(), files[0]], workers=2, stream_threshold=STREAM_THRESHOLD)
