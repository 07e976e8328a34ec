"""`Finding`: one thing `veracity verify` checked, and whether it still holds."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One thing checked: what, about which claim (None: the whole report), and whether it still holds.

    A `warning` holds (it fails nothing) but needs a reader's attention, e.g. a report that is
    not signed.
    """

    claim_id: str | None
    what: str
    holds: bool
    warning: bool = False
