"""Checksums of the files of a generation, so that damage inside them is reported instead of searched as data.

Every file of a generation is recorded in the manifest when the generation is written: its
size, modification time (`mtime_ns`) and SHA-256 (hashlib's SHA-256 runs at about 1.8 GB/s
with SHA extensions, about twice blake2b). How much is checked depends on the moment:

- Opening (`quick_check`, on every search load and backend start): every file must exist with
  its recorded size, which costs a `stat` per file. A file whose modification time changed was
  written to since (or copied without its times) and is hashed, once per process for that
  version of the file. An untouched knowledge base is never read in full here, whatever its size.
- While a process searches (`changed_check`): a memory-mapped file whose `stat` changed since it
  was mapped (see `mapped.py`) is hashed before the index is opened again, even if its
  modification time was put back.
- `veracity kb verify`, and an ingest or removal before it builds on a generation
  (`full_check`): every file is hashed again. This also finds what the cheap check cannot: a
  change that keeps both the size and the modification time (bit rot, a restored timestamp).

Manifests written before checksums existed have none; they are opened as before and get
checksums from the next ingest or removal that writes a generation.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class FileRecord:
    """What the manifest records about one file of a generation."""

    size: int
    mtime_ns: int
    sha256: str


@dataclass(frozen=True)
class Damage:
    """A file of a generation that is not as it was written: missing, resized or with other contents."""

    path: str
    """Relative to the knowledge base folder, e.g. `gen-1a2b3c/dense.faiss`."""
    expected: str
    found: str

    def __str__(self) -> str:
        return f"{self.path}: expected {self.expected}, found {self.found}"


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file, read in blocks."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def record_files(folder: Path) -> dict[str, FileRecord]:
    """Size, modification time and SHA-256 of every file under `folder`, keyed by path relative to it."""
    records = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        status = path.stat()
        records[path.relative_to(folder).as_posix()] = FileRecord(status.st_size, status.st_mtime_ns,
                                                                  file_sha256(path))
    return records


def parse_records(value: Any) -> dict[str, FileRecord]:
    """The records stored in a manifest's `checksums`; ValueError when they are malformed."""
    if not isinstance(value, dict):
        raise ValueError("checksums is not an object")
    records = {}
    for name, entry in value.items():
        if Path(name).is_absolute() or ".." in Path(name).parts or not isinstance(entry, dict):
            raise ValueError(f"invalid checksum entry {name!r}")
        size, mtime_ns, sha256 = entry.get("size"), entry.get("mtime_ns"), entry.get("sha256")
        if not (isinstance(size, int) and isinstance(mtime_ns, int) and isinstance(sha256, str) and len(sha256) == 64):
            raise ValueError(f"invalid checksum entry {name!r}")
        records[name] = FileRecord(size, mtime_ns, sha256)
    return records


@functools.lru_cache(maxsize=64)
def _sha256_of_version(path: str, size: int, mtime_ns: int, ctime_ns: int, inode: int, device: int) -> str:
    """The SHA-256 of one version of a file (identified by size, times and inode), hashed once per process.

    The change time is part of the version: a write that puts the modification time back still moves it.
    """
    return file_sha256(Path(path))


def _check(kb: Path, generation: str, name: str, expected: FileRecord, *, full: bool,
           changed: bool = False) -> Damage | None:
    path = kb / generation / name
    shown = f"{generation}/{name}"
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return Damage(shown, f"{expected.size:,} bytes", "no such file")
    except OSError as exc:
        return Damage(shown, f"{expected.size:,} bytes", f"an unreadable file ({exc.strerror or exc})")
    if status.st_size != expected.size:
        return Damage(shown, f"{expected.size:,} bytes", f"{status.st_size:,} bytes")
    if not full and not changed and status.st_mtime_ns == expected.mtime_ns:
        return None
    try:
        found = (file_sha256(path) if full
                 else _sha256_of_version(str(path), status.st_size, status.st_mtime_ns, status.st_ctime_ns,
                                         status.st_ino, status.st_dev))
    except OSError as exc:
        return Damage(shown, f"sha256 {expected.sha256}", f"an unreadable file ({exc.strerror or exc})")
    return None if found == expected.sha256 else Damage(shown, f"sha256 {expected.sha256}", f"sha256 {found}")


def quick_check(kb: Path, generation: str, records: Mapping[str, FileRecord]) -> list[Damage]:
    """Damage found cheaply: missing or resized files, and the contents of files written to since."""
    return [damage for name, expected in records.items()
            if (damage := _check(kb, generation, name, expected, full=False)) is not None]


def changed_check(kb: Path, generation: str, records: Mapping[str, FileRecord]) -> list[Damage]:
    """Damage in files seen to change on disk while in use: each is hashed, once per process for each version."""
    return [damage for name, expected in records.items()
            if (damage := _check(kb, generation, name, expected, full=False, changed=True)) is not None]


def full_check(kb: Path, generation: str, records: Mapping[str, FileRecord]) -> list[Damage]:
    """Damage found by hashing every recorded file again."""
    return [damage for name, expected in records.items()
            if (damage := _check(kb, generation, name, expected, full=True)) is not None]
