"""The batch output file: JSONL, one line per row, appended as each row finishes.

Each line is written whole with one write and flushed, so an interrupted run leaves a valid
file; a last line cut short by a crash is removed when the file is opened again. The ids of
the lines already there are the rows a rerun skips.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any


def done_ids(path: Path) -> set[str]:
    """Ids of the rows already in `path`; an unfinished last line is cut off first."""
    if not path.exists():
        return set()
    with path.open("rb+") as handle:
        data = handle.read()
        complete = data.rfind(b"\n") + 1
        if complete < len(data):
            handle.truncate(complete)
    ids = set()
    for line in data[:complete].splitlines():
        try:
            ids.add(str(json.loads(line)["id"]))
        except (ValueError, KeyError, TypeError):
            continue
    return ids


class OutputFile:
    """Appends result lines to the output file."""

    def __init__(self, path: Path) -> None:
        """Open `path` for appending (created with its folder when missing)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self._handle: IO[str] = path.open("a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        """One result line, written whole and flushed to disk."""
        self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        """Close the file."""
        self._handle.close()
