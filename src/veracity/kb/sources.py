"""What can be ingested: files found under the given paths, or the bundled demo notes.

Only regular files are read. A FIFO, a device or a socket is reported as skipped and never
opened: opening a FIFO blocks until something writes to it, and opening a device can do
anything. The check is made when the files are found and again when each is opened, in case
what a path names changed in between.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

SUPPORTED_SUFFIXES: dict[str, str] = {
    ".txt": "text",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
}
"""File extension -> document kind. Anything else is skipped with a note."""

DEMO_PREFIX = "demo:"
"""Demo notes are stored under the key `demo:<file name>` instead of a path."""

_SPECIAL_KINDS: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


class NotRegularFile(OSError):
    """A path names something other than a regular file (a FIFO, a device, a socket); it was not opened."""

    def __init__(self, path: Path, mode: int) -> None:
        """Say what `path` is, from its `st_mode`."""
        super().__init__(not_regular_reason(mode))
        self.path = path

    def __str__(self) -> str:
        return str(self.args[0])


def not_regular_reason(mode: int) -> str:
    """Why a file of this `st_mode` is skipped, e.g. 'not a regular file: a FIFO (named pipe); not opened'."""
    kind = next((name for test, name in _SPECIAL_KINDS if test(mode)), "another kind of file")
    return f"not a regular file: {kind}; not opened"


def open_regular(path: Path) -> IO[bytes]:
    """Open a regular file for reading bytes; raise `NotRegularFile` for anything else, without opening it.

    The path is looked at first; the file is then opened without waiting (so that a FIFO put
    in its place meanwhile cannot block) and looked at again through the open handle.
    """
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotRegularFile(path, mode)
    return open(path, "rb", opener=_open_regular_descriptor)


def _open_regular_descriptor(path: str, flags: int) -> int:
    """`open`'s opener: the descriptor of `path` opened without blocking, if it is a regular file."""
    descriptor = os.open(path, flags | getattr(os, "O_NONBLOCK", 0))
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(Path(path), mode)
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


@dataclass(frozen=True)
class Source:
    """A document to ingest: a file on disk or a bundled demo note."""

    key: str
    """Identity in the index: the absolute, resolved path, or `demo:<file name>`."""
    name: str
    """File name; the title when the document names none."""
    kind: str
    """One of the values of `SUPPORTED_SUFFIXES`."""
    size: int
    mtime: float | None
    opener: Callable[[], IO[bytes]]

    def open(self) -> IO[bytes]:
        """Open the document's bytes for reading."""
        return self.opener()

    @classmethod
    def from_path(cls, path: Path) -> Source:
        """A source for a supported regular file on disk.

        Raises `NotRegularFile` for a FIFO, device or socket, and OSError when it cannot be looked at.
        """
        resolved = path.resolve()
        status = resolved.stat()
        if not stat.S_ISREG(status.st_mode):
            raise NotRegularFile(resolved, status.st_mode)
        return cls(
            key=str(resolved),
            name=resolved.name,
            kind=SUPPORTED_SUFFIXES[resolved.suffix.lower()],
            size=status.st_size,
            mtime=status.st_mtime,
            opener=functools.partial(open_regular, resolved),  # picklable: read-ahead workers open it
        )


@dataclass(frozen=True)
class Skipped:
    """A path that was not ingested, and why."""

    key: str
    reason: str


def _unsupported(path: Path) -> Skipped:
    kinds = " ".join(sorted(SUPPORTED_SUFFIXES))
    what = f"'{path.suffix}'" if path.suffix else "(no extension)"
    return Skipped(str(path), f"unsupported file type {what}; supported: {kinds}")


def _special(path: Path) -> Skipped | None:
    """A `Skipped` for a path that names a FIFO, device or socket (followed through links), else None.

    A path that cannot be looked at is left to the checks that follow, which say why.
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) else Skipped(str(path), not_regular_reason(mode))


def _walk(folder: Path) -> Iterable[Path]:
    """Files under `folder`, recursively, in a stable order; hidden files and folders are left out."""
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith("."):
                yield Path(root) / name


def discover(paths: Iterable[str | Path]) -> tuple[list[Source], list[Skipped]]:
    """Expand files and folders (recursively) into sources; report what cannot be ingested."""
    sources: dict[str, Source] = {}
    skipped: list[Skipped] = []
    for given in paths:
        path = Path(given).expanduser()
        if path.is_dir():
            candidates = list(_walk(path))
        elif path.exists():
            candidates = [path]
        else:
            skipped.append(Skipped(str(path), "not found"))
            continue
        for candidate in candidates:
            if (special := _special(candidate)) is not None:
                skipped.append(special)
                continue
            if candidate.suffix.lower() not in SUPPORTED_SUFFIXES:
                skipped.append(_unsupported(candidate))
                continue
            try:
                source = Source.from_path(candidate)
            except NotRegularFile as exc:  # replaced since `_special` looked at it
                skipped.append(Skipped(str(candidate), str(exc)))
                continue
            except RuntimeError:  # pathlib's "Symlink loop from ..." (Python 3.11/3.12)
                skipped.append(Skipped(str(candidate), "a symbolic link loop (the link leads back to itself)"))
                continue
            except OSError as exc:
                skipped.append(Skipped(str(candidate), f"cannot read: {exc.strerror or exc}"))
                continue
            sources.setdefault(source.key, source)
    return list(sources.values()), skipped


def _bytes_opener(entry: Traversable) -> Callable[[], IO[bytes]]:
    """A function that opens `entry` for reading bytes when it is called."""

    def open_entry() -> IO[bytes]:
        return entry.open("rb")

    return open_entry


def demo_sources() -> list[Source]:
    """The bundled demo notes (`veracity/kb/demo/*.md`) as sources keyed `demo:<file name>`."""
    from importlib import resources

    folder = resources.files("veracity.kb").joinpath("demo")
    notes = sorted((entry for entry in folder.iterdir() if entry.name.endswith(".md")), key=lambda e: e.name)
    return [
        Source(
            key=DEMO_PREFIX + entry.name,
            name=entry.name,
            kind="markdown",
            size=len(entry.read_bytes()),
            mtime=None,
            opener=_bytes_opener(entry),
        )
        for entry in notes
    ]
