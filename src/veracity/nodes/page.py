"""verify_page: fetch a decisive web verdict's cited page and record whether its quote is there."""

from __future__ import annotations

from pathlib import Path

from langgraph.runtime import Runtime

from veracity.context import Context
from veracity.contracts import Evidence, PageCheck, TraceRecord, Verdict
from veracity.nodes.names import VERIFY_PAGE
from veracity.nodes.timing import Stopwatch
from veracity.pages import AddressPolicy, FetchSettings, check_page
from veracity.state import ClaimState, ClaimUpdate, evidence_for


def page_to_check(verdict: Verdict, evidence: list[Evidence], context: Context) -> str | None:
    """The cited URL of a supported/refuted verdict quoting a web result, as given; None when no page is due.

    Whatever the URL is (upper-case scheme, ``file:``, relative, empty), the page check runs and
    says whether and why it was not fetched: a web verdict never skips it silently.
    """
    if not context.verify_pages or verdict.label == "unverifiable" or not verdict.citation_verified:
        return None
    cited = next((item for item in evidence if item.id == verdict.evidence_id), None)
    if cited is None or cited.backend != "web":
        return None
    return cited.url or ""


def fetch_settings(context: Context) -> FetchSettings:
    """The page-fetch limits a run's context asks for."""
    return FetchSettings(timeout=context.page_timeout, max_bytes=context.page_max_bytes,
                         policy=AddressPolicy.parse(context.page_allowed_networks),
                         archive_url=context.page_archive_url,
                         snapshots=Path(context.page_snapshots).expanduser() if context.page_snapshots else None)


async def verify_page(state: ClaimState, runtime: Runtime[Context]) -> ClaimUpdate:
    """Graph node: fetch the cited page, match the quote, attach the `PageCheck` to the verdict."""
    watch = Stopwatch()
    claim = state["claim"]
    verdict = state["verdicts"][claim.id]
    url = page_to_check(verdict, evidence_for(state), runtime.context) or ""  # routed here only when one is due
    try:
        page = await check_page(claim.text, verdict, url, fetch_settings(runtime.context))
    except Exception as exc:  # a page check must never cost the verdict; it is recorded as failed
        page = PageCheck(outcome="fetch_failed", url=url, checked_at="", reason=f"the page check failed: "
                                                                              f"{type(exc).__name__}: {exc}")
    record = TraceRecord(step=VERIFY_PAGE, claim_id=claim.id, outcome="ok" if page.verified else "failed",
                         reason=f"{page.outcome}: {page.reason}", seconds=watch.seconds)
    return {"verdicts": {claim.id: verdict.model_copy(update={"page": page})}, "trace": [record]}
