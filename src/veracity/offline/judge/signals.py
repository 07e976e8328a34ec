"""Lexical signals that compare a claim with one evidence sentence.

Embedding similarity says whether two sentences are about the same thing, not whether they
agree: "Sydney is the capital of Australia" and "Canberra is the capital city of Australia"
have a cosine of about 0.82. The small pure functions here look for the disagreements a
cosine cannot see (a different number, a flipped negation, another name in the same slot)
and measure how much of the claim's wording the sentence contains. The offline judge's
decider combines them; a learned entailment model can use them as features later.

All functions are deterministic, English-only heuristics with no model behind them.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import Literal

_FUNCTION_WORDS = """
    a an the this that these those there here it its it's they them their theirs he him his she her hers
    we us our ours you your yours i me my mine one ones who whom whose which what when where why how
    is am are was were be been being do does did done doing have has had having will would shall should
    can could may might must ca wo sha
    and or but if then than so as of at by for from in into on onto to with within upon about over under
    after before during since until till while via per through throughout across against among between
    also just only very too more most much many some any each every all both either other such own same
    s t d ll m re ve yet even still ever really quite already
"""
STOPWORDS: frozenset[str] = frozenset(_FUNCTION_WORDS.split())
"""Function words left out of coverage and role matching (negation words are handled on their own)."""

NEGATION_CUES: frozenset[str] = frozenset(
    {"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "nowhere", "cannot"}
)
"""Words that negate what follows them ("n't" is read as "not")."""

_NOT_NEGATING = {("not", "only"), ("not", "just"), ("not", "merely"), ("no", "doubt"), ("nothing", "but")}
NEGATION_SCOPE = 1
"""A negation covers this many following content words (adverbs in -ly ride along for free), and
stops at punctuation or 'but': "are not accepted" negates "accepted", "never generate as much
energy" negates "generate" only."""

_MONTHS = {
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
}
_WEEKDAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+(?:[.,]\d+)*")
_TOKEN_OR_STOP = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+(?:[.,]\d+)*|[.,;:!?()\[\]]")
_CLITIC = re.compile(r"['’](?:s|ll|re|ve|d|m)$")


# --------------------------------------------------------------------------- words


@functools.lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """Reduce a word to a rough stem: lower case, no plural/-ed/-ing/-ly, no final 'e'.

    Light and symmetric rather than linguistically right: "opened"/"opens" -> "open",
    "houses"/"house" -> "hous", "countries" -> "country", "stopped" -> "stop". Numbers are
    returned with thousands separators removed ("2,000" -> "2000").
    """
    word = word.lower().replace("’", "'")
    if word[:1].isdigit():
        return word.replace(",", "")
    word = _CLITIC.sub("", word)
    stripped = False
    for suffix, replacement in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("ly", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) + len(replacement) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                continue
            word = word[: len(word) - len(suffix)] + replacement
            stripped = True
            break
    if stripped and len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def words(text: str) -> list[str]:
    """Lower-cased word and number tokens; "isn't" becomes "is", "not" and clitics are dropped."""
    return list(_words(text))


@functools.lru_cache(maxsize=16_384)
def _words(text: str) -> tuple[str, ...]:
    return tuple(part for token in _WORD.findall(text) for part in _split_token(token))


def content_stems(text: str) -> list[str]:
    """Stems of the content words of `text` (no function words, no negation words), in order."""
    return list(_content_stems(text))


@functools.lru_cache(maxsize=16_384)
def _content_stems(text: str) -> tuple[str, ...]:
    return tuple(stem(w) for w in words(text) if w not in STOPWORDS and w not in NEGATION_CUES)


def lexical_coverage(claim: str, sentence: str, *, ignore: frozenset[str] = frozenset()) -> float:
    """Share of the claim's distinct content stems that also occur in `sentence` (0.0 when none).

    `ignore` lists stems to leave out of the claim side (e.g. a swapped name or a number).
    """
    wanted = set(content_stems(claim)) - ignore
    if not wanted:
        return 0.0
    return len(wanted & set(content_stems(sentence))) / len(wanted)


@functools.lru_cache(maxsize=65_536)
def _split_token(token: str) -> tuple[str, ...]:
    lowered = token.lower().replace("’", "'")
    if lowered.endswith("n't"):
        head = lowered[:-3]
        return (head, "not") if head else ("not",)
    if lowered == "cannot":
        return ("can", "not")
    return (_CLITIC.sub("", lowered),)


# --------------------------------------------------------------------------- numbers

Qualifier = Literal["=", ">=", "<=", "~"]
"""How a number is hedged: exact, "over"/"at least", "under"/"up to", or "about"."""

# Longer phrases first, so "no more than" is not read as "more than".
_QUALIFIERS: tuple[tuple[str, Qualifier], ...] = (
    ("no more than", "<="), ("no less than", ">="),
    ("more than", ">="), ("greater than", ">="), ("at least", ">="), ("upwards of", ">="), ("in excess of", ">="),
    ("over", ">="), ("above", ">="), ("exceeding", ">="), ("exceeds", ">="),
    ("less than", "<="), ("fewer than", "<="), ("at most", "<="), ("up to", "<="), ("under", "<="), ("below", "<="),
    ("about", "~"), ("around", "~"), ("approximately", "~"), ("roughly", "~"), ("nearly", "~"), ("almost", "~"),
    ("an estimated", "~"), ("estimated", "~"), ("some", "~"), ("circa", "~"), ("c.", "~"), ("~", "~"),
)
_QUALIFIER_WORDS = {word for phrase, _ in _QUALIFIERS for word in phrase.split()}
_SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9}
_YEAR_PREPOSITIONS = {"in", "since", "by", "from", "until", "till", "before", "after", "during", "of", "circa", "year"}
_NUMBER = re.compile(r"(?<![\w.])(?<![^\W\d_]-)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w]|\.\d|,\d)")
_RANGE_JOINER = re.compile(r"\s*(?:[-–—]|to)\s*")
_NEXT = re.compile(r"\s*(%|per\s?cent\b|°\s?[CF]\b|[^\W\d_]+)")

APPROXIMATE_TOLERANCE = 0.10
"""Relative difference within which "about X" and "Y" are taken to agree."""

NUMBER_CONTEXT_COVERAGE = 0.6
"""For numbers whose role is weak (calendar years, numbers with no unit), the rest of the claim
must be covered at least this much by the sentence before a different number counts as a mismatch."""


@dataclass(frozen=True)
class Quantity:
    """A number found in text, with its qualifier and role.

    `role` is what the number counts or measures: the stemmed unit word after it ("room",
    "day", "percent"), "calendar-year" for years, "day-of-month" next to a month name, or else
    the nearest content word before it. `strong` says whether the role came from a unit.
    `text` is the phrase as written, qualifier and unit included ("over 2,000 rooms"). `upper` is
    the end of a range ("16-21 cm"), else None.
    """

    value: float
    text: str
    qualifier: Qualifier
    role: str | None
    strong: bool
    upper: float | None = None


def extract_quantities(text: str) -> list[Quantity]:
    """Find the numbers in `text` ("2,000", "14", "0.8", "1973", "1.5 million", "40%", "16-21 cm").

    A range ("16–21 cm", "1990 to 2000") is one quantity from `value` to `upper`. Numbers glued
    to letters ("CO2", "COVID-19") are not quantities.
    """
    matches = list(_NUMBER.finditer(text))
    quantities: list[Quantity] = []
    index = 0
    while index < len(matches):
        match = matches[index]
        value, scale, end = _number_value(text, match)
        upper: float | None = None
        last = match
        if index + 1 < len(matches) and _RANGE_JOINER.fullmatch(text, match.end(), matches[index + 1].start()):
            last = matches[index + 1]
            upper, upper_scale, end = _number_value(text, last)
            value *= upper_scale if scale == 1 else 1  # "1.5 to 2 million"
            index += 1
        following = _NEXT.match(text, end)
        unit = following.group(1) if following else ""
        before = [w for w in words(text[max(0, match.start() - 60):match.start()]) if not w[0].isdigit()]
        role, strong = _role(last, unit, before)
        if strong and role != "day-of-month" and following is not None:
            end = following.end()
        start, qualifier = _qualifier(text, match.start())
        quantities.append(
            Quantity(
                value=value, text=text[start:end].strip(), qualifier=qualifier, role=role, strong=strong, upper=upper
            )
        )
        index += 1
    return quantities


def _number_value(text: str, match: re.Match[str]) -> tuple[float, float, int]:
    """The number's value with a following "million" etc. applied, that scale, and where it ends."""
    value = float(match.group(1).replace(",", "") + (match.group(2) or ""))
    word = _NEXT.match(text, match.end())
    if word and word.group(1).lower() in _SCALES:
        scale = _SCALES[word.group(1).lower()]
        return value * scale, scale, word.end()
    return value, 1.0, match.end()


def _role(match: re.Match[str], unit: str, before: list[str]) -> tuple[str | None, bool]:
    lowered = unit.lower().replace(" ", "")
    previous = before[-1] if before else ""
    if lowered == "%" or lowered.startswith("percent"):
        return "percent", True
    if lowered.startswith("°"):
        return f"degree-{lowered[-1]}", True
    is_integer = match.group(2) is None and "," not in match.group(1)
    number = int(match.group(1).replace(",", ""))
    if is_integer and number <= 31 and (lowered in _MONTHS or previous in _MONTHS):
        return "day-of-month", True
    unit_is_word = unit[:1].islower() and lowered not in STOPWORDS and lowered not in NEGATION_CUES
    year_like = is_integer and len(match.group(1)) == 4 and 1000 <= number <= 2100
    if year_like and (previous in _YEAR_PREPOSITIONS or previous in _MONTHS or not unit_is_word):
        return "calendar-year", False
    if unit_is_word and lowered not in _MONTHS:
        return stem(unit), True
    for word in reversed(before):
        if word not in STOPWORDS and word not in NEGATION_CUES and word not in _QUALIFIER_WORDS:
            return stem(word), False
    return None, False


def _qualifier(text: str, start: int) -> tuple[int, Qualifier]:
    """Where the qualifier before a number ("over", "about", ...) starts, and its kind."""
    head = text[max(0, start - 30):start].rstrip().lower()
    offset = max(0, start - 30)
    for phrase, qualifier in _QUALIFIERS:
        if head.endswith(phrase) and (len(head) == len(phrase) or not head[-len(phrase) - 1].isalnum()):
            return offset + len(head) - len(phrase), qualifier
    return start, "="


def quantities_agree(claim: Quantity, evidence: Quantity) -> bool:
    """Whether the evidence's number is consistent with the claim's, given qualifiers and ranges.

    Each side is read as an interval: "14" is [14, 14], "16-21" is [16, 21], "over 2,000" is
    [2000, inf), "under 5" is (-inf, 5]; "about" on either side widens both intervals by
    `APPROXIMATE_TOLERANCE`. They agree when the intervals overlap.
    """
    approximate = "~" in (claim.qualifier, evidence.qualifier)
    low_c, high_c = _interval(claim, approximate)
    low_e, high_e = _interval(evidence, approximate)
    return max(low_c, low_e) <= min(high_c, high_e) + 1e-9 * max(1.0, abs(claim.value))


def _interval(quantity: Quantity, approximate: bool) -> tuple[float, float]:
    low = quantity.value
    high = quantity.upper if quantity.upper is not None else quantity.value
    if approximate:
        low, high = low - APPROXIMATE_TOLERANCE * abs(low), high + APPROXIMATE_TOLERANCE * abs(high)
    if quantity.qualifier == ">=":
        high = math.inf
    elif quantity.qualifier == "<=":
        low = -math.inf
    return low, high


@dataclass(frozen=True)
class NumberMismatch:
    """A claim number contradicted by a different number in the same role in the sentence."""

    claim: Quantity
    evidence: Quantity

    def describe(self) -> str:
        """E.g. "number mismatch: claim says over 2,000 rooms, evidence says about 1,000 rooms"."""
        return f"number mismatch: claim says {self.claim.text}, evidence says {self.evidence.text}"


def number_mismatch(claim: str, sentence: str) -> NumberMismatch | None:
    """Return the first claim number that the sentence contradicts, or None.

    A claim number is fine when the sentence holds an agreeing number (any role). It is
    contradicted when the sentence has no agreeing number but does have a number in the same
    role (same unit word, both calendar years, ...). For weak roles (calendar years, numbers
    without a unit) the rest of the claim must also be covered by the sentence
    (`NUMBER_CONTEXT_COVERAGE`), so "opened in 1973" is not contradicted by "construction
    began in 1959". A claim number with no counterpart at all gives no signal.
    """
    claim_quantities = extract_quantities(claim)
    if not claim_quantities:
        return None
    found = extract_quantities(sentence)
    context_coverage: float | None = None
    for wanted in claim_quantities:
        if any(quantities_agree(wanted, q) for q in found):
            continue
        rivals = [q for q in found if wanted.role is not None and q.role == wanted.role]
        if not rivals:
            continue
        if not (wanted.strong and rivals[0].strong):
            if context_coverage is None:
                numbers = frozenset(stem(w) for w in words(claim) if w[0].isdigit())
                context_coverage = lexical_coverage(claim, sentence, ignore=numbers)
            if context_coverage < NUMBER_CONTEXT_COVERAGE:
                continue
        return NumberMismatch(claim=wanted, evidence=rivals[0])
    return None


# --------------------------------------------------------------------------- negation


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
        tokens.extend(_split_token(token) if token[0].isalnum() else [token])
    remaining = 0
    for index, token in enumerate(tokens):
        if not token[0].isalnum() or token == "but":
            remaining = 0
            continue
        if token in NEGATION_CUES:
            following = tokens[index + 1] if index + 1 < len(tokens) else ""
            remaining = 0 if (token, following) in _NOT_NEGATING else NEGATION_SCOPE
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


def negation_mismatch(claim: str, sentence: str) -> NegationMismatch | None:
    """Return a word negated in one text and affirmed (never negated) in the other, or None.

    "returns are accepted" vs "returns are not accepted" -> mismatch on "accepted". A
    negation about words the other text does not mention gives no signal.
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


# --------------------------------------------------------------------------- entities

ENTITY_REST_COVERAGE = 0.75
"""An entity swap needs the rest of the claim to be covered at least this much by the sentence."""

_ENTITY_TOKEN = re.compile(r"[^\W_]+(?:['’\-.][^\W_]+)*")
_ENTITY_JOINERS = {"of", "de", "du", "von", "van", "der", "la", "le", "da", "del", "and", "&"}
_SINGULAR_VERBS = {
    "is", "was", "has", "had", "will", "would", "can", "could", "became", "becomes", "remains", "lies",
    "said", "says", "won", "did", "does", "may", "might",
}
_COPULAS = {"is", "was", "are", "were", "remains", "became"}
_COPULA_WORD = re.compile(r"\b(?:is|was|are|were|remains|became)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[^,;:()\[\]]+")
_COPULA_DEFINITE = re.compile(r"\s*(?:is|was|are|were|remains|became)\s+the\b", re.IGNORECASE)


@dataclass(frozen=True)
class Entity:
    """A run of capitalised words (a likely name) and its offsets in the text."""

    text: str
    start: int
    end: int

    @property
    def keys(self) -> tuple[str, ...]:
        """Its lower-cased words in order, without joiners such as 'of'."""
        return tuple(w.lower() for w in self.text.split() if w.lower() not in _ENTITY_JOINERS)


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
            if gap.strip():
                break
            if _is_capitalised(word) and word.lower() not in STOPWORDS | _MONTHS | _WEEKDAYS:
                last = probe
                probe += 1
            elif word.lower() in _ENTITY_JOINERS and probe + 1 < len(tokens) and _is_capitalised(tokens[probe + 1].group(0)):
                probe += 1
            else:
                break
        entities.append(Entity(text[tokens[first].start():tokens[last].end()], tokens[first].start(), tokens[last].end()))
        index = last + 1
    return tuple(entities)


def _is_capitalised(word: str) -> bool:
    return word[:1].isupper()


def _is_name_word(text: str, tokens: list[re.Match[str]], index: int) -> bool:
    word = tokens[index].group(0)
    lowered = word.lower()
    if not _is_capitalised(word) or lowered in STOPWORDS or lowered in NEGATION_CUES:
        return False
    if lowered in _MONTHS or lowered in _WEEKDAYS:
        return False
    before = text[:tokens[index].start()].rstrip()
    sentence_initial = not before or before[-1] in ".!?:;\"“(\n"
    if not sentence_initial or (len(word) > 1 and word.isupper()):
        return True
    if index + 1 >= len(tokens):
        return False
    following = tokens[index + 1].group(0)
    return _is_capitalised(following) or following.lower() in _SINGULAR_VERBS


def _mentions(entity: Entity, vocabulary: set[str]) -> bool:
    """Whether the vocabulary names the entity: its last word, or at least half of its words.

    Words match exactly or by a shared prefix of 4+ letters ("Australia"/"Australian").
    """
    def present(key: str) -> bool:
        return any(
            word == key or (min(len(word), len(key)) >= 4 and (word.startswith(key) or key.startswith(word)))
            for word in vocabulary
        )

    hits = [present(key) for key in entity.keys]
    return bool(hits) and (hits[-1] or 2 * sum(hits) >= len(hits))


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
    return sum(_mentions(e, vocabulary) for e in entities) / len(entities)


@dataclass(frozen=True)
class EntitySwap:
    """A name in the claim replaced by another name in the same slot of a matching sentence."""

    claim_entity: str
    evidence_entity: str

    def describe(self) -> str:
        """E.g. "entity mismatch: claim says Sydney, evidence says Canberra"."""
        return f"entity mismatch: claim says {self.claim_entity}, evidence says {self.evidence_entity}"


def entity_swap(claim: str, sentence: str) -> EntitySwap | None:
    """Return a claim name that the sentence replaces with a different name in the same slot, or None.

    For a claim "X is the D" (see `definite_description`): the description names one thing,
    so a clause of the sentence stating D of another name ("Y is the D", "The D is Y")
    contradicts it, while X being the D' of something else does not.

    Otherwise three conditions: a claim name the sentence never mentions; a sentence name the
    claim never mentions, in the same slot (next to the same content word, or on the other side
    of "is" in an inverted copula); and the rest of the claim covered by the sentence
    (`ENTITY_REST_COVERAGE`): "Einstein was born in Ulm" vs "Einstein was born in Munich".
    """
    description = definite_description(claim)
    if description is not None:
        return _description_swap(description, sentence)
    claim_entities = named_entities(claim)
    sentence_vocabulary = set(words(sentence))
    missing = [e for e in claim_entities if not _mentions(e, sentence_vocabulary)]
    if not missing:
        return None
    claim_vocabulary = set(words(claim))
    extra = [e for e in named_entities(sentence) if not _mentions(e, claim_vocabulary)]
    for gone in missing:
        rest = lexical_coverage(claim, sentence, ignore=frozenset(stem(w) for w in gone.keys))
        if rest < ENTITY_REST_COVERAGE:
            continue
        for new in extra:
            if _same_slot(claim, gone, sentence, new):
                return EntitySwap(claim_entity=gone.text, evidence_entity=new.text)
    return None


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
    return _mentions(description.subject, set(words(passage))) and states_phrase(description.description, passage)


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
                same = _mentions(description.subject, set(words(name.text))) or _mentions(
                    name, set(words(description.subject.text))
                )
                if not same:
                    return EntitySwap(claim_entity=description.subject.text, evidence_entity=name.text)
    return None


def _same_slot(claim: str, gone: Entity, sentence: str, new: Entity) -> bool:
    """Whether two names fill the same slot: same content word next to them, or the two sides of
    a copula ("Sydney is the capital ..." vs "The capital ... is Canberra")."""
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


# --------------------------------------------------------------------------- all together


@dataclass(frozen=True)
class Signals:
    """Every signal for one (claim, evidence passage) pair."""

    coverage: float
    entity_coverage: float
    number: NumberMismatch | None = None
    negation: NegationMismatch | None = None
    entity: EntitySwap | None = None
    description: bool | None = None
    """`description_match`: False when the claim is "X is the D" and the passage does not state it."""

    @property
    def contradiction(self) -> NumberMismatch | NegationMismatch | EntitySwap | None:
        """The contradiction signal that fired, if any (numbers first, then names, then negation).

        A negation mismatch together with an entity swap cancel out ("Sydney is not the capital"
        vs "Canberra is the capital"), so neither is reported.
        """
        if self.number is not None:
            return self.number
        if self.entity is not None and self.negation is not None:
            return None
        return self.entity or self.negation

    def as_features(self) -> dict[str, float]:
        """The signals as numbers, e.g. for a learned decider (1.0 = the signal fired)."""
        return {
            "coverage": self.coverage,
            "entity_coverage": self.entity_coverage,
            "number_mismatch": float(self.number is not None),
            "negation_mismatch": float(self.negation is not None),
            "entity_swap": float(self.entity is not None),
            "description_mismatch": float(self.description is False),
        }


def compute_signals(claim: str, passage: str) -> Signals:
    """Compute every signal for `claim` against one evidence sentence or window."""
    return Signals(
        coverage=lexical_coverage(claim, passage),
        entity_coverage=entity_coverage(claim, passage),
        number=number_mismatch(claim, passage),
        negation=negation_mismatch(claim, passage),
        entity=entity_swap(claim, passage),
        description=description_match(claim, passage),
    )
