"""Reading documents ahead of the ingest loop, in worker processes: one per usable core.

Reading a document (hashing it, extracting its text, cutting it into chunks, splitting those
into sentences) is pure Python work that holds one core; for HTML it is most of an ingest. The
ingest loop hands the files it will need next to a pool of worker processes and takes each
document back in the order of the sources, so the chunks, their ids and the batches they are
embedded in are the same as a one-core run's.

Only files on disk up to the stream threshold are read ahead: a larger file is streamed by the
ingest loop itself (its text is never whole in memory), and a demo note is too small to be worth
sending. If the pool breaks (a worker killed, say, for memory), the loop reads the remaining
documents itself.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from veracity.kb.chunking import Chunk, ChunkSettings, chunk_stream
from veracity.kb.loaders import LoadedDocument, SkipDocument, load
from veracity.kb.reading import read_source, reason_for
from veracity.kb.sources import DEMO_PREFIX, Source
from veracity.sentences import Sentence, split_sentences

MIN_DOCUMENTS = 4
"""Fewer documents than this to read are read in the ingest loop: starting workers costs more."""

AHEAD_PER_WORKER = 4
"""Documents in flight per worker; bounds the memory that read documents waiting their turn take."""


@dataclass(frozen=True)
class ReadDocument:
    """A document read whole: its digest, title, notes, and its chunks with their sentences."""

    digest: str
    title: str
    notes: tuple[str, ...]
    chunks: list[tuple[Chunk, list[Sentence]]]
    empty_reason: str


@dataclass(frozen=True)
class Unchanged:
    """The file's bytes are those already indexed; it was not loaded."""

    digest: str


@dataclass(frozen=True)
class Unreadable:
    """The file cannot be indexed; `reason` is what the user is shown."""

    reason: str
    while_loading: bool = True
    """False when its bytes could not be read at all; True when they could but not its text (the
    ingest then adds that an older version stays indexed, if there is one)."""


Outcome = ReadDocument | Unchanged | Unreadable


def open_document(source: Source, indexed_digest: str | None,
                  stream_threshold: int) -> Unreadable | Unchanged | tuple[str, LoadedDocument]:
    """Hash a source and open its text (read lazily: a large file streams as it is chunked).

    Unchanged, without loading, when its digest is `indexed_digest`.
    """
    try:
        loadable, digest = read_source(source, stream_threshold)
    except OSError as exc:
        return Unreadable(reason_for(exc), while_loading=False)
    if digest == indexed_digest:
        return Unchanged(digest)
    try:
        return digest, load(loadable, stream_threshold=stream_threshold)
    except (SkipDocument, OSError) as exc:
        return Unreadable(reason_for(exc))


def read_document(source: Source, indexed_digest: str | None, settings: ChunkSettings,
                  stream_threshold: int) -> Outcome:
    """Hash, load, chunk and split one document: what a worker does."""
    opened = open_document(source, indexed_digest, stream_threshold)
    if not isinstance(opened, tuple):
        return opened
    digest, document = opened
    try:
        chunks = [(chunk, split_sentences(chunk.text)) for chunk in chunk_stream(document.pieces, settings)]
    except (SkipDocument, OSError) as exc:
        return Unreadable(reason_for(exc))
    return ReadDocument(digest, document.title, tuple(document.notes), chunks, document.empty_reason)


def sent_ahead(source: Source, stream_threshold: int) -> bool:
    """Whether a source is read by a worker: a non-empty file on disk, not streamed."""
    return not source.key.startswith(DEMO_PREFIX) and 0 < source.size <= stream_threshold


def _quiet_worker() -> None:
    """Leave Ctrl-C to the ingest loop, which stops the pool; a worker would only print a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class ReadAhead:
    """Reads the eligible sources in worker processes, a bounded number ahead of the ingest loop."""

    def __init__(self, sources: Sequence[Source], indexed_digests: Sequence[str | None], *, workers: int,
                 settings: ChunkSettings, stream_threshold: int) -> None:
        """Start `workers` processes for the sources worth reading ahead (see the module docstring)."""
        self._sources = sources
        self._digests = indexed_digests
        self._settings = settings
        self._stream_threshold = stream_threshold
        self._eligible = [position for position, source in enumerate(sources) if sent_ahead(source, stream_threshold)]
        self._next = 0
        self._futures: dict[int, Future[Outcome]] = {}
        workers = min(workers, len(self._eligible))  # a worker per document at most: each costs a start
        self._window = workers * AHEAD_PER_WORKER
        # spawn, not fork: the ingesting process may already run threads (the tokenizer's, a server's)
        self._pool: ProcessPoolExecutor | None = ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn"), initializer=_quiet_worker)
        self._fill()

    @staticmethod
    def wanted(sources: Sequence[Source], workers: int, stream_threshold: int) -> bool:
        """Whether reading ahead pays: several workers, enough documents, each source named once."""
        keys = [source.key for source in sources]
        eligible = sum(sent_ahead(source, stream_threshold) for source in sources)
        return workers > 1 and eligible >= MIN_DOCUMENTS and len(set(keys)) == len(keys)

    def _fill(self) -> None:
        while self._pool is not None and len(self._futures) < self._window and self._next < len(self._eligible):
            position = self._eligible[self._next]
            self._next += 1
            try:
                self._futures[position] = self._pool.submit(read_document, self._sources[position],
                                                            self._digests[position], self._settings,
                                                            self._stream_threshold)
            except BrokenProcessPool:
                self._broken()

    def take(self, position: int) -> Outcome | None:
        """The outcome for the source at `position`, waiting for it; None when the loop must read it itself."""
        future = self._futures.pop(position, None)
        if future is None:
            return None
        try:
            outcome = future.result()
        except BrokenProcessPool:
            self._broken()
            return None
        self._fill()
        return outcome

    def _broken(self) -> None:
        """A worker died: drop the pool; what was not read yet is read by the ingest loop."""
        self._futures.clear()
        self.close()

    def close(self) -> None:
        """Stop the workers; documents not taken yet are dropped."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
