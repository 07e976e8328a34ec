"""Proof on the page: fetch a web verdict's cited URL and look for its quote there.

A search snippet is the search engine's text, not the page's: it may be paraphrased, stale, or
stitched together. `check_page` fetches the cited page (`fetch.py`, after `urls.py` has
normalised the URL and behind the address guard of `addresses.py`), extracts its text and
matches the quote (`match.py`). A supported verdict must also find every number of its claim
on the page, so a figure the snippet showed but the page does not carry is not taken on trust.
A URL that is not fetched (not http(s), or pointing at a refused address) is a failed check
with the reason, and no archive copy is asked for it.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal
from urllib.parse import quote

from veracity.citations import normalize
from veracity.contracts import PAGE_VERIFIED, PageCheck, PageOutcome, Verdict
from veracity.pages.addresses import AddressPolicy
from veracity.pages.fetch import FetchedPage, FetchFailed, FetchSettings, NotFetched, fetch_page, page_client
from veracity.pages.match import excerpt_in, folded_quote_on_page, page_text
from veracity.pages.urls import page_url
from veracity.user_files import write_atomically

__all__ = ["AddressPolicy", "FetchSettings", "check_page", "examine_page"]

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


async def check_page(claim_text: str, verdict: Verdict, url: str, settings: FetchSettings) -> PageCheck:
    """Fetch `url` and say whether `verdict.quote` (and, when supported, the claim's numbers) are on it.

    When the live page cannot be fetched and `settings.archive_url` is set, the archive's copy
    is read instead (and the check says so). With `settings.snapshots`, the page is kept there.
    """
    checked_at = datetime.now(UTC).isoformat(timespec="seconds")
    source: Literal["live", "archive"] = "live"
    async with page_client(settings) as client:
        try:
            page = await fetch_page(url, settings, client)
        except NotFetched as refused:
            return PageCheck(outcome="fetch_failed", url=url, checked_at=checked_at, reason=str(refused))
        except FetchFailed as live:
            if settings.archive_url is None:
                return PageCheck(outcome="fetch_failed", url=url, checked_at=checked_at, reason=str(live))
            try:
                archived_url = settings.archive_url.format(url=quote(page_url(url), safe=""))
                page = await fetch_page(archived_url, settings, client)
            except FetchFailed as archived:
                return PageCheck(outcome="fetch_failed", url=url, checked_at=checked_at,
                                 reason=f"{live}; the archive copy failed too: {archived}")
            source = "archive"
    outcome, share, reason, excerpt = await asyncio.to_thread(examine_page, claim_text, verdict, page.body,
                                                              page.content_type)
    if page.truncated and outcome not in PAGE_VERIFIED:
        reason += f" (only its first {settings.max_bytes:,} bytes were read)"
    if page.note:
        reason += f" ({page.note})"
    if source == "archive":
        reason += " (on the archive's copy; the live page could not be fetched)"
    snapshot = await asyncio.to_thread(_keep, page, settings.snapshots) if settings.snapshots else None
    return PageCheck(outcome=outcome, url=url, final_url=page.url, source=source, snapshot=snapshot,
                     quote_share=round(share, 3), sha256=page.sha256, excerpt=excerpt, truncated=page.truncated,
                     checked_at=checked_at, reason=reason)


def _keep(page: FetchedPage, folder: Path) -> str:
    """Write the page as read into `folder` (once per content), named by its hash; the file name."""
    name = page.sha256 + (".txt" if page.content_type == "text/plain" else ".html")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    if not target.exists():
        write_atomically(target, page.raw)
    return name


def examine_page(claim_text: str, verdict: Verdict, body: str,
                 content_type: str) -> tuple[PageOutcome, float, str, str]:
    """Outcome, share of the quote found, reason and excerpt for a page's body (CPU work: run it in a thread).

    `check_page` uses it on the page it fetched, `veracity verify` on a kept snapshot, so both
    come to the same outcome for the same page.
    """
    quote = normalize(verdict.quote or "")
    text = page_text(body, content_type)
    outcome, share = folded_quote_on_page(quote, text)
    reason = {"verified_live": "the quote is on the page",
              "verified_fragment": f"{share:.0%} of the quote's words are on the page, in order",
              "partial": f"only {share:.0%} of the quote's words are on the page",
              "not_found": "the quote is not on the page"}[outcome]
    missing = _missing_numbers(claim_text, text) if verdict.label == "supported" else []
    if missing and outcome in PAGE_VERIFIED:
        outcome, reason = "partial", f"{reason}, but the claim's {', '.join(missing)} is not"
    return outcome, share, reason, excerpt_in(quote, text)


def _missing_numbers(claim_text: str, folded_page: str) -> list[str]:
    missing = {number.replace(",", ""): number for number in _NUMBER.findall(claim_text)}
    for found in _NUMBER.finditer(folded_page):
        missing.pop(found.group().replace(",", ""), None)
        if not missing:
            break
    return list(missing.values())
