"""Reading a source's bytes for ingest: its SHA-256, the source to load it from, and why it could not be read."""

from __future__ import annotations

import hashlib
import io
from dataclasses import replace

from veracity.kb.loaders import STREAM_THRESHOLD
from veracity.kb.sources import NotRegularFile, Source


def sha256_of(source: Source) -> str:
    """The SHA-256 of a source's bytes, read in blocks."""
    digest = hashlib.sha256()
    with source.open() as handle:
        while block := handle.read(1024 * 1024):
            digest.update(block)
    return digest.hexdigest()


def read_source(source: Source, stream_threshold: int = STREAM_THRESHOLD) -> tuple[Source, str]:
    """A source's SHA-256, and the source to load it from.

    A file up to `stream_threshold` bytes is read once: its bytes are hashed and then loaded
    from memory. A larger one is hashed in blocks first and streamed from disk afterwards.
    """
    if source.size > stream_threshold:
        return source, sha256_of(source)
    with source.open() as handle:
        data = handle.read()
    return replace(source, size=len(data), opener=lambda: io.BytesIO(data)), hashlib.sha256(data).hexdigest()


def reason_for(exc: BaseException) -> str:
    """Why a document was skipped, as the user is shown it."""
    if isinstance(exc, NotRegularFile):
        return str(exc)
    if isinstance(exc, OSError):
        return f"cannot read: {exc.strerror or exc}"
    return str(exc)
