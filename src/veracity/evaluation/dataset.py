"""Evaluation datasets: read a JSONL file, validate every row, and tell its kind.

Three kinds of row are accepted, one kind per file:

* **judge** rows ``{claim, evidence, label}`` (the format of the shared benchmark files):
  the judge and its gate rule on the given evidence, with no extraction or search;
* **pass** rows ``{text, source?, expected: {"pass": bool}}``: the whole graph runs, and the
  report's pass/fail is compared with the label (with a source: the faithfulness case);
* **claims** rows ``{text, source?, expected: [{claim, label}, ...]}``: the whole graph runs,
  and extracted claims are matched to the expected ones.

Problems are collected with their line numbers and raised together as one `DatasetError`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError, field_validator
from pydantic_core import ErrorDetails

from veracity.contracts import LABELS, Evidence, Label, NonBlank
from veracity.errors import InputError
from veracity.user_files import FileRefused, read_regular_file

DatasetKind = Literal["judge", "pass", "claims"]

KIND_DESCRIPTIONS: dict[str, str] = {
    "judge": "judge rows {claim, evidence, label}",
    "pass": "end-to-end rows {text, source?, expected: {pass}}",
    "claims": "end-to-end rows {text, source?, expected: [{claim, label}]}",
}

MAX_REPORTED_PROBLEMS = 10
MAX_DATASET_BYTES = 256_000_000
"""The largest dataset file `load_dataset` reads (256 MB: about a million claim/evidence rows)."""


class DatasetError(InputError):
    """A dataset file is missing, empty or has malformed rows; the message names each line."""


class _Row(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    id: str = ""


class TitledText(BaseModel):
    """An evidence item given with its title (a document or page name): ``{"text": ..., "title": ...}``."""

    model_config = ConfigDict(extra="ignore")

    text: NonBlank
    title: str = ""


class JudgeRow(_Row):
    """A claim, the evidence to judge it on (one text or several), and the gold label.

    An evidence item is a text, or ``{"text", "title"}`` where its title matters (search results carry
    one). An optional ``group`` names the part of the data a row comes from (a dataset, a domain):
    `veracity calibrate` weighs groups equally and holds each to the certified precision.
    """

    claim: NonBlank
    evidence: list[NonBlank | TitledText] = Field(min_length=1, description="One text per evidence item.")
    label: Label
    group: str = ""

    @field_validator("evidence", mode="before")
    @classmethod
    def _one_text_is_one_item(cls, value: object) -> object:
        return [value] if isinstance(value, str | dict) else value

    def evidence_items(self, claim_id: str = "c1") -> list[Evidence]:
        """The evidence as the judge sees it: items `c1-e1`, `c1-e2`, ... in row order (untitled: "evidence N")."""
        return [
            Evidence(id=f"{claim_id}-e{i}", claim_id=claim_id, backend="dataset",
                     title=item.title if isinstance(item, TitledText) else f"evidence {i}",
                     text=item.text if isinstance(item, TitledText) else item)
            for i, item in enumerate(self.evidence, start=1)
        ]


class PassExpectation(BaseModel):
    """The expected outcome of a whole check: does the text pass?"""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    passes: StrictBool = Field(alias="pass")
    """Strictly a JSON boolean: "yes", 1 or "true" are rejected, not read as true."""


class ExpectedClaim(BaseModel):
    """One claim the text is expected to contain, with its gold label."""

    model_config = ConfigDict(extra="ignore")

    claim: NonBlank
    label: Label


class EndToEndRow(_Row):
    """A text to check, optionally against a source text (a policy the text must stay within)."""

    text: NonBlank
    source: NonBlank | None = None


class PassRow(EndToEndRow):
    """An end-to-end row labelled with whether the whole check should pass."""

    expected: PassExpectation


class ClaimsRow(EndToEndRow):
    """An end-to-end row labelled with the claims the text contains and their gold labels."""

    expected: list[ExpectedClaim]


Row = JudgeRow | PassRow | ClaimsRow
ROW_KINDS: dict[type, DatasetKind] = {JudgeRow: "judge", PassRow: "pass", ClaimsRow: "claims"}


@dataclass(frozen=True)
class Dataset:
    """A validated dataset: its rows, their kind, and a content hash for the record."""

    path: Path
    kind: DatasetKind
    rows: tuple[Row, ...]
    sha256: str

    @property
    def name(self) -> str:
        """The file name, for reports."""
        return self.path.name


def _describe(error: ErrorDetails) -> str:
    where = ".".join(str(part) for part in error["loc"])
    kind = error["type"]
    if kind == "missing":
        return f"missing field '{where}'"
    if kind == "literal_error" and where.endswith("label"):
        return f"unknown label {error['input']!r} in '{where}' (expected one of: {', '.join(LABELS)})"
    if kind in {"string_too_short", "too_short"}:
        return f"'{where}' is empty"
    if kind == "extra_forbidden":
        return f"unexpected field '{where}'"
    return f"'{where}': {error['msg']}"


def _row_model(data: dict[str, Any]) -> type[JudgeRow] | type[PassRow] | type[ClaimsRow]:
    if "text" in data or "expected" in data:
        expected = data.get("expected")
        if isinstance(expected, list):
            return ClaimsRow
        if isinstance(expected, dict) and "pass" in expected or expected is None:
            return PassRow
        raise ValueError("'expected' must be {\"pass\": true|false} or a list of {claim, label}")
    if "claim" in data or "evidence" in data or "label" in data:
        return JudgeRow
    raise ValueError("neither a judge row {claim, evidence, label} nor an end-to-end row {text, expected}")


def parse_row(data: object, line: int) -> Row:
    """Validate one decoded JSON value as a row; raise ValueError with a readable reason."""
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    model = _row_model(data)
    try:
        row: Row = model.model_validate(data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            text = _describe(error)
            if text not in problems:
                problems.append(text)
        raise ValueError("; ".join(problems)) from None
    return row if row.id else row.model_copy(update={"id": f"line-{line}"})


def load_dataset(path: str | Path) -> Dataset:
    """Read and validate a JSONL dataset; raise `DatasetError` naming every bad line (up to ten).

    Only a regular file of at most `MAX_DATASET_BYTES` is read: a FIFO, a device or a folder is
    refused at once, never waited on.
    """
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise DatasetError(f"{path}: no such file")
    try:
        raw = read_regular_file(path, MAX_DATASET_BYTES)
    except FileRefused as exc:
        raise DatasetError(f"{path}: {exc}") from None
    try:
        content = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DatasetError(f"{path}:{line}: not UTF-8 text") from None

    rows: list[Row] = []
    problems: list[str] = []
    first_kind: tuple[DatasetKind, int] | None = None
    seen_ids: dict[str, int] = {}
    for number, text in enumerate(content.splitlines(), start=1):
        if not text.strip():
            continue
        try:
            row = parse_row(json.loads(text), number)
        except json.JSONDecodeError as exc:
            problems.append(f"{path}:{number}: not valid JSON ({exc.msg} at column {exc.colno})")
            continue
        except RecursionError:
            problems.append(f"{path}:{number}: nested too deeply to be a dataset row")
            continue
        except ValueError as exc:
            problems.append(f"{path}:{number}: {exc}")
            continue
        kind = ROW_KINDS[type(row)]
        if first_kind is None:
            first_kind = (kind, number)
        elif kind != first_kind[0]:
            problems.append(
                f"{path}:{number}: this is one of the {KIND_DESCRIPTIONS[kind]}, but line {first_kind[1]} is one of "
                f"the {KIND_DESCRIPTIONS[first_kind[0]]}; a dataset holds one kind (split the file)"
            )
            continue
        if row.id in seen_ids:
            problems.append(f"{path}:{number}: id {row.id!r} already used on line {seen_ids[row.id]}")
            continue
        seen_ids[row.id] = number
        rows.append(row)

    if problems:
        shown = problems[:MAX_REPORTED_PROBLEMS]
        more = len(problems) - len(shown)
        summary = f"{len(problems)} malformed row(s) in {path}:" if len(problems) > 1 else "malformed row:"
        tail = [f"... and {more} more"] if more else []
        raise DatasetError("\n".join([summary, *shown, *tail]))
    if not rows or first_kind is None:
        raise DatasetError(f"{path}: the dataset is empty (no rows; one JSON object per line expected)")
    return Dataset(path=path, kind=first_kind[0], rows=tuple(rows), sha256=hashlib.sha256(raw).hexdigest())
