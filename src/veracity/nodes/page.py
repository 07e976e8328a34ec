"""verify_page: fetch a decisive web verdict's cited page and record whether its quote is there."""

from __future__ import annotations

from langgraph.runtime import Runtime

from veracity.context import Context
from veracity.contracts import Evidence, PageCheck, Verdict
from veracity.evidence.capabilities import Declarations
from veracity.protocols import StepResources
from veracity.state import ClaimState, ClaimUpdate, evidence_for
from veracity.step_support.names import VERIFY_PAGE
from veracity.step_support.tracing import TracedStep


def page_to_check(
    verdict: Verdict, evidence: list[Evidence], context: Context, capabilities: Declarations
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


async def verify_page(state: ClaimState, runtime: Runtime[Context], *, resources: StepResources) -> ClaimUpdate:
    """Graph node: fetch the cited page (`resources.pages`), match the quote, attach the `PageCheck` to the verdict.

    `resources.capabilities_of` reads an evidence item's backend name.
    """
    claim = state["claim"]
    traced = TracedStep(VERIFY_PAGE, claim_id=claim.id)
    verdict = state["verdicts"][claim.id]
    # routed here only when a page is due
    url = page_to_check(verdict, evidence_for(state), runtime.context, resources.capabilities_of) or ""
    try:
        page = await resources.pages.check(claim.text, verdict, url, runtime.context)
    except Exception as exc:  # a page check must never cost the verdict; it is recorded as failed
        page = PageCheck(outcome="fetch_failed", url=url, checked_at="", reason=f"the page check failed: "
                                                                              f"{type(exc).__name__}: {exc}")
    record = traced.record("ok" if page.verified else "failed", f"{page.outcome}: {page.reason}")
    return {"verdicts": {claim.id: verdict.model_copy(update={"page": page})}, "trace": [record]}
