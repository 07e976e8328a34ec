"""A computed answer: its label, the computation as text, and the evidence each input was read from."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from veracity.contracts import Evidence, Label


@dataclass(frozen=True)
class Used:
    """One input of a computation: the evidence sentence it was read from and the value as written."""

    evidence: Evidence
    quote: str
    value: str


@dataclass(frozen=True)
class Answer:
    """The computed verdict: its label, the computation as text, and the inputs it used."""

    label: Label
    text: str
    inputs: list[Used] = field(default_factory=list)
    today: datetime.date | None = None
