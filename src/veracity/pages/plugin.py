"""Page fetching as the core's plug-in (`veracity.protocols.PageChecker`), within the run's fetch limits."""

from __future__ import annotations

from pathlib import Path

from veracity.context import Context
from veracity.contracts import PageCheck, Verdict
from veracity.pages import AddressPolicy, FetchSettings, check_page


def fetch_settings(context: Context) -> FetchSettings:
    """The page-fetch limits a run's context asks for."""
    return FetchSettings(timeout=context.page_timeout, max_bytes=context.page_max_bytes,
                         policy=AddressPolicy.parse(context.page_allowed_networks),
                         archive_url=context.page_archive_url,
                         snapshots=Path(context.page_snapshots).expanduser() if context.page_snapshots else None)


class PageFetcher:
    """Fetches the cited page (live, else from the archive when one is set) and looks for the quote on it."""

    async def check(self, claim: str, verdict: Verdict, url: str, context: Context) -> PageCheck:
        """The page check of `verdict` at `url` (`veracity.pages.check_page`)."""
        return await check_page(claim, verdict, url, fetch_settings(context))
