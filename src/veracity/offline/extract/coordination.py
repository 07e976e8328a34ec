"""Coordinated parts of a passage: verb phrases that share a subject, and clauses with their own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from veracity.offline.extract import lexicon
from veracity.offline.extract.tokens import Token
from veracity.offline.extract.verbs import group_end, is_verb, split_clitic, starts_verb_phrase

ConjunctKind = Literal["main", "verb_phrase", "clause"]
"""What a coordinated part is: the passage's first part, a verb phrase, or a clause of its own."""


@dataclass(frozen=True)
class Conjunct:
    """Tokens [first, last) of one coordinated part; `head` is where its verb group starts.

    `kind` is "main" (the passage's first part), "verb_phrase" (borrows the main subject) or
    "clause" (has a subject of its own, maybe a pronoun).
    """

    first: int
    last: int
    head: int | None
    kind: ConjunctKind


def split_conjuncts(text: str, tokens: list[Token], verb: int | None, *, split: bool) -> list[Conjunct]:
    """Cut the passage at "and"/"but" that join verb phrases or ", and it ..." clauses."""
    if verb is None or not split:
        return [Conjunct(0, len(tokens), verb, "main")]
    parts: list[Conjunct] = []
    first, head = 0, verb
    kind: ConjunctKind = "main"
    position = group_end(tokens, verb)
    has_object = False
    while position < len(tokens):
        folded_word = tokens[position].folded
        if folded_word in lexicon.RELATIVES or folded_word in lexicon.CLAUSE_OPENERS:
            break
        if folded_word in ("and", "but") and has_object:
            next_head, next_kind = _coordinated_head(text, tokens, position)
            if next_kind:
                parts.append(Conjunct(first, position, head, kind))
                first, head, kind = position + 1, next_head, next_kind
                position, has_object = group_end(tokens, next_head), False
                continue
        has_object = True
        position += 1
    parts.append(Conjunct(first, len(tokens), head, kind))
    return parts


def _coordinated_head(text: str, tokens: list[Token], position: int) -> tuple[int, ConjunctKind | None]:
    """Where the part after the conjunction at `position` starts its verb, and what kind of part it is."""
    head_position = position + 1
    following = tokens[head_position].folded if head_position < len(tokens) else ""
    if following in lexicon.VERB_ADVERBS and following != "not":
        head_position += 1
    if starts_verb_phrase(tokens, head_position):
        return head_position, "verb_phrase"
    if "," in text[tokens[position - 1].end:tokens[position].start]:
        window = range(position + 1, min(len(tokens), position + 8))
        clause_verb = next((probe for probe in window if is_verb(tokens, probe)), None)
        if clause_verb is not None and _opens_clause(tokens[position + 1:clause_verb], tokens[position + 1]):
            return clause_verb, "clause"
    return position, None


def _opens_clause(subject: list[Token], first: Token) -> bool:
    """Whether ", and <subject> <verb>" starts an independent clause ("..., and it remains ...")."""
    if not subject:
        clitic = split_clitic(first)
        return clitic is not None and clitic[0] in lexicon.PERSONAL_PRONOUNS
    opener = subject[0].folded
    return (
        len(subject) <= 6
        and opener not in lexicon.NON_SUBJECT_STARTS
        and subject[-1].folded not in lexicon.SUBJECT_BAD_ENDS
        and not any(t.folded in lexicon.RELATIVES for t in subject)
        and (opener in lexicon.PERSONAL_PRONOUNS or opener in lexicon.DETERMINERS or not subject[0].is_lower)
    )
