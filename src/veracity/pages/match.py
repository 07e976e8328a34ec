"""Is a verdict's quote on the page? The page's main text, and how much of the quote it carries.

Both sides are folded as the citation check folds them (`veracity.citations.normalize`:
tags, entities, dashes, curly quotes, NBSP, whitespace, case). Outcomes:

* ``verified_live``: the whole quote occurs in the page's text;
* ``verified_fragment``: at least `FRAGMENT_SHARE` of the quote's words occur in order in one
  stretch of the page no longer than twice the quote (the snippet elided or re-spaced some);
* ``partial``: at least `PARTIAL_SHARE` of its words do;
* ``not_found``: less.
"""

from __future__ import annotations

import re

from veracity.citations import normalize
from veracity.contracts import PageOutcome

FRAGMENT_SHARE = 0.8
PARTIAL_SHARE = 0.5
_WORD = re.compile(r"\w+")
_ANCHORS = 3
"""A stretch of the page is tried from each place one of the quote's first words occurs."""


def page_text(body: str, content_type: str) -> str:
    """The readable text of a page: trafilatura's main text, then the whole page's text.

    The main text comes first so an excerpt is taken from it where the quote is there; the
    whole text follows so a quote from a part trafilatura left out (a caption, a table) is
    still found. Tags are dropped by the folding either way.
    """
    if content_type == "text/plain":
        return body
    import trafilatura

    main = trafilatura.extract(body, include_comments=False, include_tables=True, favor_recall=True) or ""
    return f"{main}\n{body}"


def excerpt_around(quote: str, text: str, width: int = 300) -> str:
    """About `width` characters of the folded page text around the quote (its start when absent)."""
    folded, needle = normalize(text), normalize(quote)
    at = max(folded.find(needle), 0)
    start = max(0, at - (width - len(needle)) // 2)
    return folded[start:start + max(width, len(needle))]


def quote_on_page(quote: str, text: str) -> tuple[PageOutcome, float]:
    """The outcome for `quote` on a page whose text is `text`, and the share of the quote's words found."""
    folded_quote, folded_text = normalize(quote), normalize(text)
    if folded_quote and folded_quote in folded_text:
        return "verified_live", 1.0
    share = words_in_order(_WORD.findall(folded_quote), _WORD.findall(folded_text))
    if share >= FRAGMENT_SHARE:
        return "verified_fragment", share
    if share >= PARTIAL_SHARE:
        return "partial", share
    return "not_found", share


def words_in_order(quote: list[str], page: list[str]) -> float:
    """The largest share of `quote`'s words found in order within a stretch of `page` twice its length."""
    if not quote:
        return 0.0
    anchors = set(quote[:_ANCHORS])
    best, span = 0, 2 * len(quote)
    for start, word in enumerate(page):
        if word in anchors:
            best = max(best, _common_in_order(quote, page[start:start + span]))
            if best == len(quote):
                break
    return best / len(quote)


def _common_in_order(first: list[str], second: list[str]) -> int:
    """Length of the longest common subsequence of two word lists."""
    previous = [0] * (len(second) + 1)
    for word in first:
        current = [0]
        for j, other in enumerate(second):
            current.append(previous[j] + 1 if word == other else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]
