"""The reports a client session made, kept in memory (the last few) so the client can read them whole as resources.

Each session has its own: a client reads back its own reports, never another client's, and a
session's reports go with it.
"""

from __future__ import annotations

import uuid
import weakref
from collections import OrderedDict

from veracity.contracts import Report

REPORTS_KEPT = 20
"""Reports a session keeps; a newer one pushes the oldest out."""

REPORT_URI = "veracity://reports/{report_id}"
"""Where a kept report is read."""


def report_uri(report_id: str) -> str:
    """The resource URI of the report kept under `report_id`."""
    return REPORT_URI.format(report_id=report_id)


class RecentReports:
    """The last `size` reports, by id, oldest first."""

    def __init__(self, size: int = REPORTS_KEPT) -> None:
        self.size = size
        self._reports: OrderedDict[str, Report] = OrderedDict()

    def add(self, report: Report) -> str:
        """Keep `report` and return its new id (random: ids are not guessable); the oldest past `size` is dropped."""
        report_id = uuid.uuid4().hex
        self._reports[report_id] = report
        while len(self._reports) > self.size:
            self._reports.popitem(last=False)
        return report_id

    def get(self, report_id: str) -> Report | None:
        """The report kept under `report_id`, or None (never made here, or pushed out)."""
        return self._reports.get(report_id)

    def items(self) -> list[tuple[str, Report]]:
        """Every kept report with its id, newest first."""
        return list(reversed(self._reports.items()))


class SessionReports:
    """Each client session's `RecentReports`, dropped when the session object goes."""

    def __init__(self, size: int = REPORTS_KEPT) -> None:
        self.size = size
        self._sessions: weakref.WeakKeyDictionary[object, RecentReports] = weakref.WeakKeyDictionary()

    def __len__(self) -> int:
        """How many sessions hold reports now."""
        return len(self._sessions)

    def of(self, session: object) -> RecentReports:
        """The reports of `session` (made empty on first use)."""
        reports = self._sessions.get(session)
        if reports is None:
            reports = self._sessions[session] = RecentReports(self.size)
        return reports
