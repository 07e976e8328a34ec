"""The files a loaded index memory-maps, and whether they changed on disk since they were checked and mapped.

A mapped file is read by the operating system as searches touch it, so what a search reads is
whatever the file holds at that moment: bytes overwritten in place are searched as data, and a
file truncated in place makes the next search that touches a page past its new end die with
SIGBUS, a signal no Python code can catch. A generation's files never change once written (an
update writes a new generation), so a change is damage or tampering: the reader looks at each
mapped file's version (a `stat`: device, inode, size, modification and change times) before
every search, and a reader whose files changed is not searched again (see `KnowledgeBase.load`).
The change time moves with any write, even one that puts the modification time back.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class FileVersion:
    """One version of a file, as `stat` tells it: any write, truncation or replacement gives another."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, path: Path) -> FileVersion | None:
        """The version of the file at `path` now; None if it cannot be examined (gone, unreadable folder)."""
        try:
            status = os.stat(path)
        except OSError:
            return None
        return cls(status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


@dataclass(frozen=True)
class MappedFiles:
    """The versions of the files of one generation folder that a reader maps, taken before they were checked."""

    folder: Path
    versions: Mapping[str, FileVersion | None]
    """By name inside the generation folder, e.g. `dense.faiss`."""

    @classmethod
    def taken(cls, folder: Path, names: Iterable[str]) -> MappedFiles:
        """The versions of the named files of `folder` now."""
        return cls(folder, {name: FileVersion.of(folder / name) for name in names})

    def changed(self) -> list[str]:
        """The names of the files whose version differs now (one `stat` each)."""
        return [name for name, version in self.versions.items() if FileVersion.of(self.folder / name) != version]

    def describe(self, name: str) -> str:
        """How the named file differs now from the version taken, for the log."""
        before, now = self.versions.get(name), FileVersion.of(self.folder / name)
        if now is None:
            return f"{name} is gone"
        if before is None:
            return f"{name} appeared"
        if (before.device, before.inode) != (now.device, now.inode):
            return f"{name} was replaced by another file"
        if before.size != now.size:
            return f"{name} changed size from {before.size:,} to {now.size:,} bytes"
        return f"{name} was written to in place"
