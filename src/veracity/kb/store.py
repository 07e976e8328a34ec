"""`KnowledgeBase`: the local index of the user's documents, searched by the `kb` evidence backend."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from veracity.contracts import SearchHit
from veracity.cores import usable_cores
from veracity.errors import KnowledgeBaseError
from veracity.kb import metadata
from veracity.kb.checksums import Damage, full_check
from veracity.kb.chunking import ChunkSettings
from veracity.kb.fusion import rerank
from veracity.kb.generation import open_metadata, verify
from veracity.kb.in_flight import InFlight
from veracity.kb.ingest import (
    FileResult,
    Ingester,
    IngestProgress,
    IngestReport,
    skipped_result,
)
from veracity.kb.loaders import STREAM_THRESHOLD
from veracity.kb.lock import LOCK_NAME, writer_lock
from veracity.kb.manifest import (
    FORMAT_VERSION,
    GENERATION_PREFIX,
    LEGACY_FORMAT_VERSION,
    MANIFEST_NAME,
    TEMPORARY_PREFIX,
    Manifest,
    is_knowledge_base,
    read_manifest,
)
from veracity.kb.paths import default_kb_path, missing
from veracity.kb.sentence_store import STORE_FILES, SentenceVectorStore, StoreCheck
from veracity.kb.shortlist import Shortlist, empty_shortlist
from veracity.kb.sources import DEMO_PREFIX, Source, demo_sources, discover
from veracity.kb.vectors import embed_on_threads

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from veracity.kb.index import IndexReader
    from veracity.kb.vectors import ChunkEmbedder
    from veracity.kb.writer import GenerationBuilder
    from veracity.offline.model.embedder import Embedder

logger = logging.getLogger(__name__)

RERANK_EXTRA = 3
"""A search reranks this many chunks beyond those it returns: chosen by recall@5 of the gold
evidence on the shared benchmark corpora (docs/benchmarks-history.md, "Ingest, retrieval and first touch")."""

FIRST_TOUCH_SPLIT = 64
"""A first touch of at least this many sentences is embedded on several threads (`_embed_and_store`)."""

FIRST_TOUCH_THREADS = 4
"""At most this many threads embed one first touch."""

WARM_BATCH = 512
"""Sentences embedded and stored per step of `KnowledgeBase.warm`."""


@dataclass(frozen=True)
class KnowledgeBaseStats:
    """Figures shown by `veracity kb stats`."""

    location: Path
    model_id: str
    dimensions: int
    documents: int
    chunks: int
    sentences: int
    sentence_vectors: int
    """Sentence vectors kept in the sentence store (filled by searches and `veracity kb warm`)."""
    size_bytes: int
    chunk_tokens: int
    overlap_tokens: int
    token_count: str
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class IntegrityReport:
    """What `veracity kb verify` found: the files hashed and those that are damaged."""

    location: Path
    generation: str
    files: int
    size_bytes: int
    damage: list[Damage]
    recorded: bool
    """False for a manifest written before checksums existed: the index opens, but nothing could be compared."""
    store: StoreCheck | None = None
    """What the check of every row of the sentence-vector store found; None when there is no store yet."""


def _manifest_identity(path: Path) -> tuple[int, int, int] | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_ino, status.st_mtime_ns, status.st_size


def _is_ours(name: str) -> bool:
    return name in (LOCK_NAME, MANIFEST_NAME, *STORE_FILES) or name.startswith((GENERATION_PREFIX, TEMPORARY_PREFIX))


def _size_on_disk(folder: Path) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += (Path(root) / name).stat().st_size
            except OSError:  # deleted meanwhile by a concurrent ingest
                pass
    return total


@dataclass(frozen=True)
class WarmReport:
    """What `KnowledgeBase.warm` did."""

    computed: int
    """Sentence vectors computed and stored now."""
    sentences: int
    """Distinct sentences in the knowledge base."""
    seconds: float


class WarmProgress:
    """Receives warm-up events. Every method does nothing here; the CLI overrides them."""

    def started(self, sentences: int, missing: int) -> None:
        """`missing` of the `sentences` distinct sentences have no stored vector yet."""

    def advanced(self, count: int) -> None:
        """`count` more vectors were computed and stored."""


def _match(target: str | Path) -> tuple[str, str | None]:
    """The document key `target` names exactly, and the key prefix of the documents under it."""
    text = str(target)
    if text.startswith(DEMO_PREFIX):
        return text, DEMO_PREFIX if text == DEMO_PREFIX else None
    resolved = str(Path(text).expanduser().resolve())
    return resolved, resolved.rstrip(os.sep) + os.sep


class KnowledgeBase:
    """A knowledge base folder: ingest documents into it, search it, list and remove what it holds.

    The index is loaded on the first search and kept; a change made by another process (or
    another `KnowledgeBase` object) is picked up on the next search.

    Chunks are ranked with static vectors (`chunk_embedder`); the sentence vectors the judge
    reads come from `embedder` the first time a chunk is returned, and are kept in the
    knowledge base's sentence store from then on.
    """

    def __init__(self, path: str | Path | None = None, *, embedder: Embedder | None = None,
                 chunk_embedder: ChunkEmbedder | None = None) -> None:
        self.path = Path(path).expanduser() if path is not None else default_kb_path()
        self._embedder = embedder
        self._chunk_embedder = chunk_embedder
        self._sentence_store: SentenceVectorStore | None = None
        self._reader: IndexReader | None = None
        self._reader_identity: tuple[int, int, int] | None = None
        self._changed_in_use: dict[str, set[str]] = {}
        """By generation, the names of its memory-mapped files seen to change on disk while searched."""
        self._loading = threading.Lock()
        self._first_touch: InFlight[str, NDArray[np.float32]] = InFlight()

    def __repr__(self) -> str:
        return f"KnowledgeBase({str(self.path)!r})"

    @property
    def embedder(self) -> Embedder:
        """The sentence embedder (the process-wide default unless one was given)."""
        if self._embedder is None:
            from veracity.offline.model.embedder import default_embedder

            self._embedder = default_embedder()
        return self._embedder

    @property
    def chunk_embedder(self) -> ChunkEmbedder:
        """The first stage's embedder of chunk sentences (the process-wide static one unless one was given)."""
        if self._chunk_embedder is None:
            from veracity.offline.model.static import default_static_embedder

            self._chunk_embedder = default_static_embedder()
        return self._chunk_embedder

    @property
    def sentence_store(self) -> SentenceVectorStore:
        """Where the judge's sentence vectors are kept between runs."""
        if self._sentence_store is None:
            from veracity.offline.model.embedder import DIMENSIONS, MODEL_ID

            self._sentence_store = SentenceVectorStore(self.path, model_id=MODEL_ID, dimensions=DIMENSIONS)
        return self._sentence_store

    # ------------------------------------------------------------------ state

    def exists(self) -> bool:
        """Whether the folder holds a knowledge base (usable or not)."""
        return is_knowledge_base(self.path)

    def _read_manifest(self) -> Manifest | None:
        from veracity.offline.model.embedder import DIMENSIONS, MODEL_ID
        from veracity.offline.model.static import STATIC_DIMENSIONS, STATIC_MODEL_ID

        models = {LEGACY_FORMAT_VERSION: (MODEL_ID, DIMENSIONS), FORMAT_VERSION: (STATIC_MODEL_ID, STATIC_DIMENSIONS)}
        return read_manifest(self.path, models=models)

    def manifest(self) -> Manifest:
        """The current manifest; `KnowledgeBaseError` if there is no usable knowledge base."""
        manifest = self._read_manifest()
        if manifest is None:
            raise missing(self.path)
        return manifest

    def verify(self) -> Manifest:
        """Check, without loading the index, that the knowledge base exists and its files look intact."""
        manifest = self.manifest()
        verify(self.path, manifest)
        return manifest

    def check_integrity(self) -> IntegrityReport:
        """Hash every file of the current generation again and compare it with its checksum (`veracity kb verify`).

        Every row of the sentence-vector store is checked too (see `sentence_store.py`).
        Without recorded checksums the index is opened as a search would open it instead.
        Raises `KnowledgeBaseError` when there is no usable manifest, or, without checksums,
        when the index cannot be opened.
        """
        manifest = self.manifest()
        if manifest.checksums is None:
            self.load()
            return IntegrityReport(self.path.resolve(), manifest.generation, 0, 0, [], recorded=False,
                                   store=self.sentence_store.check())
        damage = full_check(self.path, manifest.generation, manifest.checksums)
        if damage and self.manifest().generation != manifest.generation:
            return self.check_integrity()  # an ingest replaced the generation while it was read
        size = sum(record.size for record in manifest.checksums.values())
        return IntegrityReport(self.path.resolve(), manifest.generation, len(manifest.checksums), size, damage,
                               recorded=True, store=self.sentence_store.check())

    def load(self) -> IndexReader:
        """The loaded index for the current generation (loaded once, reloaded after a change).

        Before a loaded index is used again, the files it memory-maps are looked at (a `stat`
        each, see `mapped.py`). A reader whose files changed on disk is never searched again: the
        generation is opened anew with the changed files hashed, so damage raises
        `KnowledgeBaseError` (at every later search too) and a file put back as it was is mapped again.
        """
        identity = _manifest_identity(self.path / MANIFEST_NAME)
        reader = self._reader
        if reader is not None and identity == self._reader_identity and not reader.mapped.changed():
            return reader
        with self._loading:
            reader = self._reader
            if reader is not None and identity == self._reader_identity:
                if not (moved := reader.mapped.changed()):
                    return reader
                self._reader = None
                self._changed_in_use.setdefault(reader.manifest.generation, set()).update(moved)
                logger.warning("the knowledge base at %s changed on disk while in use (%s in %s); its index is "
                               "checked again before any search reads it", self.path,
                               "; ".join(reader.mapped.describe(name) for name in moved), reader.manifest.generation)
            try:
                reader = self._open_reader()
            except KnowledgeBaseError:
                # A concurrent ingest may have swapped generations while we read: try the new one once.
                if _manifest_identity(self.path / MANIFEST_NAME) == identity:
                    raise
                identity = _manifest_identity(self.path / MANIFEST_NAME)
                reader = self._open_reader()
            self._reader, self._reader_identity = reader, identity
            return reader

    def _open_reader(self) -> IndexReader:
        """Open the current generation, hashing its files seen to change while in use."""
        from veracity.kb.index import IndexReader

        manifest = self.manifest()
        reader = IndexReader(self.path, manifest, changed=self._changed_in_use.get(manifest.generation, ()))
        self._changed_in_use.pop(manifest.generation, None)  # hashed and found as written
        return reader

    # ------------------------------------------------------------------ search

    def search(self, query: str, limit: int = 5) -> list[SearchHit]:
        """The best `limit` chunks for `query`: hybrid search, then a rerank by their closest sentence.

        The first stage fuses (reciprocal rank fusion) a dense ranking, the query's MiniLM vector
        against every sentence's static vector (a chunk ranks by its best sentence), with BM25.
        Its best `limit + RERANK_EXTRA` chunks are then ordered again by fusing two rankings of
        them: by the closest MiniLM sentence vector to the query, and by BM25 (those sharing no
        term with the query last, in first-stage order). The static vectors only choose the
        candidates; the transformer's vectors and the words order them. Each hit's title is the
        document title, url the document path (or `demo:<name>`), text the chunk and score the
        final fused score.

        The sentence vectors read here are put in the embedder's cache, where the judge finds
        them: stored ones are read, and those of a chunk returned for the first time are computed
        now and stored for every later search. The three parts (`shortlist`, `embed_first_touch`,
        `reranked`) can be run one by one, as the `kb` evidence backend does.
        """
        shortlist = self.shortlist(query, limit)
        self.embed_first_touch(shortlist)
        return self.reranked(shortlist)

    def shortlist(self, query: str, limit: int) -> Shortlist:
        """The first stage of `search`: its candidates, with the sentence vectors stored for them already."""
        reader = self.load()
        if limit < 1 or not query.strip() or reader.manifest.chunks == 0:
            return empty_shortlist(self.sentence_store.dimensions)
        query_vector = self.embedder.embed([query])[0]
        ranking = reader.rank(query, query_vector, limit + RERANK_EXTRA)
        candidates = reader.candidates(ranking.fused)
        wanted = list(dict.fromkeys(text for c in candidates if c.stored is None for text in c.sentences))
        known = self.sentence_store.lookup(wanted) if wanted else {}
        return Shortlist(query_vector, candidates, ranking.lexical, limit, wanted, known)

    def embed_first_touch(self, shortlist: Shortlist) -> None:
        """Compute and store the vectors of the shortlist's sentences that have none (their chunk's first retrieval).

        Searches running side by side (a check's claims) share the sentences both need.
        """
        if fresh := shortlist.fresh:
            shortlist.known.update(self._first_touch.compute(fresh, self._embed_and_store))

    def reranked(self, shortlist: Shortlist) -> list[SearchHit]:
        """The last stage of `search`: the shortlist's best `limit` chunks, reranked (every vector must be known)."""
        candidates = shortlist.candidates
        closest = [float(np.max(vectors @ shortlist.query_vector)) if len(vectors) else -1.0
                   for vectors in self._sentence_vectors(shortlist)]
        place = {chunk_id: n for n, chunk_id in enumerate(shortlist.lexical)}
        fused = rerank(closest, [place.get(candidate.chunk_id) for candidate in candidates])[:shortlist.limit]
        return [candidates[i].hit.model_copy(update={"score": score}) for i, score in fused]

    def _sentence_vectors(self, shortlist: Shortlist) -> list[NDArray[np.float32]]:
        """Each candidate's MiniLM sentence vectors, put in the embedder's cache.

        A format-1 index has them; otherwise they were read from the sentence store, or computed
        (the chunk's first retrieval) and stored.
        """
        self.embed_first_touch(shortlist)  # none left, unless the caller skipped that part
        result = []
        for candidate in shortlist.candidates:
            if candidate.stored is not None:
                vectors = candidate.stored
            elif candidate.sentences:
                vectors = np.stack([shortlist.known[text] for text in candidate.sentences])
            else:
                vectors = np.zeros((0, self.sentence_store.dimensions), dtype=np.float32)
            self.embedder.prime(candidate.sentences, vectors)
            result.append(vectors)
        return result

    def _embed_and_store(self, texts: list[str]) -> list[NDArray[np.float32]]:
        """The MiniLM vectors of sentences met for the first time, kept in the sentence store.

        Many at once (a handbook's chunks hold hundreds) are embedded on one thread per usable
        core, up to `FIRST_TOUCH_THREADS`: the default model session runs on one core per call.
        """
        threads = min(usable_cores(), FIRST_TOUCH_THREADS) if len(texts) >= FIRST_TOUCH_SPLIT else 1
        vectors = embed_on_threads(self.embedder, texts, threads)
        self.sentence_store.store(texts, vectors)
        return list(vectors)

    def warm(self, progress: WarmProgress | None = None) -> WarmReport:
        """Compute and store the sentence vectors of every chunk that has none yet (`veracity kb warm`).

        Optional: a search computes a chunk's vectors the first time it returns it. Work is
        stored every `WARM_BATCH` sentences, so an interrupted warm-up keeps what it did.
        Raises `KnowledgeBaseError` when the vectors cannot be stored.
        """
        progress = progress or WarmProgress()
        started = time.perf_counter()
        manifest = self.manifest()
        if manifest.legacy:
            return WarmReport(0, manifest.sentences, 0.0)  # a format-1 index holds every vector already
        from veracity.offline.model.embedder import bulk_embedder

        connection = open_metadata(self.path, manifest.files(self.path), readonly=True)
        try:
            texts = list(dict.fromkeys(text for batch in metadata.chunk_batches(connection, WARM_BATCH)
                                       for chunk in batch.sentences for text in chunk))
        finally:
            connection.close()
        missing = self.sentence_store.absent(texts)
        progress.started(len(texts), len(missing))
        embedder = self._embedder or bulk_embedder()
        for start in range(0, len(missing), WARM_BATCH):
            part = missing[start:start + WARM_BATCH]
            if self.sentence_store.store(part, embedder.embed(part)) < len(part):
                raise KnowledgeBaseError(f"cannot store sentence vectors in {self.sentence_store.path} (is the folder "
                                         "writable? the warning above says why); searches still work without them")
            progress.advanced(len(part))
        return WarmReport(len(missing), len(texts), time.perf_counter() - started)

    # ------------------------------------------------------------------ writing

    def ingest(self, paths: Iterable[str | Path], *, replace: bool = False, demo: bool = False,
               chunk_tokens: int | None = None, overlap_tokens: int | None = None,
               progress: IngestProgress | None = None, stream_threshold: int = STREAM_THRESHOLD,
               lock_timeout: float | None = None, workers: int = 1) -> IngestReport:
        """Index files and folders (recursively) of .txt, .md, .html/.htm and .pdf.

        `replace` rebuilds the knowledge base from these documents only (it also repairs a damaged
        one); otherwise they are added: unchanged files are skipped, changed ones replaced.
        `demo` adds the bundled demo notes. Chunk settings not given are the knowledge base's own.
        A knowledge base that does not exist yet is created empty first, so an ingest that fails
        or is interrupted leaves an empty one. FIFOs, devices and sockets are skipped unopened.
        """
        sources, skipped = discover(paths)
        if demo:
            sources = demo_sources() + sources
        return self.ingest_sources(
            sources, skipped=[skipped_result(s) for s in skipped], replace=replace, chunk_tokens=chunk_tokens,
            overlap_tokens=overlap_tokens, progress=progress, stream_threshold=stream_threshold,
            lock_timeout=lock_timeout, create_empty=True, workers=workers,
        )

    def ingest_sources(self, sources: Sequence[Source], *, skipped: Sequence[FileResult] = (),
                       replace: bool = False, chunk_tokens: int | None = None, overlap_tokens: int | None = None,
                       progress: IngestProgress | None = None, stream_threshold: int = STREAM_THRESHOLD,
                       lock_timeout: float | None = None, create_empty: bool = False,
                       workers: int = 1) -> IngestReport:
        """Index the given sources (see `ingest`); `skipped` are reported as they are.

        With `create_empty`, a knowledge base that does not exist yet is first created empty.
        Without it (as when the demo notes are seeded) an ingest that fails leaves none.
        """
        progress = progress or IngestProgress()
        started = time.perf_counter()
        self._check_folder()
        with writer_lock(self.path, on_wait=progress.waiting_for_lock, timeout=lock_timeout):
            previous = None if replace else self._read_manifest()
            base = previous.settings if previous else None
            settings = ChunkSettings.resolve(chunk_tokens, overlap_tokens, base)
            if previous is not None and settings != previous.settings:
                raise KnowledgeBaseError(
                    f"the knowledge base at {self.path} cuts chunks of {previous.settings.chunk_tokens} tokens with "
                    f"{previous.settings.overlap_tokens} overlap; to change that, rebuild it: "
                    f"veracity ingest --replace --kb {self.path} --chunk-tokens N PATH..."
                )
            progress.started(len(sources) + len(skipped), sum(source.size for source in sources))
            for result in skipped:
                progress.file_finished(result)
            if create_empty and previous is None and not self.exists():
                self._builder(None, settings).commit()
            builder = self._builder(previous, settings)
            try:
                ingester = Ingester(builder, self.chunk_embedder, settings=settings, progress=progress,
                                    stream_threshold=stream_threshold, workers=workers)
                results = [*skipped, *ingester.ingest(list(sources))]
                self._finish(builder)
            except BaseException:
                builder.abort()
                raise
        return IngestReport(results, time.perf_counter() - started, migrated=builder.migrated)

    def remove(self, targets: Iterable[str | Path], *, progress: IngestProgress | None = None,
               lock_timeout: float | None = None) -> IngestReport:
        """Remove documents: a file's path, every document under a folder, `demo:<name>`, or `demo:` for all demo notes.

        A target that matches nothing is reported as skipped.
        """
        progress = progress or IngestProgress()
        started = time.perf_counter()
        results: list[FileResult] = []
        self.manifest()  # fail before the lock creates anything where there is no knowledge base
        with writer_lock(self.path, on_wait=progress.waiting_for_lock, timeout=lock_timeout):
            previous = self.manifest()
            builder = self._builder(previous, previous.settings)
            try:
                removed: set[int] = set()
                for target in targets:
                    matches = [(i, p) for i, p in builder.matching(*_match(target)) if i not in removed]
                    if not matches:
                        results.append(FileResult(str(target), "skipped", reason="no indexed document at or under it"))
                    for document_id, path in matches:
                        builder.remove(document_id)
                        removed.add(document_id)
                        results.append(FileResult(path, "removed"))
                self._finish(builder)
            except BaseException:
                builder.abort()
                raise
        return IngestReport(results, time.perf_counter() - started, migrated=builder.migrated)

    def _builder(self, previous: Manifest | None, settings: ChunkSettings) -> GenerationBuilder:
        from veracity.kb.writer import GenerationBuilder
        from veracity.offline.model.static import STATIC_DIMENSIONS, STATIC_MODEL_ID

        return GenerationBuilder(self.path, previous, settings, model_id=STATIC_MODEL_ID,
                                 dimensions=STATIC_DIMENSIONS, chunk_embedder=self.chunk_embedder,
                                 sentence_store=self.sentence_store)

    def _finish(self, builder: GenerationBuilder) -> None:
        """Commit a builder that changed something (nothing changes on disk otherwise)."""
        if builder.changed:
            builder.commit()
        else:
            builder.abort()

    def _check_folder(self) -> None:
        """Refuse to write a knowledge base into a file, or into a folder that holds other things."""
        if self.path.exists() and not self.path.is_dir():
            raise KnowledgeBaseError(f"{self.path} is a file, not a knowledge base folder; choose another --kb")
        if self.path.is_dir():
            # Anything a writer (maybe a concurrent one) creates is ours; anything else is the user's.
            others = [entry.name for entry in self.path.iterdir() if not _is_ours(entry.name)]
            if others:
                raise KnowledgeBaseError(
                    f"{self.path} is not empty and holds no knowledge base (it contains {others[0]!r}); "
                    "choose a new or empty folder for --kb"
                )

    # ------------------------------------------------------------------ management

    def documents(self) -> list[metadata.DocumentInfo]:
        """Every indexed document, ordered by path (without loading the index)."""
        manifest = self.manifest()
        connection = open_metadata(self.path, manifest.files(self.path), readonly=True)
        try:
            return metadata.list_documents(connection)
        finally:
            connection.close()

    def document_text(self, path: str) -> str | None:
        """The text of the document indexed under `path` (as `documents` lists it), put back together from its chunks.

        Chunks are exact slices of the document's text and overlap, so each adds what the ones before
        did not cover. A gap between two chunks is white space between sentences, which no chunk holds:
        one character becomes a space, more become as many line breaks, so offsets stay the document's.
        None when no document is indexed under `path`.
        """
        manifest = self.manifest()
        connection = open_metadata(self.path, manifest.files(self.path), readonly=True)
        try:
            chunks = metadata.document_chunks(connection, path)
        finally:
            connection.close()
        if chunks is None:
            return None
        pieces: list[str] = []
        covered = 0
        for start, end, text in chunks:
            if end <= covered:
                continue
            gap = start - covered if pieces else 0
            if gap > 0:
                pieces.append(" " if gap == 1 else "\n" * gap)
            pieces.append(text[max(0, covered - start):])
            covered = end
        return "".join(pieces)

    def stats(self) -> KnowledgeBaseStats:
        """Counts, size on disk, location, model and chunk settings.

        The index is opened as a search opens it, so a knowledge base that a check would reject
        raises `KnowledgeBaseError` here too.
        """
        manifest = self.load().manifest
        size = _size_on_disk(self.path)
        return KnowledgeBaseStats(
            location=self.path.resolve(), model_id=manifest.model_id, dimensions=manifest.dimensions,
            documents=manifest.documents, chunks=manifest.chunks, sentences=manifest.sentences,
            sentence_vectors=manifest.sentences if manifest.legacy else self.sentence_store.count(), size_bytes=size,
            chunk_tokens=manifest.chunk_tokens, overlap_tokens=manifest.overlap_tokens,
            token_count=manifest.token_count, created_at=manifest.created_at, updated_at=manifest.updated_at,
        )
