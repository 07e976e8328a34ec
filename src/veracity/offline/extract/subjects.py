"""Subjects: where a subject ends, pronouns resolved to the previous subject, and subjects carried over."""

from __future__ import annotations

from veracity.offline.extract import lexicon
from veracity.offline.extract.tokens import Token
from veracity.offline.extract.verbs import expand_clitic, split_clitic

_MAX_SUBJECT_WORDS = 10


def _subject_end(tokens: list[Token], verb: int | None) -> int:
    if verb is not None:
        return verb
    return 1 if tokens[0].folded in lexicon.PERSONAL_PRONOUNS else 0


def resolved_subject(text: str, tokens: list[Token], verb: int | None, carried: str | None, end: int) -> str | None:
    """The previous subject standing in for a leading "It", "Its X", "This building"; else None."""
    if carried is None or _is_expletive(text, tokens[0].start, end):
        return None
    clitic = split_clitic(tokens[0])
    words = [t.folded for t in tokens[:_subject_end(tokens, verb)]] or ([clitic[0]] if clitic else [])
    if words in (["it"], ["he"], ["she"]):
        return carried
    if words == ["they"]:
        return carried if _looks_plural(carried) else None
    if len(words) >= 2 and words[0] in lexicon.POSSESSIVE_PRONOUNS:
        rest = text[tokens[1].start:tokens[len(words) - 1].end]
        return f"{_possessive(carried)} {rest}"
    if len(words) == 2 and words[0] in lexicon.DEMONSTRATIVES and words[1] in lexicon.ANAPHORIC_NOUNS:
        return carried
    return None


def with_subject(text: str, tokens: list[Token], verb: int | None, subject: str, end: int) -> str:
    """Rewrite the clause with `subject` in place of its pronoun subject."""
    if verb == 0:
        rest = text[tokens[0].end:end]
        return f"{subject} {expand_clitic(tokens, 0)}{rest}"
    stop = _subject_end(tokens, verb)
    return f"{subject} {text[tokens[stop].start:end]}" if stop < len(tokens) else subject


def next_subject(
    text: str, tokens: list[Token], verb: int | None, carried: str | None, resolved: str | None
) -> str | None:
    """The noun phrase a pronoun in the next sentence refers to, if it is clear enough."""
    if resolved is not None or (carried and _is_expletive(text, tokens[0].start, tokens[-1].end)):
        return carried
    subject = splittable_subject(text, tokens, verb)
    if subject is None or tokens[0].folded in lexicon.VAGUE_SUBJECT_STARTS:
        return None
    return subject if tokens[0].text[:1].isupper() or tokens[0].folded == "the" else None


def splittable_subject(text: str, tokens: list[Token], verb: int | None) -> str | None:
    """The words before the first verb, when they read as a subject another verb phrase can share."""
    if verb is None:
        return None
    clitic = split_clitic(tokens[0])
    if verb == 0:
        pronoun = clitic[0] if clitic else ""
        return pronoun.capitalize() if pronoun in lexicon.PERSONAL_PRONOUNS | {"we", "you", "i"} else None
    words = tokens[:verb]
    span = text[words[0].start:words[-1].end]
    if (
        "," in span
        or len(words) > _MAX_SUBJECT_WORDS
        or words[0].folded in lexicon.NON_SUBJECT_STARTS
        or words[-1].folded in lexicon.SUBJECT_BAD_ENDS
        or any(w.folded in lexicon.RELATIVES for w in words[1:])
    ):
        return None
    return " ".join(span.split())


def _is_expletive(text: str, start: int, end: int) -> bool:
    return lexicon.EXPLETIVE_IT.match(text, start, end) is not None


def _looks_plural(subject: str) -> bool:
    return " and " in subject or subject.lower().endswith("s")


def _possessive(subject: str) -> str:
    return subject + ("'" if subject.endswith("s") else "'s")
