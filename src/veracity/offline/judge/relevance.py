"""Relevance before judgement: is an evidence item about the claim's subject at all?

A passage may decide a claim only when it is about the same thing. Evidence about something
else (a note on the Nile for a claim about Berlin) says nothing about the claim, so its words
must neither support nor refute it: the claim is unverifiable, with a reason that names what
the evidence lacks, and no quote from the unrelated text.

An item (its title and text) is about a claim when it names the claim's subject (or an
abbreviation the claim gives for it in brackets). A claim that opens with no name is matched by its
words instead: the item must share at least `MIN_SHARED_STEMS` of the claim's content words (all of
them, for a claim with fewer) and name one of the names the claim holds further on, if any; or by
meaning: an embedding of its closest sentence at `ABOUT_SIMILARITY` or more. The
subject is the name a claim opens with ("Berlin is the capital of Germany", "The Sydney Opera
House has ..."). So a note on Einstein that mentions Germany is not about Berlin, and a note on
Canberra shares only "capital" with it; a note on global temperatures is about "Global
temperatures rose" through its words. Deterministic, English-only heuristics.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from veracity.contracts import Evidence
from veracity.offline.judge.entities import Entity, named_entities, names_entity
from veracity.offline.judge.words import STOPWORDS, content_stems, words

MIN_SHARED_STEMS = 2
"""Content stems an item must share with a claim to be about it without naming the claim's subject."""

ABOUT_SIMILARITY = 0.5
"""Cosine (claim against an item's closest sentence) at or above which an item is about a claim that opens
with no name, though it shares too few of its words: "quicksand" for "sinking sand". Chosen on the
calibration part of the benchmark data and on FEVER claims paired with another claim's evidence (no
such pair reached 0.5); a claim that opens with a name still needs the name."""

MAX_DESCRIBED_WORDS = 8
"""Content words used to name a subject that has no name (e.g. "water boils 100 degrees")."""

_LEADING_WORDS = frozenset({"the", "a", "an"})
_BRACKETED = re.compile(r"\(([A-Z][A-Z0-9&-]{1,11})\)")
_WORD = re.compile(r"[^\W_]+(?:['’.\-][^\W_]+)*")


@dataclass(frozen=True)
class Subject:
    """What a claim is about: the name it opens with (if any), its content stems, and how to say it."""

    name: Entity | None
    stems: frozenset[str]
    described: str
    names: tuple[Entity, ...] = ()
    """The names a claim that opens with none holds further on ("... is the Sahara")."""
    aliases: tuple[Entity, ...] = ()
    """Abbreviations the claim gives in brackets ("... Computational Linguistics (ACL)"): they name the subject too."""


def fold_accents(text: str) -> str:
    """`text` without accents, so that "Angstrom" names "Ångström"."""
    return "".join(char for char in unicodedata.normalize("NFKD", text) if not unicodedata.combining(char))


def claim_subject(claim: str) -> Subject:
    """The subject of `claim`: the name it opens with, else its content words."""
    claim = fold_accents(claim)
    names = named_entities(claim)
    leading = names[0] if names and set(words(claim[:names[0].start])) <= _LEADING_WORDS else None
    aliases = tuple(Entity(match.group(1), match.start(1), match.end(1)) for match in _BRACKETED.finditer(claim))
    if leading is not None:
        return Subject(name=leading, stems=frozenset(content_stems(claim)), described=leading.text, aliases=aliases)
    content = [word for word in _WORD.findall(claim) if word.lower() not in STOPWORDS and word.lower() != "not"]
    described = " ".join(content[:MAX_DESCRIBED_WORDS]) or claim.strip()
    inner = tuple(names)
    if inner:
        described = " or ".join(dict.fromkeys(name.text for name in inner))
    return Subject(name=None, stems=frozenset(content_stems(claim)), described=described, names=inner,
                   aliases=aliases)


def names_one_of(subject: Subject, text: str) -> bool:
    """Whether `text` names one of the names a claim with no leading name holds (True when it holds none)."""
    return not subject.names or any(names_entity(name, text) for name in subject.names)


def is_about(subject: Subject, text: str) -> bool:
    """Whether `text` is about the subject: it names the leading name (or, with none, shares enough words).

    Shared words never stand in for a missing name: "Mount Fuji is the highest mountain in
    Japan" is not decided by a note on Mount Everest, although both say "highest mountain", and
    "The largest desert in the world is the Sahara" needs a text that names the Sahara.
    """
    text = fold_accents(text)
    if any(names_entity(alias, text) for alias in subject.aliases):
        return True
    if subject.name is not None:
        return names_entity(subject.name, text)
    if not subject.stems or not names_one_of(subject, text):
        return False
    shared = subject.stems & set(content_stems(text))
    return len(shared) >= min(MIN_SHARED_STEMS, len(subject.stems))


Closeness = Callable[[Evidence], float]
"""The cosine of a claim against an evidence item's closest sentence (see `ABOUT_SIMILARITY`)."""


def on_topic(subject: Subject, evidence: Sequence[Evidence], closeness: Closeness | None = None) -> list[Evidence]:
    """The evidence items that are about the subject, in their order.

    An item is about it when its title or text names the subject or shares enough of its words
    (`is_about`); for a subject with no name, also when `closeness` (if given) reaches `ABOUT_SIMILARITY`.
    """
    return [
        item for item in evidence
        if is_about(subject, f"{item.title}\n{item.text}")
        or (subject.name is None and closeness is not None and closeness(item) >= ABOUT_SIMILARITY)
    ]


def off_topic_reason(subject: Subject, evidence: Sequence[Evidence]) -> str:
    """Why no evidence item can decide the claim, in words that name the missing subject."""
    backends = {item.backend for item in evidence}
    count = f"{len(evidence)} passage(s)"
    it = "any of them" if len(subject.names) > 1 else "it"
    if backends == {"kb"}:
        return f"The knowledge base has nothing about {subject.described}: none of the {count} found mentions {it}."
    if backends == {"web"}:
        return f"No search result mentions {subject.described} ({count} read)."
    if backends == {"source"}:
        return f"The source says nothing about {subject.described}."
    return f"None of the evidence ({count}) mentions {subject.described}."


def citation_off_topic(claim: str, cited: Evidence) -> str | None:
    """Why `cited` cannot decide `claim` because it is about something else, or None when it is about it.

    For a verdict from any judge (a chat model included) that cites an evidence item. Only a claim
    that opens with a name is held to it: for one that does not, relevance may rest on meaning
    (`ABOUT_SIMILARITY`), which words alone cannot confirm.
    """
    subject = claim_subject(claim)
    if subject.name is None or is_about(subject, f"{cited.title}\n{cited.text}"):
        return None
    return f"the cited evidence {cited.id!r} is not about {subject.described}: it does not mention it"


def same_subject_and_predicate(claim: str, passage: str, *, subject_may_differ: bool = False, about: str = "") -> bool:
    """Whether `passage` speaks of the claim's subject and predicate, so a mismatch on it is a contradiction.

    The predicate: the passage shares a content word of the claim outside its subject (any, for a
    claim with none). The subject: a passage that opens with a name opens with the claim's own;
    a passage that opens otherwise ("It has 1,000 rooms") is about its document, so `about` (the
    document's title), when given, must name the subject. `subject_may_differ` drops the subject
    test, for a detector whose contradiction is another name in the subject's place.
    """
    subject = claim_subject(claim)
    passage = fold_accents(passage)
    subject_stems = set(content_stems(subject.name.text)) if subject.name is not None else set()
    # The values a claim states (other names, numbers) are what a contradiction changes; the
    # predicate is the rest ("born" in "born in 1564"; nothing in "is in Berlin").
    values = {stem for name in named_entities(fold_accents(claim)) for stem in content_stems(name.text)}
    predicate = {stem for stem in subject.stems - subject_stems - values if not stem[:1].isdigit()}
    if predicate and not predicate & set(content_stems(passage)):
        return False
    if subject_may_differ or subject.name is None:
        return True
    opening = claim_subject(passage).name
    if opening is None:
        return not about.strip() or names_entity(subject.name, fold_accents(about)) or names_entity(
            subject.name, passage)
    return names_entity(subject.name, opening.text) or names_entity(opening, subject.name.text)


_SUBJECT_END = re.compile(
    r"\b(?:is|are|was|were|be|been|can|cannot|can't|could|may|might|must|shall|should|will|would|do|does|did|"
    r"don't|doesn't|didn't|has|have|had|won't|isn't|aren't|wasn't|weren't)\b", re.IGNORECASE)


def subject_phrase_stems(claim: str) -> frozenset[str]:
    """Content stems of the words before a claim's first auxiliary or modal verb: "Sale items can ..." -> sale, item.

    Empty when the claim opens with its verb or a pronoun ("You can return it ...").
    """
    end = _SUBJECT_END.search(claim)
    return frozenset(content_stems(claim[:end.start()])) if end else frozenset()

