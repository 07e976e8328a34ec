"""The rows of a batch input: JSONL or CSV, one text per row, with an optional id and source text.

A row's id is its ``id`` column when it has one, else a hash of its text and source; its digest
is always that hash. A row is known by both: a rerun recognises the rows it has already done,
and two rows that share an id but not their text are told apart. A row that cannot be used (bad
JSON, no text) is still a row: it carries the problem, and the run records it instead of stopping.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from veracity.user_files import FileRefused, open_regular_file

MAX_BATCH_BYTES = 2_000_000_000
"""The largest batch input read (2 GB); a larger file is refused before any row is checked."""


@dataclass(frozen=True)
class BatchRow:
    """One input row: where it was, its id, its text and source, or why it cannot be checked."""

    line: int
    id: str
    text: str = ""
    source: str | None = None
    problem: str | None = None

    @property
    def digest(self) -> str:
        """A hash of the row's text and source (`row_id`): what it says, whatever its id."""
        return row_id(self.text, self.source)


def row_id(text: str, source: str | None) -> str:
    """The id of a row without one: the first 16 hex digits of the SHA-256 of its text and source."""
    return hashlib.sha256(json.dumps([text, source]).encode()).hexdigest()[:16]


def read_rows(path: Path, *, text_field: str = "text") -> Iterator[BatchRow]:
    """The rows of a .jsonl (one JSON object per line) or .csv file (with a header), in order.

    Only a regular file of at most `MAX_BATCH_BYTES` is read; anything else (a FIFO, a device, a
    folder, a larger file) raises ValueError saying why, before any row is read.
    """
    if path.suffix.lower() == ".csv":
        yield from _csv_rows(path, text_field)
    else:
        yield from _jsonl_rows(path, text_field)


def _row(line: int, record: dict[str, object], text_field: str) -> BatchRow:
    text, source, given = record.get(text_field), record.get("source"), record.get("id")
    if not isinstance(text, str) or not text.strip():
        return BatchRow(line, str(given) if given not in (None, "") else f"line-{line}",
                        problem=f"no text in the {text_field!r} field")
    source_text = source if isinstance(source, str) and source.strip() else None
    identity = str(given) if given not in (None, "") else row_id(text, source_text)
    return BatchRow(line, identity, text, source_text)


def _opened(path: Path) -> TextIO:
    try:
        handle = open_regular_file(path, MAX_BATCH_BYTES)
    except FileRefused as exc:
        raise ValueError(f"{path}: {exc}") from None
    newline = "" if path.suffix.lower() == ".csv" else None  # the csv module reads line ends itself
    return io.TextIOWrapper(handle, encoding="utf-8", errors="replace", newline=newline)


def _jsonl_rows(path: Path, text_field: str) -> Iterator[BatchRow]:
    with _opened(path) as lines:
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
            except (json.JSONDecodeError, RecursionError) as exc:
                yield BatchRow(number, f"line-{number}", problem=f"not valid JSON: {exc}")
                continue
            if not isinstance(record, dict):
                yield BatchRow(number, f"line-{number}", problem="not a JSON object")
                continue
            yield _row(number, record, text_field)


def _csv_rows(path: Path, text_field: str) -> Iterator[BatchRow]:
    with _opened(path) as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames is None or text_field not in reader.fieldnames:
            raise ValueError(f"{path} has no {text_field!r} column (columns: {', '.join(reader.fieldnames or [])})")
        for record in reader:
            yield _row(reader.line_num, dict(record), text_field)
