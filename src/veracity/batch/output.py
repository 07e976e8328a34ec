"""The batch output file: JSONL, one line per row, appended as each row finishes.

Each line is written whole with one write and flushed, so an interrupted run leaves a valid
file; a last line cut short by a crash is removed when the file is opened again. Each line
names its row by id and digest (a hash of its text and source); the lines already there are
the rows a rerun skips.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from veracity.user_files import refuse_unwritable

MAX_KEPT_ERROR_CHARS = 300
"""How much of an error line's message is kept, to name the row when it was never checked."""


@dataclass(frozen=True)
class WrittenLine:
    """What a line already in the output says about its row: its input line, its digest, and its error if any."""

    line: int | None
    digest: str | None
    """None in a line written before lines carried one: the row is then known by its id alone."""
    error: str | None = None
    """The start of the line's error when it holds no report (the row was not checked); None for a report."""


def done_rows(path: Path) -> dict[str, list[WrittenLine]]:
    """The lines already in `path` by row id, in file order; an unfinished last line is cut off first.

    `FileRefused` when `path` is a symlink or not a regular file (see `refuse_unwritable`).
    """
    refuse_unwritable(path)
    if not path.exists():
        return {}
    with path.open("rb+") as handle:
        data = handle.read()
        complete = data.rfind(b"\n") + 1
        if complete < len(data):
            handle.truncate(complete)
    rows: dict[str, list[WrittenLine]] = {}
    for raw in data[:complete].splitlines():
        try:
            record = json.loads(raw)
            key = str(record["id"])
        except (ValueError, KeyError, TypeError, RecursionError):
            continue
        line, digest = record.get("line"), record.get("digest")
        rows.setdefault(key, []).append(WrittenLine(line if isinstance(line, int) else None,
                                                    digest if isinstance(digest, str) else None,
                                                    _error_of(record)))
    return rows


def _error_of(record: dict[str, Any]) -> str | None:
    """Why a written line holds no report (its error, shortened), or None when it holds one."""
    if isinstance(record.get("report"), dict):
        return None
    error = record.get("error")
    text = str(error) if error is not None else "the line holds neither a report nor an error"
    return text if len(text) <= MAX_KEPT_ERROR_CHARS else text[:MAX_KEPT_ERROR_CHARS - 1] + "…"


class OutputFile:
    """Appends result lines to the output file."""

    def __init__(self, path: Path) -> None:
        """Open `path` for appending (created with its folder when missing); never through a symlink."""
        path.parent.mkdir(parents=True, exist_ok=True)
        refuse_unwritable(path)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        self._handle: IO[str] = open(os.open(path, flags, 0o644), "a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        """One result line, written whole and flushed to disk."""
        self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        """Close the file."""
        self._handle.close()
