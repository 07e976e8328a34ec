"""The ingest pipeline: read -> load -> chunk -> embed sentences (static vectors) -> write.

Each sentence of a chunk gets a static vector (a table lookup, see `offline/model/static.py`)
for dense ranking; the MiniLM vectors of its sentences, which the judge reads, are computed
when a search first returns the chunk (see `sentence_store.py`). The chunks of consecutive documents are
embedded together, `EMBED_BATCH_CHUNKS` at a time, and then written document by document. A
document that fails part-way is rolled back on its own; the others, and whatever was indexed
before, are kept. With several usable cores, documents are read (hashed, extracted, chunked and
split) ahead of the loop in worker processes (`read_ahead.py`), and taken back in order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from veracity.kb.chunking import Chunk, ChunkSettings, chunk_stream
from veracity.kb.loaders import STREAM_THRESHOLD, LoadedDocument, SkipDocument
from veracity.kb.read_ahead import Outcome, ReadAhead, ReadDocument, Unchanged, Unreadable, open_document
from veracity.kb.reading import reason_for
from veracity.kb.sources import Skipped, Source
from veracity.kb.vectors import embed_dense
from veracity.sentences import Sentence, split_sentences

if TYPE_CHECKING:
    from veracity.kb.vectors import ChunkEmbedder
    from veracity.kb.writer import GenerationBuilder

Status = Literal["added", "updated", "unchanged", "skipped", "removed"]

EMBED_BATCH_CHUNKS = 256
"""Chunks gathered, across documents, before they are embedded and written; also the
granularity of progress."""


@dataclass(frozen=True)
class FileResult:
    """What happened to one file (or demo note)."""

    key: str
    status: Status
    chunks: int = 0
    reason: str | None = None
    """Why it was skipped."""
    notes: tuple[str, ...] = ()
    """Remarks on an indexed file, e.g. 'decoded with replacement'."""


@dataclass
class IngestReport:
    """The outcome of an ingest or a removal."""

    results: list[FileResult] = field(default_factory=list)
    seconds: float = 0.0
    migrated: bool = False
    """Whether a format-1 index was rewritten in the current format on the way."""

    def with_status(self, status: Status) -> list[FileResult]:
        """The results with the given status."""
        return [result for result in self.results if result.status == status]

    @property
    def chunks(self) -> int:
        """Chunks written (added and updated files)."""
        return sum(result.chunks for result in self.results if result.status in ("added", "updated"))

    @property
    def changed(self) -> bool:
        """Whether the index changed."""
        return any(result.status in ("added", "updated", "removed") for result in self.results)

    def summary(self) -> str:
        """One line, e.g. 'added 2, updated 1, unchanged 3, skipped 1; 14 chunks indexed'."""
        parts = [f"{status} {len(self.with_status(status))}" for status in ("added", "updated", "unchanged", "skipped")]
        if removed := self.with_status("removed"):
            parts.append(f"removed {len(removed)}")
        plural = "" if self.chunks == 1 else "s"
        migrated = "; the index was migrated to the current format" if self.migrated else ""
        return ", ".join(parts) + f"; {self.chunks} chunk{plural} indexed{migrated}"


class IngestProgress:
    """Receives ingest events. Every method does nothing here; the CLI overrides them."""

    def waiting_for_lock(self, lock_path: Path) -> None:
        """Another writer holds the lock; the ingest waits for it."""

    def started(self, files: int, size: int = 0) -> None:
        """The ingest is about to process `files` files, of `size` bytes in all."""

    def file_started(self, key: str, size: int = 0) -> None:
        """A file of `size` bytes is about to be read."""

    def chunks_indexed(self, key: str, count: int) -> None:
        """`count` more chunks of the current file were embedded and written."""

    def file_finished(self, result: FileResult) -> None:
        """A file was processed (indexed, unchanged or skipped).

        An indexed file finishes when its last chunks are written, which may be after later
        files have started.
        """


def skipped_result(skipped: Skipped) -> FileResult:
    """A `FileResult` for a path that discovery already rejected."""
    return FileResult(skipped.key, "skipped", reason=skipped.reason)


@dataclass
class _Pending:
    """A document being read, or read and waiting for its last chunks to be embedded and written."""

    position: int
    """Its place among the sources, which is its place among the results."""
    source: Source
    digest: str
    replaces: bool
    """Whether an older version of it is indexed."""
    document: LoadedDocument
    chunks: list[tuple[Chunk, list[Sentence]]] = field(default_factory=list)
    """Chunks read but not yet written, with their sentences."""
    written: int = 0
    opened: bool = False
    """Whether it is open in the builder (some of its chunks are written)."""
    read: bool = False
    """Whether all its chunks are read."""


class Ingester:
    """Feeds sources into a `GenerationBuilder`.

    Documents are taken one after the other, in the order given; their chunks wait in a queue
    until it holds `batch_chunks` chunks (default: `EMBED_BATCH_CHUNKS`), which are then embedded
    in one call and written. Only the document being taken can be partly written (a long one spans
    several calls). With `workers` above 1, documents are read ahead in that many processes; what
    is written is the same as with one.
    """

    def __init__(self, builder: GenerationBuilder, embedder: ChunkEmbedder, *, settings: ChunkSettings,
                 progress: IngestProgress | None = None, stream_threshold: int = STREAM_THRESHOLD,
                 batch_chunks: int | None = None, workers: int = 1) -> None:
        self.builder = builder
        self.embedder = embedder
        self.settings = settings
        self.progress = progress or IngestProgress()
        self.stream_threshold = stream_threshold
        self.batch_chunks = batch_chunks or EMBED_BATCH_CHUNKS
        self.workers = workers
        self._queue: list[_Pending] = []
        self._queued_chunks = 0
        self._results: list[FileResult | None] = []

    def ingest(self, sources: list[Source]) -> list[FileResult]:
        """Ingest the sources and report on each, in their order."""
        self._results = [None] * len(sources)
        ahead = self._read_ahead(sources)
        try:
            for position, source in enumerate(sources):
                self.progress.file_started(source.key, source.size)
                if any(pending.source.key == source.key for pending in self._queue):
                    self._flush()  # the same file given twice: the second must see the first
                outcome = ahead.take(position) if ahead is not None else None
                if (result := self._read(position, source, outcome)) is not None:
                    self._finish(position, result)
            self._flush()
        finally:
            if ahead is not None:
                ahead.close()
        results = [result for result in self._results if result is not None]
        if len(results) != len(sources):
            raise RuntimeError("an ingested source has no result")
        return results

    def _read_ahead(self, sources: list[Source]) -> ReadAhead | None:
        """Worker processes reading the documents ahead, when that pays (see `ReadAhead.wanted`)."""
        if not ReadAhead.wanted(sources, self.workers, self.stream_threshold):
            return None
        digests = [found[1].sha256 if (found := self.builder.find(source.key)) else None for source in sources]
        return ReadAhead(sources, digests, workers=self.workers, settings=self.settings,
                         stream_threshold=self.stream_threshold)

    def _read(self, position: int, source: Source,
              outcome: Outcome | tuple[str, LoadedDocument] | None) -> FileResult | None:
        """Queue one source's chunks, reading it here unless a worker did; its result if already settled."""
        existing = self.builder.find(source.key)
        kept = "; the version indexed before is kept" if existing else ""
        if outcome is None:
            outcome = open_document(source, existing[1].sha256 if existing else None, self.stream_threshold)
        if isinstance(outcome, Unreadable):
            return FileResult(source.key, "skipped", reason=outcome.reason + (kept if outcome.while_loading else ""))
        if isinstance(outcome, Unchanged):
            return FileResult(source.key, "unchanged", existing[1].chunks if existing else 0)
        if isinstance(outcome, ReadDocument):
            document = LoadedDocument(outcome.title, iter(()), list(outcome.notes), outcome.empty_reason)
            digest, chunks = outcome.digest, iter(outcome.chunks)
        else:
            digest, document = outcome
            chunks = ((chunk, split_sentences(chunk.text)) for chunk in chunk_stream(document.pieces, self.settings))
        return self._queue_chunks(_Pending(position, source, digest, existing is not None, document), chunks, kept)

    def _queue_chunks(self, pending: _Pending, chunks: Iterator[tuple[Chunk, list[Sentence]]],
                      kept: str) -> FileResult | None:
        """Queue a document's chunks, flushing whenever the queue is full; its result if it cannot be indexed."""
        self._queue.append(pending)
        while True:
            try:
                item = next(chunks, None)
            except (SkipDocument, OSError) as exc:
                self._drop(pending)
                return FileResult(pending.source.key, "skipped", reason=reason_for(exc) + kept)
            except BaseException:
                self._drop(pending)
                raise
            if item is None:
                break
            pending.chunks.append(item)
            self._queued_chunks += 1
            if self._queued_chunks >= self.batch_chunks:
                self._flush()  # a failure here is not this document's: it ends the ingest
        if not pending.chunks and not pending.written:
            self._drop(pending)
            return FileResult(pending.source.key, "skipped", reason=pending.document.empty_reason + kept)
        pending.read = True
        return None

    def _drop(self, pending: _Pending) -> None:
        """Forget a document that cannot be indexed; what of it was written is rolled back."""
        self._queue.remove(pending)
        self._queued_chunks -= len(pending.chunks)
        if pending.opened:
            self.builder.discard_document()

    def _flush(self) -> None:
        """Embed the queued chunks' sentences in one call, write each queued document's chunks, close those read."""
        per_chunk = embed_dense(self.embedder, [(chunk.text, [s.text for s in sentences]) for pending in self._queue
                                                for chunk, sentences in pending.chunks])
        position = 0
        for pending in self._queue:
            if pending.chunks:
                count = len(pending.chunks)
                self._write(pending, per_chunk[position:position + count])
                position += count
            if pending.read:
                notes = tuple(dict.fromkeys(pending.document.notes))
                self.builder.close_document(title=pending.document.title, chunks=pending.written, notes=notes)
                status: Status = "updated" if pending.replaces else "added"
                self._finish(pending.position, FileResult(pending.source.key, status, pending.written, notes=notes))
        self._queue = [pending for pending in self._queue if not pending.read]
        self._queued_chunks = 0

    def _write(self, pending: _Pending, vectors: list[np.ndarray]) -> None:
        """Write a document's queued chunks, given each one's dense vectors."""
        if not pending.opened:
            source = pending.source
            self.builder.open_document(source.key, sha256=pending.digest, size=source.size, mtime=source.mtime)
            pending.opened = True
        self.builder.add_chunks(
            [chunk for chunk, _ in pending.chunks],
            [[(s.start, s.end) for s in sentences] for _, sentences in pending.chunks],
            vectors,
        )
        count = len(pending.chunks)
        pending.written += count
        pending.chunks = []
        self.progress.chunks_indexed(pending.source.key, count)

    def _finish(self, position: int, result: FileResult) -> None:
        self._results[position] = result
        self.progress.file_finished(result)
