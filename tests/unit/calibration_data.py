"""Labelled rows for calibration tests, and a credulous scripted judge that calls every claim supported.

Each row claims the year a museum opened; its one evidence item gives the true year. Even rows
claim the true year (supported), odd rows a year 13 off (refuted). The scripted judge answers
"supported" on every claim, citing the evidence's first sentence: it is right half the time, and
only the signals a check reads beside it (the offline judge's reading of the quote) tell when.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage

from veracity.contracts import SearchHit
from veracity.testing import ScriptedBackend, ScriptedChatModel, prompt_text

NAMES = ("Aldenmoor", "Brackwell", "Corringham", "Dunmarsh", "Elsworth", "Fennimore", "Glasbury", "Harrowgate",
         "Ilminster", "Jedburgh", "Kettleby", "Lindhurst", "Marlow", "Northam", "Oakhampton", "Penrith",
         "Quenby", "Rothbury", "Saltash", "Tenbury", "Upwell", "Ventnor", "Wetherby", "Yarmouth")
_CLAIM = re.compile(r"^Claim: (.*)$", re.MULTILINE)


def fact(number: int) -> str:
    """The evidence's first sentence for row `number`: the museum's true opening year."""
    return f"The {NAMES[number % len(NAMES)]} Museum opened in {1850 + (number * 37) % 150}."


def claim(number: int) -> str:
    """Row `number`'s claim: the true year on even rows, 13 years off on odd ones."""
    year = 1850 + (number * 37) % 150 + (13 if number % 2 else 0)
    return f"The {NAMES[number % len(NAMES)]} Museum opened in {year}."


def evidence_text(number: int) -> str:
    """The row's one evidence item."""
    return f"{fact(number)} Its collection holds paintings, maps and coins from the region."


def labelled_rows(count: int, start: int = 0) -> list[dict[str, Any]]:
    """`count` judge rows {claim, evidence, label, group}."""
    return [{"id": f"row-{n}", "claim": claim(n), "evidence": evidence_text(n),
             "label": "refuted" if n % 2 else "supported", "group": "museums"} for n in range(start, start + count)]


def write_rows(path: Path, count: int, start: int = 0) -> Path:
    """The rows as a JSONL file at `path`."""
    path.write_text("".join(json.dumps(row) + "\n" for row in labelled_rows(count, start)), encoding="utf-8")
    return path


def credulous_judge() -> ScriptedChatModel:
    """A scripted chat model that calls every claim supported, quoting its evidence's first sentence."""

    def answer(messages: list[BaseMessage]) -> dict[str, Any]:
        text = prompt_text(messages)
        found = _CLAIM.search(text)
        quote = re.search(r"The \w+ Museum opened in \d{4}\.", text[found.end():] if found else text)
        return {"label": "supported", "reason": "The evidence says so.", "evidence_id": "c1-e1",
                "quote": quote.group(0) if quote else None}

    return ScriptedChatModel(responder=answer)


def museum_backend() -> ScriptedBackend:
    """Search results holding the evidence item of the row whose claim is asked."""
    by_claim = {claim(n): evidence_text(n) for n in range(1000)}
    return ScriptedBackend(lambda query: [SearchHit(title="Museums", text=by_claim.get(query, evidence_text(0)))])
