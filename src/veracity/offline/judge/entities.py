"""Names: runs of capitalised words, and a claim's name replaced by another in the same slot of the evidence.

"Sydney is the capital of Australia" against "Canberra is the capital city of Australia" is a swap.
Deterministic, English-only heuristics.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from veracity.offline.judge.words import (
    MONTHS,
    NEGATION_CUES,
    STOPWORDS,
    WEEKDAYS,
    content_stems,
    lexical_coverage,
    stem,
    words,
)

ENTITY_REST_COVERAGE = 0.75
"""An entity swap needs the rest of the claim to be covered at least this much by the sentence."""

_ENTITY_TOKEN = re.compile(r"[^\W_]+(?:['’\-.][^\W_]+)*")
_ENTITY_JOINERS = {"of", "de", "du", "von", "van", "der", "la", "le", "da", "del", "and", "&", "the", "for"}
_SINGULAR_VERBS = {
    "is", "was", "has", "had", "will", "would", "can", "could", "became", "becomes", "remains", "lies",
    "said", "says", "won", "did", "does", "may", "might",
}
_COPULAS = {"is", "was", "are", "were", "remains", "became"}
_COPULA_WORD = re.compile(r"\b(?:is|was|are|were|remains|became)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[^,;:()\[\]]+")
_COPULA_DEFINITE = re.compile(r"\s*(?:is|was|are|were|remains|became)\s+(?:not\s+)?the\b", re.IGNORECASE)


@dataclass(frozen=True)
class Entity:
    """A run of capitalised words (a likely name) and its offsets in the text."""

    text: str
    start: int
    end: int

    @property
    def keys(self) -> tuple[str, ...]:
        """Its lower-cased words in order, as `words` splits them ("ICD-9" is icd, 9).

        Joiners such as 'of', possessives and initials ("O.") are left out.
        """
        kept = [_POSSESSIVE.sub("", word) for word in self.text.split() if not _INITIAL.fullmatch(word)]
        keys = tuple(key for key in words(" ".join(kept)) if key not in _ENTITY_JOINERS)
        return keys or tuple(words(self.text))


def named_entities(text: str) -> list[Entity]:
    """Runs of capitalised words ("Sydney", "Sydney Opera House", "Bank of England", "CO2").

    Function words ("The", "In"), months and weekdays are not names. A capitalised first word
    of a sentence counts only when another capitalised word or a singular verb ("is", "was",
    "has") follows it, so "Sydney is ..." is a name and "Rising seas ..." is not.
    """
    return list(_named_entities(text))


@functools.lru_cache(maxsize=16_384)
def _named_entities(text: str) -> tuple[Entity, ...]:
    tokens = list(_ENTITY_TOKEN.finditer(text))
    entities: list[Entity] = []
    index = 0
    while index < len(tokens):
        if not _is_name_word(text, tokens, index):
            index += 1
            continue
        first = index
        last = index
        probe = index + 1
        while probe < len(tokens):
            word = tokens[probe].group(0)
            gap = text[tokens[probe - 1].end():tokens[probe].start()]
            if gap.strip() and not _after_initial(tokens[probe - 1].group(0), gap):
                break
            if _is_capitalised(word) and word.lower() not in STOPWORDS | MONTHS | WEEKDAYS:
                last = probe
                probe += 1
            elif (word.lower() in _ENTITY_JOINERS and probe + 1 < len(tokens)
                  and _is_capitalised(tokens[probe + 1].group(0))):
                probe += 1
            elif (word.lower() in {"of", "for"} and probe + 2 < len(tokens) and tokens[probe + 1].group(0) == "the"
                  and _is_capitalised(tokens[probe + 2].group(0))):
                probe += 2  # "Annual Meeting of the Association ...", "Bank of the West"
            else:
                break
        start, end = tokens[first].start(), tokens[last].end()
        entities.append(Entity(text[start:end], start, end))
        index = last + 1
    return tuple(entities)


_POSSESSIVE = re.compile(r"['’]s?$")
_INITIAL = re.compile(r"[A-Z]\.")


def _after_initial(word: str, gap: str) -> bool:
    """Whether `gap` is the full stop of an initial inside a name ("William O. Douglas")."""
    return len(word) == 1 and word.isupper() and gap.strip() == "."


def _is_capitalised(word: str) -> bool:
    return word[:1].isupper()


def _is_name_word(text: str, tokens: list[re.Match[str]], index: int) -> bool:
    word = tokens[index].group(0)
    lowered = word.lower()
    if not _is_capitalised(word) or lowered in STOPWORDS or lowered in NEGATION_CUES:
        return False
    if lowered in MONTHS or lowered in WEEKDAYS:
        return False
    before = text[:tokens[index].start()].rstrip()
    sentence_initial = not before or before[-1] in ".!?:;\"“(\n"
    if not sentence_initial or (len(word) > 1 and word.isupper()):
        return True
    if index + 1 >= len(tokens):
        return False
    following = tokens[index + 1].group(0)
    return _is_capitalised(following) or following.lower() in _SINGULAR_VERBS


def mentions(entity: Entity, vocabulary: set[str]) -> bool:
    """Whether the vocabulary (lower-cased words) names the entity: its last word, or half of its words.

    Words match exactly or by a shared prefix of 4+ letters ("Australia"/"Australian").
    """
    def present(key: str) -> bool:
        return any(
            word == key or (min(len(word), len(key)) >= 4 and (word.startswith(key) or key.startswith(word)))
            for word in vocabulary
        )

    hits = [present(key) for key in entity.keys]
    return bool(hits) and (hits[-1] or 2 * sum(hits) >= len(hits))


def names_entity(entity: Entity, text: str) -> bool:
    """Whether `text` names `entity` (see `mentions`), and not only a namesake that shares part of it.

    "Mount Everest" shares "Mount" with "Mount Fuji" but does not name it; "Opera House" names
    "Sydney Opera House", "White Nile" names "Nile" (it holds every word of the name), and "Douglas"
    names "Justice William O. Douglas" unless another name ends in Douglas ("Kirk Douglas").
    Words compare by stem, so "Bristly Bellflower" names "Bristly Bellflowers".
    """
    if not mentions(entity, set(words(text))) or not _core_named(entity, text):
        return False
    ordered = [stem(key) for key in entity.keys]
    keys = set(ordered)
    found = [{stem(key) for key in other.keys} for other in named_entities(text)]
    if any(keys <= other for other in found):
        return True
    with_head = [other for other in found if ordered and ordered[-1] in other]
    if with_head:  # "Douglas" for "William O. Douglas"; "Denzel Washington" is not "George Washington"
        return all(other <= keys for other in with_head)
    return not any(other & keys and other - keys for other in found)


_OF_JOINERS = frozenset({"of", "for"})


def core_words(entity: Entity) -> list[str]:
    """The words of a name before its "of"/"for" part, without initials: what the name is of.

    "Great Wall of China" -> [Great, Wall]; "Bank of England" -> [Bank]; "Mount Everest" -> [Mount, Everest].
    """
    core: list[str] = []
    for word in entity.text.split():
        if word.lower() in _OF_JOINERS and core:
            break
        if not _INITIAL.fullmatch(word):
            core.append(_POSSESSIVE.sub("", word))
    return core or entity.text.split()


def _core_named(entity: Entity, text: str) -> bool:
    """Whether `text` names the core of a multi-word name, not only one of its common words.

    Every core word must occur, or else the last one written as a name (capitalised): "Everest"
    names "Mount Everest" and "Douglas" names "William O. Douglas", but "house" does not name
    "Sydney Opera House", nor does "China" name "Great Wall of China".
    """
    core = core_words(entity)
    vocabulary = set(words(text))
    keys = [key for word in core for key in words(word) if key not in _ENTITY_JOINERS]
    if len(keys) <= 1 or all(mentions(Entity(key, 0, len(key)), vocabulary) for key in keys):
        return True
    last = core[-1]
    if not last[:1].isupper():
        return False
    return re.search(rf"\b{re.escape(last[:4])}\w*", text) is not None


def _neighbours(text: str, entity: Entity) -> tuple[str | None, str | None]:
    """The nearest content stems before and after the entity, within its text."""
    before = [w for w in words(text[:entity.start]) if w not in STOPWORDS and w not in NEGATION_CUES]
    after = [w for w in words(text[entity.end:]) if w not in STOPWORDS and w not in NEGATION_CUES]
    return (stem(before[-1]) if before else None, stem(after[0]) if after else None)


def entity_coverage(claim: str, sentence: str) -> float:
    """Share of the claim's named entities that the sentence mentions (1.0 when the claim has none)."""
    entities = named_entities(claim)
    if not entities:
        return 1.0
    vocabulary = set(words(sentence))
    return sum(mentions(e, vocabulary) for e in entities) / len(entities)


@dataclass(frozen=True)
class EntitySwap:
    """A name in the claim replaced by another name in the same slot of a matching sentence."""

    claim_entity: str
    evidence_entity: str

    def describe(self) -> str:
        """E.g. "entity mismatch: claim says Sydney, evidence says Canberra"."""
        return f"entity mismatch: claim says {self.claim_entity}, evidence says {self.evidence_entity}"


def entity_swap(claim: str, sentence: str, about: str = "") -> EntitySwap | None:
    """Return a claim name that the sentence replaces with a different name in the same slot, or None.

    For a claim "X is the D" (see `definite_description`): the description names one thing,
    so a clause of the sentence stating D of another name ("Y is the D", "The D is Y")
    contradicts it, while X being the D' of something else does not.

    Otherwise the sentence must be about the claim's subject (the name the claim opens with): it
    names it, or it names nothing in its place and opens with no name of its own ("It lies in
    ..."), while `about` (its document's title), when given, names the subject. Another subject
    with the same predicate is no contradiction ("Gold is a noble metal", "Platinum is a noble
    metal"). Then three conditions: a claim name other than the subject that the sentence never
    mentions; a sentence name the claim never mentions, in the same slot (next to the same
    content word, or on the other side of "is" in an inverted copula), used as a name and not as
    a modifier ("a TV actor", "an American series"); and the rest of the claim covered by the
    sentence (`ENTITY_REST_COVERAGE`): "Einstein was born in Ulm" vs "Einstein was born in Munich".
    """
    description = definite_description(claim)
    if description is not None:
        return _description_swap(description, sentence)
    claim_entities = named_entities(claim)
    subject = claim_entities[0] if claim_entities and claim[:claim_entities[0].start].strip(
        " \"'“").lower() in ("", "the") else None
    sentence_vocabulary = set(words(sentence))
    if subject is not None and not _about_subject(subject, sentence, about):
        return None
    missing = [e for e in claim_entities if e is not subject and not mentions(e, sentence_vocabulary)]
    if not missing:
        return None
    claim_vocabulary = set(words(claim))
    extra = [e for e in named_entities(sentence) if not mentions(e, claim_vocabulary) and not _modifier(sentence, e)]
    for gone in missing:
        rest = lexical_coverage(claim, f"{about}\n{sentence}", ignore=frozenset(stem(w) for w in gone.keys))
        if rest < ENTITY_REST_COVERAGE:
            continue
        for new in extra:
            if _same_slot(claim, gone, sentence, new):
                return EntitySwap(claim_entity=gone.text, evidence_entity=new.text)
    return None


def _about_subject(subject: Entity, sentence: str, about: str) -> bool:
    """Whether the sentence speaks of `subject`: it names it, or it opens with no name and its title names it."""
    if mentions(subject, set(words(sentence))):
        return True
    opening = named_entities(sentence)
    if opening and sentence[:opening[0].start].strip(" \"'“").lower() in ("", "the"):
        return False  # it opens with another name: it is about that
    return not about.strip() or mentions(subject, set(words(about)))


_MODIFIED = re.compile(r"\s+([a-z][a-z-]+)")


def _modifier(text: str, entity: Entity) -> bool:
    """Whether the name qualifies the next word instead of naming a thing ("a TV actor", "American science")."""
    following = _MODIFIED.match(text, entity.end)
    return following is not None and following.group(1) not in STOPWORDS and following.group(1) not in NEGATION_CUES


@dataclass(frozen=True)
class DefiniteDescription:
    """A claim of the form "X is the D": its subject name X and the content stems of D."""

    subject: Entity
    description: tuple[str, ...]


def definite_description(claim: str) -> DefiniteDescription | None:
    """Read "Sydney is the capital of Australia" as subject "Sydney", description (capital, australia).

    Only claims that open with a name (optionally after "The") followed by "is/was/... the".
    """
    entities = named_entities(claim)
    if not entities:
        return None
    subject = entities[0]
    if claim[:subject.start].strip(" \"'“").lower() not in ("", "the"):
        return None
    copula = _COPULA_DEFINITE.match(claim, subject.end)
    if copula is None:
        return None
    stems = tuple(dict.fromkeys(content_stems(claim[copula.end():])))
    return DefiniteDescription(subject, stems) if stems else None


def states_phrase(stems: tuple[str, ...], text: str) -> bool:
    """Whether all `stems` occur in `text` close together: within len(stems) + 1 content words.

    "the capital city of Australia" states (capital, australia); "the capital of Victoria and the
    largest city in Australia" does not.
    """
    sequence = content_stems(text)
    wanted = set(stems)
    if not wanted <= set(sequence):
        return False
    for start, first in enumerate(sequence):
        if first not in wanted:
            continue
        seen: set[str] = set()
        for end in range(start, min(len(sequence), start + len(wanted) + 1)):
            seen.add(sequence[end])
            if wanted <= seen:
                return True
    return False


MAX_DESCRIPTION_WORDS = 4
"""`description_match` only judges descriptions of at most this many content words."""


def description_match(claim: str, passage: str) -> bool | None:
    """For a claim "X is the D" with a short D: whether the passage names X and states D as a phrase.

    None when the claim has no such form (or D is longer than `MAX_DESCRIPTION_WORDS`). A
    passage with every word but not the phrase ("Sydney is the capital of New South Wales and
    the largest city in Australia" for "Sydney is the capital of Australia") gives False.
    """
    description = definite_description(claim)
    if description is None or len(description.description) > MAX_DESCRIPTION_WORDS:
        return None
    return mentions(description.subject, set(words(passage))) and states_phrase(description.description, passage)


def _description_swap(description: DefiniteDescription, sentence: str) -> EntitySwap | None:
    """A clause "Y is the D" or "The D is Y" with a name Y other than the claim's subject."""
    entities = named_entities(sentence)
    for clause in _CLAUSE.finditer(sentence):
        for copula in _COPULA_WORD.finditer(sentence, clause.start(), clause.end()):
            left, right = (clause.start(), copula.start()), (copula.end(), clause.end())
            for described, named, pick in ((right, left, -1), (left, right, 0)):
                if not states_phrase(description.description, sentence[described[0]:described[1]]):
                    continue
                names = [e for e in entities if named[0] <= e.start and e.end <= named[1]]
                if not names:
                    continue
                name = names[pick]
                same = mentions(description.subject, set(words(name.text))) or mentions(
                    name, set(words(description.subject.text))
                )
                if not same:
                    return EntitySwap(claim_entity=description.subject.text, evidence_entity=name.text)
    return None


def _same_slot(claim: str, gone: Entity, sentence: str, new: Entity) -> bool:
    """Whether two names fill the same slot.

    That is: the same content word next to them, or the two sides of a copula ("Sydney is the
    capital ..." vs "The capital ... is Canberra").
    """
    gone_before, gone_after = _neighbours(claim, gone)
    new_before, new_after = _neighbours(sentence, new)
    if (gone_before is not None and gone_before == new_before) or (
        gone_after is not None and gone_after == new_after
    ):
        return True
    claim_next, claim_previous = words(claim[gone.end:])[:1], words(claim[:gone.start])[-1:]
    sentence_next, sentence_previous = words(sentence[new.end:])[:1], words(sentence[:new.start])[-1:]
    return bool(
        (claim_next and claim_next[0] in _COPULAS and sentence_previous and sentence_previous[0] in _COPULAS)
        or (claim_previous and claim_previous[0] in _COPULAS and sentence_next and sentence_next[0] in _COPULAS)
    )
