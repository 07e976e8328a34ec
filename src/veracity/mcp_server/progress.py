"""A check's progress events as MCP progress notifications: one per claim judged.

MCP wants the progress value to grow with every notification, so it counts the verdicts reached so
far; a revise round adds the claims it sends back to the total, since each of them is judged again.
"""

from __future__ import annotations

from dataclasses import dataclass

from veracity.progress import ProgressEvent


@dataclass(frozen=True)
class ProgressUpdate:
    """One progress notification: verdicts reached, verdicts expected (None until the claims are known), and words."""

    progress: float
    total: float | None
    message: str


@dataclass
class ProgressTracker:
    """Turns a check's `ProgressEvent`s into `ProgressUpdate`s, in order."""

    verdicts: int = 0
    expected: int | None = None
    rounds: int = 0

    def update(self, event: ProgressEvent) -> ProgressUpdate:
        """The notification that tells a client what `event` changed."""
        if event.kind == "extracting":
            return ProgressUpdate(self.verdicts, self.expected, f"extracting claims (attempt {event.attempt})")
        if event.kind == "claims":
            self.expected = len(event.claims)
            return ProgressUpdate(self.verdicts, self.expected, f"{self.expected} claim(s) found; checking them")
        if event.kind == "revising":
            self.rounds += 1
            self.expected = (self.expected or 0) + len(event.claims)
            return ProgressUpdate(self.verdicts, self.expected,
                                  f"revise round {self.rounds}: judging {len(event.claims)} claim(s) again")
        self.verdicts += 1
        claim = event.claim.text if event.claim is not None else "a claim"
        label = event.verdict.shown_label if event.verdict is not None else "no verdict"
        return ProgressUpdate(self.verdicts, self.expected, f"{label}: {claim}")
