"""The counter-evidence query: a search worded to find what says a claim is wrong.

A search for the claim's own words finds pages that repeat it. Asking, next to it, whether the
claim is false (or a myth, or debunked) brings up fact-check pages and corrections, so the judge
weighs both sides instead of only the side the claim was written from. In LLM mode the
extraction model writes the query with each claim (`Claim.counter_query`); this template is
used when it did not, and offline.
"""

from __future__ import annotations

COUNTER_TEMPLATE = "Is it false that {claim}? myth debunked correction"
"""How the counter query is worded around the claim (its final full stop dropped)."""


def counter_query(claim: str) -> str:
    """The query looking for evidence against `claim`."""
    return COUNTER_TEMPLATE.format(claim=claim.strip().rstrip(".!"))


TRACE_PREFIX = "counter query: "
"""How a trace record of the counter search begins, so its attempts read apart from the claim's own."""
