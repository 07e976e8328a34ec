"""How a claim's word relates to the word in the same slot of a passage, from shipped WordNet 3.0 tables.

The tables (`assets/lexicon/wordnet.json.gz`, made by `training/build_lexicon.py` from Debian's
`wordnet-base`; rebuild with `apt-get install wordnet-base && .venv/bin/python training/build_lexicon.py`)
hold WordNet's lemmas with their synsets in sense order, direct hypernyms (instance hypernyms
included), antonyms (direct and the adjectives' indirect ones), derivationally related forms and
pertainyms, and the morphological exception lists. They are kept as loaded from JSON; nothing is
indexed further, so loading takes a few tenths of a second.

Two small rules reach past WordNet for words it lacks ("refundable", "nonrefundable"): a word
WordNet does not know that is another word with a negating prefix is its antonym, and one that is a
known lemma with a deriving suffix is derived from it.
"""

from __future__ import annotations

import functools
import gzip
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from typing import Any, Literal

from veracity.bounded_memory import BoundedMemory

Relation = Literal["same", "synonym", "hypernym", "hyponym", "antonym", "cohyponym", "derived", "none"]
"""How a claim's word relates to a passage's word (see `Lexicon.relation`)."""

SENSES = 3
"""Synonym, hypernym, co-hyponym and synset-antonym reasoning looks only at a word's first senses (the
most frequent, per part of speech), so that rare senses do not relate unrelated words ("dog" is also a
"frump" and a "cad")."""

HYPERNYM_DEPTH = 4
"""How many hypernym levels up a word may be from the other to count as its hypernym
("vehicle" is four up from "car"; "animal" two up from "dog", through "domestic animal")."""

COHYPONYM_DEPTH = 2
"""Two words are co-hyponyms when they share a hypernym within this many levels of each
("lyon" and "marseille" are both instances of "city"; "cat" and "dog" are both two below "carnivore")."""

PARTS_OF_SPEECH = ("n", "v", "a", "r")
"""WordNet's parts of speech, in the order base forms are tried: noun, verb, adjective, adverb."""

_SUBSTITUTIONS: Mapping[str, Sequence[tuple[str, str]]] = {
    "n": (
        ("s", ""),
        ("ses", "s"),
        ("ves", "f"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}  # WordNet's morphy detachment rules (morph(7WN)), as NLTK applies them

_NEGATING_PREFIXES = ("non-", "non", "un")
_DERIVING_SUFFIXES = ("able", "ible", "ation", "ion", "ment", "ness", "ity", "al", "er", "or", "ly")
_SHORTEST_STEM = 3
RELATIONS_REMEMBERED = 65_536
"""Word pairs whose relation a lexicon keeps: a claim meets the same passage words in every candidate sentence."""


def _normalise(word: str) -> str:
    return " ".join(word.replace("_", " ").lower().split())


class Lexicon:
    """WordNet lookups over the shipped tables: base forms, and how two words relate."""

    def __init__(self, tables: Mapping[str, Any]) -> None:
        """Wrap tables as `training/build_lexicon.py` writes them (the decoded JSON object)."""
        self._lemmas: Mapping[str, Mapping[str, list[int]]] = tables["lemmas"]
        self._hypernyms: Sequence[list[int]] = tables["hypernyms"]
        self._antonyms: Mapping[str, list[str]] = tables["antonyms"]
        self._derived: Mapping[str, list[str]] = tables["derived"]
        self._exceptions: Mapping[str, Mapping[str, list[str]]] = tables["exceptions"]
        self._antonym_synsets = frozenset((a, b) for a, b in tables["antonym_synsets"])
        self._relations: BoundedMemory[tuple[str, str], Relation] = BoundedMemory(RELATIONS_REMEMBERED)
        self.synset_count: int = tables["synsets"]
        """How many synsets the tables hold; synset ids run from 0 to this, exclusive."""

    def base_forms(self, word: str, pos: str | None = None) -> tuple[str, ...]:
        """WordNet lemmas the word may be an inflection of, most likely first (WordNet's morphy).

        Args:
            word: a word or multi-word expression, in any case ("Children", "new york").
            pos: a WordNet part of speech (n, v, a or s, r) to restrict to; every one when None.

        Returns:
            Lower-case lemmas: the word itself first when it is one, then the bases its exception
            lists give, then those the detachment rules make; empty when WordNet knows none.

        Raises:
            ValueError: pos is not a WordNet part of speech.
        """
        form = _normalise(word)
        if pos is not None and pos not in ("n", "v", "a", "s", "r"):
            raise ValueError(f"not a WordNet part of speech: {pos!r}")
        parts = PARTS_OF_SPEECH if pos is None else ("a" if pos == "s" else pos,)
        itself: list[str] = []
        listed: list[str] = []
        ruled: list[str] = []
        for part in parts:
            lemmas = self._lemmas[part]
            if form in lemmas:
                itself.append(form)
            exceptions = self._exceptions[part].get(form)
            if exceptions is not None:
                listed.extend(base for base in exceptions if base in lemmas)
                continue
            for old, new in _SUBSTITUTIONS[part]:
                if form.endswith(old) and len(form) > len(old) and (base := form[: -len(old)] + new) in lemmas:
                    ruled.append(base)
        return tuple(dict.fromkeys(itself + listed + ruled))

    def known(self, word: str) -> bool:
        """Whether the word, or a form it may be an inflection of, is a WordNet lemma."""
        return bool(self.base_forms(word))

    def relation(self, claim_word: str, passage_word: str) -> Relation:
        """How the claim's word relates to the passage's word (`_relation`), remembered per pair of words."""
        key = (claim_word, passage_word)
        known = self._relations.get(key)
        if known is None:
            known = self._relation(claim_word, passage_word)
            self._relations.put(key, known)
        return known

    def _relation(self, claim_word: str, passage_word: str) -> Relation:
        """How the claim's word relates to the passage's word, trying every base form of each.

        The first that holds, in this order:

        * "same": they share a base form, or a base form of one (its inflection undone twice:
          "sailings" -> "sailing" -> "sail") is the other's (or they are the same word, WordNet's or not).
        * "antonym": WordNet calls them antonyms (directly, or indirectly through an adjective's
          cluster; or a synset-level antonym pair among their first `SENSES` senses), or one is the
          other with a negating prefix ("nonrefundable").
        * "synonym": they share a synset among their first `SENSES` senses.
        * "derived": derivationally related ("arrive" and "arrival", "abort" and "abortion"), or one is a known
          lemma with a deriving suffix WordNet lacks ("refund" and "refundable"): one word in another form,
          whatever the taxonomy says of the two forms.
        * "hypernym": the claim's word is more general (one of its synsets is an ancestor within
          `HYPERNYM_DEPTH` levels of one of the passage word's): the passage entails it ("animal" for "dog").
        * "hyponym": the reverse, the claim's word is more specific ("dog" for "animal").
        * "cohyponym": they share a hypernym within `COHYPONYM_DEPTH` levels of each, neither being
          an ancestor of the other ("lyon" and "marseille", "physics" and "chemistry").
        * "none": none of these, or a word WordNet does not know.
        """
        claim_forms = self._forms(claim_word)
        passage_forms = self._forms(passage_word)
        if set(claim_forms) & set(passage_forms):
            return "same"
        claim_synsets = self._first_synsets(claim_forms)
        passage_synsets = self._first_synsets(passage_forms)
        if self._opposed(claim_forms, passage_forms, claim_synsets, passage_synsets):
            return "antonym"
        if set(claim_synsets) & set(passage_synsets):
            return "synonym"
        if self._related(claim_forms, passage_forms):
            return "derived"
        if any(c in self._ancestors(p, HYPERNYM_DEPTH) for c in claim_synsets for p in passage_synsets):
            return "hypernym"
        if any(p in self._ancestors(c, HYPERNYM_DEPTH) for c in claim_synsets for p in passage_synsets):
            return "hyponym"
        if self._cohyponyms(claim_synsets, passage_synsets):
            return "cohyponym"
        return "none"

    def _forms(self, word: str) -> tuple[str, ...]:
        """The word's base forms and theirs in turn ("sailings" -> "sailing" -> "sail"), or the word itself."""
        forms = self.base_forms(word) or (_normalise(word),)
        return tuple(dict.fromkeys([*forms, *(base for form in forms for base in self.base_forms(form))]))

    def _first_synsets(self, forms: Iterable[str]) -> tuple[int, ...]:
        synsets: dict[int, None] = {}
        for form in forms:
            for part in PARTS_OF_SPEECH:
                for synset in self._lemmas[part].get(form, ())[:SENSES]:
                    synsets[synset] = None
        return tuple(synsets)

    def _ancestors(self, synset: int, depth: int) -> dict[int, int]:
        """Hypernyms up to depth levels above the synset, each with its nearest distance."""
        found: dict[int, int] = {}
        frontier = [synset]
        for level in range(1, depth + 1):
            frontier = [h for s in frontier for h in self._hypernyms[s] if h not in found]
            if not frontier:
                break
            for hypernym in frontier:
                found.setdefault(hypernym, level)
        return found

    def _opposed(
        self, claim_forms: Sequence[str], passage_forms: Sequence[str], claim: Sequence[int], passage: Sequence[int]
    ) -> bool:
        if any(p in self._antonyms.get(c, ()) for c in claim_forms for p in passage_forms):
            return True
        if any((min(c, p), max(c, p)) in self._antonym_synsets for c in claim for p in passage):
            return True
        return any(
            self._affixed(c, p, _NEGATING_PREFIXES, prefix=True) or self._affixed(p, c, _NEGATING_PREFIXES, prefix=True)
            for c in claim_forms
            for p in passage_forms
        )

    def _cohyponyms(self, claim: Sequence[int], passage: Sequence[int]) -> bool:
        for c in claim:
            near_c = self._ancestors(c, COHYPONYM_DEPTH)
            for p in passage:
                if c == p or not near_c.keys() & self._ancestors(p, COHYPONYM_DEPTH).keys():
                    continue
                unbounded = len(self._hypernyms)
                if c not in self._ancestors(p, unbounded) and p not in self._ancestors(c, unbounded):
                    return True
        return False

    def _related(self, claim_forms: Sequence[str], passage_forms: Sequence[str]) -> bool:
        if any(p in self._derived.get(c, ()) for c in claim_forms for p in passage_forms):
            return True
        return any(
            self._affixed(c, p, _DERIVING_SUFFIXES, prefix=False)
            or self._affixed(p, c, _DERIVING_SUFFIXES, prefix=False)
            for c in claim_forms
            for p in passage_forms
        )

    def _affixed(self, longer: str, stem: str, affixes: Sequence[str], *, prefix: bool) -> bool:
        """Whether `longer`, a word WordNet lacks, is `stem` with one of the affixes (a final "e" may drop)."""
        if self.known(longer) or len(stem) < _SHORTEST_STEM:
            return False
        if prefix:
            return any(longer == affix + stem for affix in affixes)
        if not self.known(stem):
            return False
        stems = (stem, stem[:-1]) if stem.endswith("e") else (stem,)
        return any(longer == s + affix for s in stems for affix in affixes)


_lock = threading.Lock()


def default_lexicon() -> Lexicon:
    """The process-wide lexicon, loaded from the shipped tables on first use (a few tenths of a second)."""
    with _lock:
        return _load()


@functools.lru_cache(maxsize=1)
def _load() -> Lexicon:
    asset = resources.files("veracity.offline").joinpath("assets/lexicon/wordnet.json.gz")
    with asset.open("rb") as handle:
        tables = json.loads(gzip.decompress(handle.read()))
    return Lexicon(tables)
