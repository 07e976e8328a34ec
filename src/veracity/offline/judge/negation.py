"""Negation: a content word negated on one side and stated plainly on the other.

"Returns are accepted" against "returns are not accepted" is a mismatch on "accepted".
Deterministic, English-only heuristics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from veracity.offline.judge.words import (
    NEGATION_CUES,
    STOPWORDS,
    split_token,
    stem,
)

_TOKEN_OR_STOP = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+(?:[.,]\d+)*|[.,;:!?()\[\]]")

_NOT_NEGATING = {("not", "only"), ("not", "just"), ("not", "merely"), ("no", "doubt"), ("nothing", "but")}
_SCOPE_FILLERS = frozenset({"it", "them", "him", "her", "us", "me", "you", "this", "that", "these", "those", "one"})
"""Pronouns that fill a negation's scope themselves ("without them", "not this")."""
NEGATION_SCOPE = 1
"""A negation covers this many following content words (adverbs in -ly ride along for free), and
stops at punctuation or 'but': "are not accepted" negates "accepted", "never generate as much
energy" negates "generate" only."""



@dataclass(frozen=True)
class NegationMismatch:
    """A content word negated on one side and stated plainly on the other."""

    word: str
    negated_in: Literal["claim", "evidence"]

    def describe(self) -> str:
        """E.g. "negation mismatch: the evidence negates 'accepted', the claim does not"."""
        other = "claim" if self.negated_in == "evidence" else "evidence"
        return f"negation mismatch: the {self.negated_in} negates {self.word!r}, the {other} does not"


def polarity(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """Split the content words of `text` into (negated, affirmed), each a map stem -> word as written.

    A negation word ("not", "never", "no", "n't", "without", ...) covers the next
    `NEGATION_SCOPE` content words ("not directly affecting" negates both), stopping at
    punctuation or "but". "not only", "not just", "no doubt" and "nothing but" do not negate.
    """
    negated: dict[str, str] = {}
    affirmed: dict[str, str] = {}
    tokens: list[str] = []
    for token in _TOKEN_OR_STOP.findall(text):
        tokens.extend(split_token(token) if token[0].isalnum() else [token])
    remaining = 0
    for index, token in enumerate(tokens):
        if not token[0].isalnum() or token == "but":
            remaining = 0
            continue
        if token in NEGATION_CUES:
            following = tokens[index + 1] if index + 1 < len(tokens) else ""
            remaining = 0 if (token, following) in _NOT_NEGATING else NEGATION_SCOPE
            continue
        if token in _SCOPE_FILLERS:
            remaining = 0  # "without them, coral ...": the pronoun is what is negated
            continue
        if token in STOPWORDS:
            continue
        if remaining:
            negated.setdefault(stem(token), token)
            if not token.endswith("ly"):
                remaining -= 1
        else:
            affirmed.setdefault(stem(token), token)
    return negated, affirmed


def negation_mismatch(claim: str, sentence: str, about: str = "") -> NegationMismatch | None:
    """Return a word negated in one text and affirmed (never negated) in the other, or None.

    "returns are accepted" vs "returns are not accepted" -> mismatch on "accepted". A
    negation about words the other text does not mention gives no signal. `about` (the sentence's
    document title) is accepted for the detectors' common signature; the decider checks the context.
    """
    claim_negated, claim_affirmed = polarity(claim)
    sentence_negated, sentence_affirmed = polarity(sentence)
    for key, word in claim_negated.items():
        if key in sentence_affirmed and key not in sentence_negated:
            return NegationMismatch(word=word, negated_in="claim")
    for key, word in sentence_negated.items():
        if key in claim_affirmed and key not in claim_negated:
            return NegationMismatch(word=word, negated_in="evidence")
    return None
