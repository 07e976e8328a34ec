"""The ingest pipeline: load -> chunk -> embed sentences -> write, one document at a time.

A document that fails part-way is rolled back on its own; the others, and whatever was
indexed before, are kept.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from veracity.kb.chunking import Chunk, ChunkSettings, chunk_stream
from veracity.kb.loaders import STREAM_THRESHOLD, SkipDocument, load
from veracity.kb.sources import Skipped, Source
from veracity.kb.vectors import mean_vector
from veracity.offline.sentences import Sentence, split_sentences

if TYPE_CHECKING:
    from veracity.kb.writer import GenerationBuilder
    from veracity.offline.model.embedder import Embedder

Status = Literal["added", "updated", "unchanged", "skipped", "removed"]

EMBED_BATCH_SENTENCES = 256
"""Sentences embedded per call to the embedder while ingesting."""


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
        return ", ".join(parts) + f"; {self.chunks} chunk{plural} indexed"


class IngestProgress:
    """Receives ingest events. Every method does nothing here; the CLI overrides them."""

    def waiting_for_lock(self, lock_path: Path) -> None:
        """Another writer holds the lock; the ingest waits for it."""

    def started(self, files: int) -> None:
        """The ingest is about to process `files` files."""

    def file_started(self, key: str) -> None:
        """A file is about to be processed."""

    def chunks_indexed(self, key: str, count: int) -> None:
        """`count` more chunks of the current file were embedded and written."""

    def file_finished(self, result: FileResult) -> None:
        """A file was processed (indexed, unchanged or skipped)."""


def sha256_of(source: Source) -> str:
    """The SHA-256 of a source's bytes, read in blocks."""
    digest = hashlib.sha256()
    with source.open() as handle:
        while block := handle.read(1024 * 1024):
            digest.update(block)
    return digest.hexdigest()


def skipped_result(skipped: Skipped) -> FileResult:
    """A `FileResult` for a path that discovery already rejected."""
    return FileResult(skipped.key, "skipped", reason=skipped.reason)


def _batches(chunks: Iterable[Chunk]) -> Iterator[list[tuple[Chunk, list[Sentence]]]]:
    """Chunks with their sentences, grouped so that each group holds about EMBED_BATCH_SENTENCES sentences."""
    batch: list[tuple[Chunk, list[Sentence]]] = []
    size = 0
    for chunk in chunks:
        sentences = split_sentences(chunk.text)
        batch.append((chunk, sentences))
        size += len(sentences)
        if size >= EMBED_BATCH_SENTENCES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


class Ingester:
    """Feeds sources into a `GenerationBuilder`."""

    def __init__(self, builder: GenerationBuilder, embedder: Embedder, *, settings: ChunkSettings,
                 progress: IngestProgress | None = None, stream_threshold: int = STREAM_THRESHOLD) -> None:
        self.builder = builder
        self.embedder = embedder
        self.settings = settings
        self.progress = progress or IngestProgress()
        self.stream_threshold = stream_threshold

    def ingest(self, sources: list[Source]) -> list[FileResult]:
        """Ingest each source in turn and report on each."""
        results = []
        for source in sources:
            self.progress.file_started(source.key)
            result = self.ingest_one(source)
            self.progress.file_finished(result)
            results.append(result)
        return results

    def ingest_one(self, source: Source) -> FileResult:
        """Index one source: unchanged (same SHA-256) is a no-op, changed replaces its old chunks."""
        try:
            digest = sha256_of(source)
        except OSError as exc:
            return FileResult(source.key, "skipped", reason=f"cannot read: {exc.strerror or exc}")
        existing = self.builder.find(source.key)
        if existing is not None and existing[1].sha256 == digest:
            return FileResult(source.key, "unchanged", existing[1].chunks)
        kept = "; the version indexed before is kept" if existing else ""
        try:
            document = load(source, stream_threshold=self.stream_threshold)
        except (SkipDocument, OSError) as exc:
            return FileResult(source.key, "skipped", reason=_reason(exc) + kept)
        self.builder.open_document(source.key, sha256=digest, size=source.size, mtime=source.mtime)
        try:
            count = 0
            for batch in _batches(chunk_stream(document.pieces, self.settings)):
                self._write(batch)
                count += len(batch)
                self.progress.chunks_indexed(source.key, len(batch))
            if count == 0:
                raise SkipDocument(document.empty_reason)
        except (SkipDocument, OSError) as exc:
            self.builder.discard_document()
            return FileResult(source.key, "skipped", reason=_reason(exc) + kept)
        except BaseException:
            self.builder.discard_document()
            raise
        notes = tuple(dict.fromkeys(document.notes))
        self.builder.close_document(title=document.title, chunks=count, notes=notes)
        return FileResult(source.key, "updated" if existing else "added", count, notes=notes)

    def _write(self, batch: list[tuple[Chunk, list[Sentence]]]) -> None:
        texts = [sentence.text for _, sentences in batch for sentence in sentences]
        vectors = self.embedder.embed(texts)
        per_chunk, start = [], 0
        for _, sentences in batch:
            per_chunk.append(vectors[start:start + len(sentences)])
            start += len(sentences)
        self.builder.add_chunks(
            [chunk for chunk, _ in batch],
            [[(s.start, s.end) for s in sentences] for _, sentences in batch],
            per_chunk,
            np.stack([mean_vector(v) for v in per_chunk]),
        )


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return f"cannot read: {exc.strerror or exc}"
    return str(exc)
