"""Verdicts as they arrive: the state behind `veracity check --stream`.

`LiveVerdicts` is an `on_progress` callback for `veracity.acheck`. It keeps the claims and
each verdict so far (a revise round replaces a claim's verdict), and renders them as a table
for a live terminal view, or as one line per verdict when the output is not a terminal.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.table import Table
from rich.text import Text

from veracity.cli.tables import LABEL_STYLES, decisive_quote
from veracity.contracts import Claim, Verdict
from veracity.progress import ProgressEvent


class LiveVerdicts:
    """Collects claims and verdicts from graph updates; `on_verdict` hears each verdict once it is in."""

    def __init__(self, on_verdict: Callable[[Claim, Verdict], None] | None = None) -> None:
        """`on_verdict(claim, verdict)` is called for every verdict as it arrives (revisions included)."""
        self.claims: list[Claim] = []
        self.verdicts: dict[str, Verdict] = {}
        self.on_verdict = on_verdict

    def __call__(self, event: ProgressEvent) -> bool:
        """Take one progress event; True when the table changed."""
        if event.kind == "claims":
            self.claims = list(event.claims)
            return True
        if event.kind == "verdict" and event.claim is not None and event.verdict is not None:
            self.verdicts[event.claim.id] = event.verdict
            if self.on_verdict is not None:
                self.on_verdict(event.claim, event.verdict)
            return True
        return False

    def table(self) -> Table:
        """One row per claim: its label (or "checking…"), the claim, and the quote so far."""
        table = Table(expand=True, title=f"{len(self.verdicts)}/{len(self.claims)} claims judged")
        table.add_column("Label", no_wrap=True)
        table.add_column("Claim", ratio=3)
        table.add_column("Quote", ratio=4)
        for claim in self.claims:
            verdict = self.verdicts.get(claim.id)
            if verdict is None:
                table.add_row(Text("checking…", style="dim"), Text(claim.text), "")
            else:
                quote = Text(f"“{verdict.quote}”" if decisive_quote(verdict) else "")
                table.add_row(Text(verdict.shown_label, style=LABEL_STYLES[verdict.label]), Text(claim.text), quote)
        return table


def verdict_line(claim: Claim, verdict: Verdict) -> str:
    """A verdict as one plain line, for output that is not a terminal."""
    quote = f' — "{verdict.quote}"' if decisive_quote(verdict) else ""
    return f"{verdict.shown_label}: {claim.text}{quote}"
