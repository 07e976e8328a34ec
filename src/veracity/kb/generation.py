"""Open the files of one generation, turning any damage into a `KnowledgeBaseError` that says how to fix it."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import faiss

from veracity.kb import metadata
from veracity.kb.checksums import Damage, changed_check, full_check, quick_check
from veracity.kb.manifest import GenerationFiles, Manifest
from veracity.kb.paths import unusable
from veracity.kb.vectors import STORED_DTYPE, read_sentences

_SQLITE_MAGIC = b"SQLite format 3\x00"
_NPY_MAGIC = b"\x93NUMPY"
_FAISS_ID_MAP2_MAGIC = b"IxM2"


def _refuse(kb: Path, damage: list[Damage]) -> None:
    if damage:
        first, more = damage[0], f" (and {len(damage) - 1} more file(s))" if len(damage) > 1 else ""
        raise unusable(kb, f"{first.path} is damaged: expected {first.expected}, found {first.found}{more}; "
                           f"`veracity kb verify --kb {kb}` lists every damaged file")


def verify(kb: Path, manifest: Manifest) -> None:
    """Cheap checks that the current generation's files are there, unchanged and look right (no index is loaded).

    See `checksums.py` for what is hashed here (only files written to since they were recorded).
    """
    if manifest.checksums is not None:
        _refuse(kb, quick_check(kb, manifest.generation, manifest.checksums))
    files = manifest.files(kb)
    expected = [(files.meta, _SQLITE_MAGIC), (files.dense, _FAISS_ID_MAP2_MAGIC)]
    if manifest.legacy:
        expected.append((files.sentences, _NPY_MAGIC))
    if manifest.chunks:
        expected.append((files.lexical_ids, _NPY_MAGIC))
    for path, magic in expected:
        try:
            with open(path, "rb") as handle:
                head = handle.read(len(magic))
        except OSError as exc:
            raise unusable(kb, f"{path.relative_to(kb)} cannot be read ({exc.strerror or exc})") from exc
        if not head or not head.startswith(magic):
            raise unusable(kb, f"{path.relative_to(kb)} is damaged")


def verify_changed(kb: Path, manifest: Manifest, names: Collection[str]) -> None:
    """Hash the named files of the current generation, seen to change while in use, and refuse them if damaged.

    A generation recorded before checksums existed has nothing to compare with and passes.
    """
    if manifest.checksums is not None:
        _refuse(kb, changed_check(kb, manifest.generation,
                                  {name: record for name, record in manifest.checksums.items() if name in names}))


def verify_contents(kb: Path, manifest: Manifest) -> None:
    """Hash every file of the current generation again and refuse it if any differs from its checksum.

    A generation recorded before checksums existed has nothing to compare with and passes.
    """
    if manifest.checksums is not None:
        _refuse(kb, full_check(kb, manifest.generation, manifest.checksums))


def open_metadata(kb: Path, files: GenerationFiles, *, readonly: bool) -> sqlite3.Connection:
    """Connect to the generation's metadata database."""
    try:
        return metadata.connect(files.meta, readonly=readonly)
    except sqlite3.Error as exc:
        raise unusable(kb, f"{files.meta.relative_to(kb)} is not a usable SQLite database ({exc})") from exc


def load_dense(kb: Path, manifest: Manifest, *, mapped: bool = False) -> faiss.Index:
    """Read the FAISS index of the current generation: into memory, or memory-mapped when `mapped`.

    A mapped index is for searching only. Its vectors stay in the file, read by the operating
    system as searches touch them and shared by every process searching the same generation
    (the workers of `veracity serve`); opening it takes milliseconds at any size. A generation's
    files never change once written, and a new generation is written beside it; a reader checks
    before each search that the mapped file did not change (see `mapped.py`). Adding to or
    removing from a mapped index aborts the process (a FAISS assertion): writers load into memory.
    """
    import faiss

    path = manifest.files(kb).dense
    try:
        index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP_IFC | faiss.IO_FLAG_READ_ONLY if mapped else 0)
    except (RuntimeError, OSError) as exc:
        raise unusable(kb, f"{path.relative_to(kb)} is not a readable FAISS index") from exc
    if not isinstance(index, faiss.IndexIDMap2) or index.d != manifest.dimensions:
        raise unusable(kb, f"{path.relative_to(kb)} is not an IndexIDMap2 of {manifest.dimensions} dimensions")
    # Format 1 holds one vector per chunk; the current format one per sentence, at least one per chunk.
    if (index.ntotal != manifest.chunks) if manifest.legacy else (index.ntotal < manifest.chunks):
        raise unusable(kb, f"{path.relative_to(kb)} holds {index.ntotal} vectors for {manifest.chunks} chunks")
    # Searches are one query at a time: below a few hundred thousand vectors, starting OpenMP
    # threads costs more than they save (about 3 ms against 1 ms at 20k chunks).
    faiss.omp_set_num_threads(1)
    return index


def load_sentences(kb: Path, manifest: Manifest) -> np.ndarray:
    """Memory-map the sentence vectors of a format-1 generation (MiniLM, 384 dimensions)."""
    path = manifest.files(kb).sentences
    try:
        vectors = read_sentences(path)
    except (OSError, ValueError) as exc:
        raise unusable(kb, f"{path.relative_to(kb)} is not a readable .npy file ({exc})") from exc
    if vectors.dtype != STORED_DTYPE or vectors.shape != (manifest.sentences, manifest.dimensions):
        raise unusable(
            kb, f"{path.relative_to(kb)} has shape {vectors.shape} ({vectors.dtype}); "
            f"expected ({manifest.sentences}, {manifest.dimensions}) float16"
        )
    return vectors


def check_counts(kb: Path, connection: sqlite3.Connection, manifest: Manifest) -> None:
    """The metadata must hold as many documents, chunks and sentences as the manifest says."""
    try:
        found = metadata.counts(connection)
    except sqlite3.Error as exc:
        raise unusable(kb, f"the metadata database cannot be queried ({exc})") from exc
    expected = (manifest.documents, manifest.chunks, manifest.sentences)
    if found != expected:
        raise unusable(kb, f"the metadata holds {found} documents/chunks/sentences; the manifest says {expected}")
