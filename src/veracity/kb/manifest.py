"""The on-disk layout of a knowledge base folder, and `manifest.json`, which says what is current.

    <kb>/manifest.json      format version, model, chunk settings, counts, current generation, and
                            the size, mtime and SHA-256 of each file of it (see `checksums.py`)
    <kb>/ingest.lock        held while an ingest or a removal writes (see `lock.py`)
    <kb>/gen-<id>/          one complete, immutable index:
        meta.sqlite         documents and chunks (text, offsets, sentence spans)
        dense.faiss         IndexIDMap2 over half-precision static sentence vectors (inner product;
                            see `offline/model/static.py`), id = chunk id << 16 | sentence
        bm25/ bm25_ids.npy  bm25s index over chunk texts, and the chunk id of each of its rows
    <kb>/sentence-vectors.sqlite
                            the judge's MiniLM sentence vectors, filled when chunks are first
                            retrieved or by `veracity kb warm` (see `sentence_store.py`)

Format version 1 (indexes built before sentence vectors were filled lazily) ranked by the
mean MiniLM vector of a chunk's sentences and stored every sentence vector in the generation
(`sentences.npy`). Such a knowledge base still answers searches as it is; the next ingest into
it migrates it (see `writer.py`).

An update writes a new generation next to the current one, in a folder `gen-<id>.partial`
that is renamed `gen-<id>` once complete, and then replaces the manifest (an atomic rename),
so a crash part-way leaves the previous index untouched. A `.partial` folder is never a
knowledge base: a first ingest that was killed leaves a folder that is not one yet, rather
than one that cannot be used; the next ingest deletes it.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from veracity.kb.checksums import FileRecord, parse_records
from veracity.kb.chunking import ChunkSettings
from veracity.kb.paths import unusable

FORMAT_VERSION = 2
"""Bumped whenever the layout changes incompatibly."""

LEGACY_FORMAT_VERSION = 1
"""Still read: sentence vectors in the generation, MiniLM chunk vectors."""

MANIFEST_NAME = "manifest.json"
GENERATION_PREFIX = "gen-"
PARTIAL_SUFFIX = ".partial"
"""Ends the name of a generation folder still being written."""
TEMPORARY_PREFIX = ".manifest-"
TOKEN_COUNT = "approximate: max(words x 1.3, characters / 4)"


def utc_now() -> str:
    """The current time as an ISO 8601 UTC timestamp, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class GenerationFiles:
    """Paths of the files of one generation of the index."""

    folder: Path

    @property
    def meta(self) -> Path:
        """SQLite metadata: documents and chunks."""
        return self.folder / "meta.sqlite"

    @property
    def dense(self) -> Path:
        """FAISS index over chunk vectors."""
        return self.folder / "dense.faiss"

    @property
    def sentences(self) -> Path:
        """float16 sentence vectors (.npy, memory-mapped when read)."""
        return self.folder / "sentences.npy"

    @property
    def spool(self) -> Path:
        """Scratch file for sentence vectors while a generation is being written."""
        return self.folder / "sentences.spool"

    @property
    def lexical(self) -> Path:
        """bm25s index folder."""
        return self.folder / "bm25"

    @property
    def lexical_ids(self) -> Path:
        """Chunk id of each bm25s document row."""
        return self.folder / "bm25_ids.npy"


@dataclass(frozen=True)
class Manifest:
    """What `manifest.json` records about a knowledge base."""

    format_version: int
    model_id: str
    dimensions: int
    chunk_tokens: int
    overlap_tokens: int
    token_count: str
    generation: str
    documents: int
    chunks: int
    sentences: int
    created_at: str
    updated_at: str
    checksums: dict[str, FileRecord] | None = None
    """Each file of the generation by its path inside it; None in manifests written before checksums existed."""

    @property
    def legacy(self) -> bool:
        """Whether this is a format-1 index (sentence vectors in `sentences.npy`, MiniLM chunk vectors)."""
        return self.format_version == LEGACY_FORMAT_VERSION

    @property
    def settings(self) -> ChunkSettings:
        """The chunk settings the knowledge base was built with."""
        return ChunkSettings(self.chunk_tokens, self.overlap_tokens)

    def files(self, kb: Path) -> GenerationFiles:
        """The files of the current generation."""
        return GenerationFiles(kb / self.generation)

    def updated(self, **changes: Any) -> Manifest:
        """A copy with `changes` and a fresh `updated_at`."""
        return replace(self, updated_at=utc_now(), **changes)


def is_knowledge_base(kb: Path) -> bool:
    """Whether `kb` holds a knowledge base (usable or not); a generation still being written is not one."""
    if (kb / MANIFEST_NAME).exists():
        return True
    return kb.is_dir() and any(p.name.startswith(GENERATION_PREFIX) and not p.name.endswith(PARTIAL_SUFFIX)
                               for p in kb.iterdir())


def _typed(name: str, value: object, annotation: str) -> int | str:
    if annotation == "int" and isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if annotation == "str" and isinstance(value, str):
        return value
    raise TypeError(f"{name} = {value!r} is not a valid {annotation}")


def read_manifest(kb: Path, *, models: Mapping[int, tuple[str, int]]) -> Manifest | None:
    """The manifest of the knowledge base at `kb`, or None when there is none there.

    `models` gives, for each format version this veracity reads, the embedding model id and
    dimensions its dense index must have. Raises `KnowledgeBaseError` when it is unreadable,
    from another format version, or built with another embedding model.
    """
    path = kb / MANIFEST_NAME
    if not path.exists():
        if is_knowledge_base(kb):
            raise unusable(kb, f"{MANIFEST_NAME} is missing")
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise unusable(kb, f"{MANIFEST_NAME} cannot be read ({exc})") from exc
    if not isinstance(data, dict):
        raise unusable(kb, f"{MANIFEST_NAME} is not a JSON object")
    version = data.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version not in models:
        readable = " and ".join(str(v) for v in sorted(models))
        raise unusable(kb, f"it has format version {version!r}; this veracity reads version {readable}")
    model_id, dimensions = models[version]
    if data.get("model_id") != model_id or data.get("dimensions") != dimensions:
        raise unusable(
            kb, f"it was built with the embedding model {data.get('model_id')!r}; this veracity uses {model_id!r}"
        )
    try:
        values: dict[str, Any] = {f.name: _typed(f.name, data[f.name], str(f.type))
                                  for f in fields(Manifest) if f.name != "checksums"}
        if data.get("checksums") is not None:
            values["checksums"] = parse_records(data["checksums"])
        manifest = Manifest(**values)
        manifest.settings  # noqa: B018 - validates the chunk settings
    except (KeyError, TypeError, ValueError) as exc:
        raise unusable(kb, f"{MANIFEST_NAME} is incomplete or invalid ({exc!r})") from exc
    if not manifest.generation.startswith(GENERATION_PREFIX) or Path(manifest.generation).name != manifest.generation:
        raise unusable(kb, f"{MANIFEST_NAME} names an invalid generation {manifest.generation!r}")
    if not (kb / manifest.generation).is_dir():
        raise unusable(kb, f"the index folder {manifest.generation} named by {MANIFEST_NAME} is missing")
    return manifest


def write_manifest(kb: Path, manifest: Manifest) -> None:
    """Replace `manifest.json` atomically: write a temporary file, flush it to disk, rename it."""
    handle, temporary = tempfile.mkstemp(prefix=TEMPORARY_PREFIX, suffix=".tmp", dir=kb)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(asdict(manifest), out, indent=2)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, kb / MANIFEST_NAME)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
