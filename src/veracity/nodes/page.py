"""verify_page: fetch a decisive web verdict's cited page and record whether its quote is there."""

from __future__ import annotations

from pathlib import Path

from langgraph.runtime import Runtime

from veracity.context import Context
from veracity.contracts import Evidence, PageCheck, Verdict
from veracity.evidence.capabilities import Declarations
from veracity.evidence.declared import capabilities_of
from veracity.nodes.names import VERIFY_PAGE
from veracity.nodes.tracing import TracedStep
from veracity.pages import AddressPolicy, FetchSettings, check_page
from veracity.state import ClaimState, ClaimUpdate, evidence_for


def page_to_check(
    verdict: Verdict, evidence: list[Evidence], context: Context, capabilities: Declarations = capabilities_of
) -> str | None:
    """The cited URL of a supported/refuted verdict quoting a web result, as given; None when no page is due.

    A web result is evidence from a backend that declares `pages_to_fetch` (`capabilities` reads
    an item's backend name; `Resources.capabilities_of` knows a bound backend's declaration).
    Whatever the URL is (upper-case scheme, ``file:``, relative, empty), the page check runs and
    says whether and why it was not fetched: a web verdict never skips it silently.
    """
    if not context.verify_pages or verdict.label == "unverifiable" or not verdict.citation_verified:
        return None
    cited = next((item for item in evidence if item.id == verdict.evidence_id), None)
    if cited is None or not capabilities(cited.backend).pages_to_fetch:
        return None
    return cited.url or ""


def fetch_settings(context: Context) -> FetchSettings:
    """The page-fetch limits a run's context asks for."""
    return FetchSettings(timeout=context.page_timeout, max_bytes=context.page_max_bytes,
                         policy=AddressPolicy.parse(context.page_allowed_networks),
                         archive_url=context.page_archive_url,
                         snapshots=Path(context.page_snapshots).expanduser() if context.page_snapshots else None)


async def verify_page(
    state: ClaimState, runtime: Runtime[Context], *, capabilities: Declarations = capabilities_of
) -> ClaimUpdate:
    """Graph node: fetch the cited page, match the quote, attach the `PageCheck` to the verdict.

    `capabilities` reads an evidence item's backend name (the graph binds `Resources.capabilities_of`).
    """
    claim = state["claim"]
    traced = TracedStep(VERIFY_PAGE, claim_id=claim.id)
    verdict = state["verdicts"][claim.id]
    # routed here only when a page is due
    url = page_to_check(verdict, evidence_for(state), runtime.context, capabilities) or ""
    try:
        page = await check_page(claim.text, verdict, url, fetch_settings(runtime.context))
    except Exception as exc:  # a page check must never cost the verdict; it is recorded as failed
        page = PageCheck(outcome="fetch_failed", url=url, checked_at="", reason=f"the page check failed: "
                                                                              f"{type(exc).__name__}: {exc}")
    record = traced.record("ok" if page.verified else "failed", f"{page.outcome}: {page.reason}")
    return {"verdicts": {claim.id: verdict.model_copy(update={"page": page})}, "trace": [record]}
