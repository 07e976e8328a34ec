"""Where a question's inputs come from: the evidence sentences about its subject.

A value counts for a subject only from a sentence about it: one that names it, in an item whose
title names it, or failing that in any item; or, in an item titled with the subject, a sentence
that names no rival subject ("At about 6,650 kilometres it is ..." in the item "Nile"). A sentence
in which the subject is only a modifier ("sections of the Great Wall were built ...") does not
date the subject itself; `is_sentence_subject` tells the two apart.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from veracity.contracts import Evidence
from veracity.offline.judge.entities import Entity, mentions, named_entities, names_entity
from veracity.offline.judge.relevance import fold_accents
from veracity.offline.judge.words import content_stems, words
from veracity.sentences import Sentence, split_sentences

MIN_SHARED_STEMS = 2
"""Content stems a sentence must share with a subject that has no name."""

_PRONOUN_START = re.compile(r"^\W*(?:it|its|he|his|she|her|they|their|this|the\s+\w+)\b", re.IGNORECASE)
_AFTER_PREPOSITION = re.compile(
    r"\b(?:in|at|on|of|from|by|near|with|to|into|across|for|about|than|via|through|and)(?:\s+the)?\s*$",
    re.IGNORECASE,
)
_MODIFIER_BEFORE = re.compile(r"\b(?:of|for|from|with|after|than|near|about)(?:\s+the)?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Source:
    """One evidence sentence about a subject; `rank` 0 is the strongest (see the module docstring)."""

    evidence: Evidence
    sentence: Sentence
    rank: int
    order: int

    @property
    def quote(self) -> str:
        """The sentence exactly as it stands in the evidence text."""
        return self.evidence.text[self.sentence.start:self.sentence.end]


@dataclass(frozen=True)
class Subject:
    """The thing a quantity belongs to: its name (if it has one) or its content stems."""

    phrase: str
    name: Entity | None
    stems: frozenset[str]

    @classmethod
    def of(cls, phrase: str) -> Subject:
        """Read the subject phrase of a question ("The Sydney Opera House", "Water")."""
        folded = fold_accents(phrase)
        names = named_entities(folded)
        return cls(phrase=phrase.strip(), name=names[0] if names else None, stems=frozenset(content_stems(folded)))

    def named_in(self, text: str) -> bool:
        """Whether `text` names this subject (by name, or by enough of its content words).

        A name counts as named unless the text names another thing that shares part of it
        ("Lake Tarn" does not name "Lake Mere").
        """
        folded = fold_accents(text)
        if self.name is not None:
            return names_entity(self.name, folded)
        shared = self.stems & set(content_stems(folded))
        return bool(self.stems) and len(shared) >= min(MIN_SHARED_STEMS, len(self.stems))

    def is_sentence_subject(self, sentence: str, before: int) -> bool:
        """Whether this subject is what `sentence` is about up to offset `before` (where its verb is).

        True when the sentence names it there, not only as a modifier ("the height of the
        tower"), or opens with a pronoun or a definite description ("It", "The tower"); and in
        either case no other name stands in between as the verb's subject ("It was the tallest
        until the Chrysler Building was completed"). Names after a preposition ("in Florida",
        "to the United States") do not count as subjects.
        """
        head = fold_accents(sentence[:before])
        named_here = False
        for entity in named_entities(head):
            if mentions(self.name, set(words(entity.text))) if self.name is not None else False:
                named_here = named_here or not _MODIFIER_BEFORE.search(head[:entity.start])
            elif not _AFTER_PREPOSITION.search(head[:entity.start]):
                if named_here or _PRONOUN_START.match(head):
                    return False
        if self.name is None:
            return self.named_in(head)
        return named_here or bool(_PRONOUN_START.match(head))


def subject_sources(subject: Subject, evidence: Sequence[Evidence], rival: Subject | None = None) -> list[Source]:
    """The evidence sentences about `subject`, strongest first (see the module docstring)."""
    found: list[Source] = []
    order = 0
    for item in evidence:
        titled = bool(item.title) and subject.named_in(item.title)
        if rival is not None and titled and rival.named_in(item.title):
            titled = False
        for sentence in split_sentences(item.text):
            order += 1
            names_it = subject.named_in(sentence.text)
            names_rival = rival is not None and rival.named_in(sentence.text)
            if titled and names_it:
                rank = 0
            elif titled and not names_rival:
                rank = 1
            elif names_it and not (names_rival and titled):
                rank = 2
            else:
                continue
            found.append(Source(item, sentence, rank, order))
    return sorted(found, key=lambda source: (source.rank, source.order))
