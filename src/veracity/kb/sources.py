"""What can be ingested: files found under the given paths, or the bundled demo notes."""

from __future__ import annotations

import os
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
        """A source for a supported file on disk; raises OSError when it cannot be looked at."""
        resolved = path.resolve()
        status = resolved.stat()
        return cls(
            key=str(resolved),
            name=resolved.name,
            kind=SUPPORTED_SUFFIXES[resolved.suffix.lower()],
            size=status.st_size,
            mtime=status.st_mtime,
            opener=lambda: open(resolved, "rb"),
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
            if candidate.suffix.lower() not in SUPPORTED_SUFFIXES:
                skipped.append(_unsupported(candidate))
                continue
            try:
                source = Source.from_path(candidate)
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
