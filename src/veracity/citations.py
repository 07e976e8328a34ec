"""Mechanical check that a quote really occurs in a piece of evidence."""

from __future__ import annotations

import html
import re
import unicodedata

_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"), "-")
_SINGLE_QUOTES = dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b\u2032\u0060\u00b4"), "'")
_DOUBLE_QUOTES = dict.fromkeys(map(ord, "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"), '"')
_SPACES = dict.fromkeys(map(ord, "\u00a0\u2007\u202f\u2009\u200a\u2002\u2003"), " ")
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_TRANSLATION = {**_DASHES, **_SINGLE_QUOTES, **_DOUBLE_QUOTES, **_SPACES, **_ZERO_WIDTH}

_TAG = re.compile(r"<[^>]{0,500}>")
_WHITESPACE = re.compile(r"\s+")

MIN_QUOTE_CHARS = 4
"""Shortest normalised quote accepted as a citation."""


def normalize(text: str) -> str:
    """Fold text for quote matching: HTML, Unicode dashes/quotes/spaces, whitespace and case."""
    text = _TAG.sub(" ", text)
    text = html.unescape(text)
    text = unicodedata.normalize("NFKC", text).translate(_TRANSLATION)
    return _WHITESPACE.sub(" ", text).strip().casefold()


def quote_problem(quote: str | None, evidence_text: str) -> str | None:
    """Return why `quote` is not a verbatim passage of `evidence_text`, or None when it is.

    The whole quote must be present after normalisation, not just its opening words.
    """
    if not quote or not quote.strip():
        return "the quote is empty"
    needle = normalize(quote)
    if len(needle) < MIN_QUOTE_CHARS:
        return f"the quote {quote!r} is too short to show anything"
    if needle in normalize(evidence_text):
        return None
    return f"the quote {quote!r} does not appear verbatim in the cited evidence"
