"""Word tokens with their offsets, and the text helpers that trim and finish claim text."""

from __future__ import annotations

import re
from typing import NamedTuple

WORD = re.compile(r"\w+(?:(?:['’.\-]|(?<=\d),(?=\d{3}))\w+)*")


_LEADING_JUNK = re.compile(r"(?:[\s\-*•·\"“‘(\[]|\d+[.)]\s)+")


TRAILING_PUNCTUATION = ".!?…:;,"


CLOSERS = {'"': '"', "”": "“", "’": "‘", ")": "(", "]": "["}


class Token(NamedTuple):
    """A word as written, its [start, end) offsets in the text, and its folded form."""

    text: str
    start: int
    end: int
    folded: str  # lower case, straight apostrophes

    @property
    def is_lower(self) -> bool:
        """Whether the word starts with a lower-case letter."""
        return self.text[:1].islower()


def tokenize(text: str, start: int, end: int) -> list[Token]:
    """The word tokens of text[start:end] (numbers such as "2,000" and "U.S." stay whole)."""
    return [_token(match) for match in WORD.finditer(text, start, end)]


def _token(match: re.Match[str]) -> Token:
    word = match.group()
    return Token(word, match.start(), match.end(), word.lower().replace("’", "'"))


def trim_start(text: str, start: int, end: int) -> int:
    """`start` moved past leading bullets, quotes, brackets and list numbers."""
    match = _LEADING_JUNK.match(text, start, end)
    return match.end() if match else start


def trim_end(text: str, start: int, end: int) -> int:
    """Drop trailing spaces, sentence punctuation and unbalanced closing quotes or brackets."""
    while end > start:
        char = text[end - 1]
        closing = char in CLOSERS and _unbalanced(text[start:end], char)
        if not (char.isspace() or char in TRAILING_PUNCTUATION or closing):
            break
        end -= 1
    return end


def _unbalanced(span: str, closer: str) -> bool:
    opener = CLOSERS[closer]
    if opener == closer:
        return span.count(closer) % 2 == 1
    return span.count(closer) > span.count(opener)
