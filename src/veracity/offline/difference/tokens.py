"""Sentences cut into the units the difference reader aligns: words, names, numbers, negations and modals.

A `Token` keeps its character offsets in the text it came from, so a difference can quote the
claim's and the passage's words exactly. Names (runs of capitalised words, `named_entities`,
cut where "and", "or" or a comma joins two) are one token each; "don't", "can't" and "cannot"
give a verb and a "not"; "non-refundable" gives "non" (a negation) and "refundable".
Deterministic, English only.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from veracity.offline.difference.quantities import merge_quantities
from veracity.offline.judge.entities import named_entities
from veracity.offline.judge.words import MONTHS, NEGATION_CUES, STOPWORDS, WEEKDAYS

TokenKind = Literal["word", "name", "number", "negation", "modal", "function"]
"""What a token is: a content word, a name, a number (digits or a number word), a negation cue, a modal
verb or a function word."""

CONTENT_KINDS: frozenset[TokenKind] = frozenset({"word", "name", "number"})
"""The kinds the aligner pairs: what a claim says, as opposed to how it is put together."""

NUMBER_WORDS: dict[str, float] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
    "million": 1e6, "billion": 1e9, "dozen": 12, "half": 0.5, "twice": 2, "single": 1, "double": 2,
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "noon": 12, "midday": 12, "midnight": 0,
}
"""Number words read as values ("twenty" = 20), so "twenty minutes" and "20 minutes" align ("once" is left
out: "at once" counts nothing)."""

MODALS: dict[str, str] = {
    "can": "possible", "could": "possible", "may": "possible", "might": "possible", "allowed": "possible",
    "permitted": "possible", "able": "possible", "optional": "possible",
    "must": "necessary", "have": "necessary", "has": "necessary", "need": "necessary", "needs": "necessary",
    "required": "necessary", "requires": "necessary", "should": "necessary", "obliged": "necessary",
    "mandatory": "necessary", "compulsory": "necessary", "shall": "necessary",
    "will": "future", "would": "future",
}
"""Modal words and the modality each expresses; "have"/"need" count only before "to" (see `tokenize`)."""

_NEEDS_TO = frozenset({"have", "has", "need", "needs"})
_NEGATION_WORDS = NEGATION_CUES | {"non", "nor", "nobody", "nothing", "none", "neither", "nowhere"}
_TOKEN = re.compile(r"\d+(?:[.,:]\d+)*(?:am|pm)?|[^\W\d_]+(?:['’][^\W\d_]+)*")
_CONTRACTED_NOT = re.compile(r"^(.*?)(n['’]t)$", re.IGNORECASE)
_CONTRACTED_STEMS = {"wo": "will", "sha": "shall", "ca": "can"}
_IRREGULAR_NOT = {"can't": "can", "won't": "will", "shan't": "shall", "cannot": "can", "ain't": "is"}


@dataclass(frozen=True)
class Token:
    """One unit of a sentence, with its offsets `[start, end)` in the sentence's text."""

    text: str
    start: int
    end: int
    kind: TokenKind
    value: float | None = None
    """A number's value (digits or a number word), in its unit's base unit when it has one; None for other tokens."""
    unit: str | None = None
    """What a number measures ("duration", "length", "mass", "percent", "clock"), or None for a bare number."""
    raw: float | None = None
    """A number with a unit: the number as written ("4" of "four weeks")."""

    @property
    def lower(self) -> str:
        """The token in lower case, typographic apostrophes made plain."""
        return self.text.lower().replace("’", "'")

    @property
    def is_content(self) -> bool:
        """Whether the aligner pairs this token (a word, a name or a number)."""
        return self.kind in CONTENT_KINDS


def modality_of(token: Token) -> str | None:
    """The modality a modal token expresses ("possible", "necessary", "future"), or None."""
    if token.kind != "modal":
        return None
    return MODALS.get(token.lower) or MODALS.get(_CONTRACTED_STEMS.get(token.lower, ""))


def number_value(text: str) -> float | None:
    """The value of a number as written ("2,000" -> 2000.0, "twenty" -> 20.0, "5.45am" -> 5.45), or None."""
    lowered = text.lower().replace(",", "")
    if lowered in NUMBER_WORDS:
        return float(NUMBER_WORDS[lowered])
    lowered = lowered.removesuffix("am").removesuffix("pm").replace(":", ".")
    try:
        return float(lowered)
    except ValueError:
        return None


def tokenize(text: str) -> tuple[Token, ...]:
    """The tokens of `text` in order (see the module docstring); memoised, since passages recur."""
    return _tokenize(text)


@functools.lru_cache(maxsize=8192)
def _tokenize(text: str) -> tuple[Token, ...]:
    names = [part for e in named_entities(text) for part in _coordinated(text, e.start, e.end)]
    tokens: list[Token] = []
    name_index = 0
    raw = list(_TOKEN.finditer(text))
    position = 0
    while position < len(raw):
        match = raw[position]
        while name_index < len(names) and names[name_index][1] <= match.start():
            name_index += 1
        if name_index < len(names) and names[name_index][0] <= match.start() < names[name_index][1] \
                and not _calendar_or_function(match.group()):
            start, end = names[name_index]
            tokens.append(Token(text[start:end], start, end, "name"))
            while position < len(raw) and raw[position].start() < end:
                position += 1
            name_index += 1
            continue
        tokens.extend(_word_tokens(match, raw[position + 1].group().lower() if position + 1 < len(raw) else ""))
        position += 1
    return tuple(merge_quantities(text, tokens))


_COORDINATION = re.compile(r"\s*,\s*|\s+(?:and|or|&)\s+")


def _coordinated(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A name span cut at "and", "or", "&" and commas.

    "Romania and Ukraine" names two countries, each aligned on its own (one may be swapped for another
    while the other stays).
    """
    parts = []
    position = start
    for joint in _COORDINATION.finditer(text, start, end):
        if joint.start() > position:
            parts.append((position, joint.start()))
        position = joint.end()
    if end > position:
        parts.append((position, end))
    return parts


def _calendar_or_function(word: str) -> bool:
    lowered = word.lower()
    return lowered in MONTHS or lowered in WEEKDAYS or lowered in STOPWORDS


def _word_tokens(match: re.Match[str], following: str) -> list[Token]:
    """One raw word as tokens: a contracted or glued negation becomes a word and a "not"."""
    word, start, end = match.group(), match.start(), match.end()
    lowered = word.lower().replace("’", "'")
    if lowered in _IRREGULAR_NOT:  # "can't" -> "can" + "'t", "cannot" -> "can" + "not", "won't" -> "wo" (will) + "n't"
        verb = _IRREGULAR_NOT[lowered]
        split = start + (3 if lowered in ("cannot", "can't") else len(word) - 3)
        kind: TokenKind = "modal" if verb in MODALS else "function"
        return [Token(word[: split - start], start, split, kind), Token(word[split - start:], split, end, "negation")]
    contracted = _CONTRACTED_NOT.match(word)
    if contracted and contracted.group(1):
        split = start + len(contracted.group(1))
        return [_token(contracted.group(1), start, split, following="not"), Token(contracted.group(2), split, end,
                                                                                    "negation")]
    return [_token(word, start, end, following=following)]


def _token(word: str, start: int, end: int, *, following: str) -> Token:
    lowered = word.lower().replace("’", "'")
    value = number_value(word) if (word[:1].isdigit() or lowered in NUMBER_WORDS) else None
    if value is not None and lowered not in ("one", "second", "first", "single", "double"):
        return Token(word, start, end, "number", value)
    if lowered in _NEGATION_WORDS:
        return Token(word, start, end, "negation")
    if lowered in MODALS and (lowered not in _NEEDS_TO or following == "to"):
        return Token(word, start, end, "modal")
    if lowered in STOPWORDS or len(lowered) == 1:
        return Token(word, start, end, "function")
    return Token(word, start, end, "word", value)
