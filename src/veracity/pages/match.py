"""Is a verdict's quote on the page? The page's main text, and how much of the quote it carries.

Both sides are folded as the citation check folds them (`veracity.citations.normalize`:
tags, entities, dashes, curly quotes, NBSP, whitespace, case). Outcomes:

* ``verified_live``: the whole quote occurs in the page's text;
* ``verified_fragment``: at least `FRAGMENT_SHARE` of the quote's words occur in order in one
  stretch of the page no longer than twice the quote (the snippet elided or re-spaced some);
* ``partial``: at least `PARTIAL_SHARE` of its words do;
* ``not_found``: less.

A page may be as long as the fetch cap (5 MB by default), so nothing here holds more than a
few copies of its text: the folding runs a piece at a time (`fold_page`), the page's words
are streamed past a window as long as the stretch, and trafilatura, whose memory and time
grow fast with a page's markup, reads only the page's first `MAIN_TEXT_MAX_CHARS`.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Iterable, Iterator

from veracity.citations import normalize
from veracity.contracts import PageOutcome

FRAGMENT_SHARE = 0.8
PARTIAL_SHARE = 0.5
MAIN_TEXT_MAX_CHARS = 250_000
"""Characters at the start of a page trafilatura reads for the main text (the whole page is searched anyway)."""
FOLD_PIECE_CHARS = 16_384
"""About how many characters `fold_page` folds at a time."""
_WORD = re.compile(r"\w+")
_ANCHORS = 3
"""A stretch of the page is tried from each place one of the quote's first words occurs."""
_TAG = re.compile(r"<[^>]{0,500}>")
"""A tag as `normalize` drops it."""
_TAG_SPAN = 502
"""The longest tag `_TAG` matches."""
_BREAK = re.compile(r"[ \t\n\r\f\v]|<[^>]{0,500}>")
"""Where a piece may end: after a space or a tag, which the folding turns into one space anyway."""


def page_text(body: str, content_type: str) -> str:
    """The readable text of a page, folded (`normalize`): trafilatura's main text, then the whole page's text.

    The main text comes first so an excerpt is taken from it where the quote is there; the
    whole text follows so a quote from a part trafilatura left out (a caption, a table, a
    page past `MAIN_TEXT_MAX_CHARS`) is still found. Tags are dropped by the folding either way.
    """
    if content_type == "text/plain":
        return fold_page(body)
    import trafilatura

    main = trafilatura.extract(body[:MAIN_TEXT_MAX_CHARS], include_comments=False, include_tables=True,
                               favor_recall=True) or ""
    return fold_page(main, body)


def fold_page(*texts: str, piece: int = FOLD_PIECE_CHARS) -> str:
    """`normalize` of the texts joined by a space, folded a piece of about `piece` characters at a time.

    Each piece ends after a space or a tag, so no word, entity or tag is split and the result
    is the whole text's folding; the regular expressions then never hold a whole page's
    matches at once.
    """
    return " ".join(folded for text in texts for folded in map(normalize, _pieces(text, piece)) if folded)


def _pieces(text: str, size: int) -> Iterator[str]:
    start = 0
    while start < len(text):
        end = _piece_end(text, start, size)
        yield text[start:end]
        start = end


def _piece_end(text: str, start: int, size: int) -> int:
    end = start + size
    if end >= len(text):
        return len(text)
    opening = text.rfind("<", max(start, end - _TAG_SPAN), end)
    tag = _TAG.match(text, opening) if opening >= 0 else None
    if tag is not None and tag.end() > end:
        return tag.end()
    found = _BREAK.search(text, end)
    return found.end() if found else len(text)


def excerpt_around(quote: str, text: str, width: int = 300) -> str:
    """About `width` characters of the folded page text around the quote (its start when absent)."""
    return excerpt_in(normalize(quote), fold_page(text), width)


def excerpt_in(folded_quote: str, folded_text: str, width: int = 300) -> str:
    """`excerpt_around` for a quote and a text already folded."""
    at = max(folded_text.find(folded_quote), 0)
    start = max(0, at - (width - len(folded_quote)) // 2)
    return folded_text[start:start + max(width, len(folded_quote))]


def quote_on_page(quote: str, text: str) -> tuple[PageOutcome, float]:
    """The outcome for `quote` on a page whose text is `text`, and the share of the quote's words found."""
    return folded_quote_on_page(normalize(quote), fold_page(text))


def folded_quote_on_page(folded_quote: str, folded_text: str) -> tuple[PageOutcome, float]:
    """`quote_on_page` for a quote and a page text already folded."""
    if folded_quote and folded_quote in folded_text:
        return "verified_live", 1.0
    share = words_in_order(_WORD.findall(folded_quote), (word.group() for word in _WORD.finditer(folded_text)))
    if share >= FRAGMENT_SHARE:
        return "verified_fragment", share
    if share >= PARTIAL_SHARE:
        return "partial", share
    return "not_found", share


def words_in_order(quote: list[str], page: Iterable[str]) -> float:
    """The largest share of `quote`'s words found in order within a stretch of `page` twice its length.

    `page` is read once, through a window as long as the stretch. A stretch is compared word by
    word only when the quote's words it holds could beat the best found so far.
    """
    if not quote:
        return 0.0
    anchors, best = set(quote[:_ANCHORS]), 0
    window = _Window(quote)
    for word in page:
        window.push(word)
        if window.full:
            if window.front in anchors and window.reachable > best:
                best = max(best, _common_in_order(quote, window.words()))
            if best == len(quote):
                return 1.0
            window.pop()
    while window.words():
        if window.front in anchors and window.reachable > best:
            best = max(best, _common_in_order(quote, window.words()))
        window.pop()
    return best / len(quote)


class _Window:
    """The last words of a page, as many as a stretch holds, and how many of the quote's words are among them."""

    def __init__(self, quote: list[str]) -> None:
        self._wanted = Counter(quote)
        self._span = 2 * len(quote)
        self._words: deque[str] = deque()
        self._held: Counter[str] = Counter()
        self.reachable = 0
        """The quote's words in the window, each counted at most as often as the quote has it: a bound on a match."""

    @property
    def full(self) -> bool:
        """Whether the window holds a whole stretch."""
        return len(self._words) == self._span

    @property
    def front(self) -> str:
        """The stretch's first word."""
        return self._words[0]

    def words(self) -> list[str]:
        """The stretch, in order."""
        return list(self._words)

    def push(self, word: str) -> None:
        """Add the page's next word."""
        self._words.append(word)
        if word in self._wanted:
            self.reachable += self._held[word] < self._wanted[word]
            self._held[word] += 1

    def pop(self) -> None:
        """Move the stretch's start one word on."""
        word = self._words.popleft()
        if word in self._wanted:
            self._held[word] -= 1
            self.reachable -= self._held[word] < self._wanted[word]


def _common_in_order(first: list[str], second: list[str]) -> int:
    """Length of the longest common subsequence of two word lists."""
    previous = [0] * (len(second) + 1)
    for word in first:
        current = [0]
        for j, other in enumerate(second):
            current.append(previous[j] + 1 if word == other else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]
