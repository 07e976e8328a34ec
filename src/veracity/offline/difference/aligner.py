"""Align a claim with one evidence passage and list every difference.

1. **Match.** Every content token of the claim (word, name, number) is scored against every content
   token of the passage: the same base form, a synonym, a more general word, a derived form (the
   shipped WordNet tables, `lexicon`), an equal number, a name sharing its words, or a close
   paraphrase of a word (cosine of the static word vectors; never for names or numbers, whose vectors
   say only what kind of thing they are). Pairs are taken best first, one to one, with a bonus when
   their neighbours match too.
2. **Slots.** The matches that keep their order on both sides (the longest increasing run) are the
   anchors. Between two anchors, the claim's unmatched tokens and the passage's unmatched tokens fill
   the same slot: paired up, they are substitutions; claim tokens with no partner are additions. A
   name or number matched in another part of the passage while the slot beside its anchor holds
   another one of its kind is a substitution too ("Buzz Aldrin remained in orbit" where the passage
   says "... Buzz Aldrin landed ..., while Michael Collins stayed in orbit").
3. **Swaps.** Two matches in crossed order whose neighbours changed places ("from Canberra to
   Melbourne" against "from Melbourne to Canberra"), or one of which took the other's role-giving
   preposition ("from Canberra to Melbourne" against "in Melbourne ... moved to Canberra").
4. **Polarity and modality.** A negation whose scope is matched, counted on each side; an odd
   difference is a polarity difference. Modals of disjoint kinds ("must" against "may") differ in
   modality.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from veracity.offline.difference.alignment import Alignment, Difference, Match, Span, SpanKind
from veracity.offline.difference.lexicon import Lexicon, default_lexicon
from veracity.offline.difference.quantities import same_amount
from veracity.offline.difference.tokens import Token, modality_of, tokenize
from veracity.offline.judge.entities import Entity

WordSimilarity = Callable[[Sequence[str], Sequence[str]], list[list[float]]]
"""Cosine similarity of every claim word with every passage word (rows: claim words)."""

MATCH = 0.6
"""The score a pair of tokens needs to be matched."""
PAIR_COSINE = 0.3
"""Two words with no lexical relation fill one slot only when their static vectors are at least this close."""
PARAPHRASE = 0.72
"""Static-vector cosine at or above which two words with no lexical relation count as a paraphrase."""
NEIGHBOUR_BONUS = 0.15
"""Added to a pair's score per neighbour that matches too (ties broken by context)."""
NEGATION_SCOPE = 3
"""A negation covers the next content token within this many tokens."""

_SCORES = {"same": 1.0, "equal": 1.0, "synonym": 0.9, "derived": 0.85, "hypernym": 0.85, "hyponym": 0.6}


@dataclass(frozen=True)
class _Score:
    """How well a claim token matches a passage token: the match score, the relation, the word-vector cosine."""

    score: float
    relation: str
    cosine: float


@dataclass(frozen=True)
class _Pair:
    claim: int
    passage: int
    score: float
    relation: str


class Aligner:
    """Aligns a claim with a passage (see the module docstring)."""

    def __init__(self, *, lexicon: Lexicon | None = None, similarity: WordSimilarity | None = None) -> None:
        """`lexicon` defaults to the shipped WordNet tables; `similarity` to the static word vectors."""
        self._lexicon = lexicon
        self._similarity = similarity

    @property
    def lexicon(self) -> Lexicon:
        """The lexical tables in use."""
        if self._lexicon is None:
            self._lexicon = default_lexicon()
        return self._lexicon

    def similarity(self, claim_words: Sequence[str], passage_words: Sequence[str]) -> list[list[float]]:
        """Cosines of claim words against passage words (static vectors unless another was given)."""
        if self._similarity is None:
            self._similarity = static_word_similarity
        return self._similarity(claim_words, passage_words)

    def align(self, claim: str, passage: str, context: str = "") -> Alignment:
        """The alignment of `claim` with `passage` (see the module docstring).

        `context` is the text the passage comes from: a claim amount it states elsewhere is not taken for
        a changed amount (the claim may rest on that other sentence).
        """
        claim_tokens, passage_tokens = tokenize(claim), tokenize(passage)
        c_content = [i for i, t in enumerate(claim_tokens) if t.is_content]
        p_content = [j for j, t in enumerate(passage_tokens) if t.is_content]
        scores = self._scores([claim_tokens[i] for i in c_content], [passage_tokens[j] for j in p_content])
        pairs = _match(scores, len(c_content), len(p_content))
        backbone = _increasing(pairs)
        matched_c = {p.claim: p for p in pairs}
        matched_p = {p.passage: p for p in pairs}
        differences: list[Difference] = []
        differences += self._slots(claim_tokens, passage_tokens, c_content, p_content, backbone, matched_c,
                                   matched_p, scores)
        differences = _pair_leftover_numbers(differences, passage_tokens, p_content, matched_p)
        differences += _displaced(claim_tokens, passage_tokens, c_content, p_content, matched_c, matched_p)
        differences += _swaps(claim_tokens, passage_tokens, c_content, p_content, pairs)
        differences += _polarity(claim_tokens, passage_tokens, c_content, p_content, matched_c, matched_p)
        differences += _modality(claim_tokens, passage_tokens)
        if context:
            differences = _stated_elsewhere(differences, context)
        matches = tuple(
            Match(_span(claim_tokens[c_content[p.claim]]), _span(passage_tokens[p_content[p.passage]]), p.relation)
            for p in sorted(pairs, key=lambda p: p.claim))
        coverage = sum(p.score for p in pairs) / len(c_content) if c_content else 0.0
        return Alignment(claim, passage, matches, tuple(differences), min(coverage, 1.0),
                         _filled(claim_tokens, c_content, matched_c, differences))

    # ------------------------------------------------------------------ scoring

    def _scores(self, claim: list[Token], passage: list[Token]) -> list[list[_Score]]:
        """(score, relation) of every claim content token against every passage content token."""
        cosines = self.similarity([t.lower for t in claim], [t.lower for t in passage]) if claim and passage else []
        table: list[list[_Score]] = []
        for i, c in enumerate(claim):
            row = []
            for j, p in enumerate(passage):
                relation = self.relation(c, p)
                score = _SCORES.get(relation, 0.0)
                if relation == "none" and cosines[i][j] >= PARAPHRASE and c.kind == p.kind == "word":
                    relation, score = "paraphrase", cosines[i][j]
                row.append(_Score(score, relation, cosines[i][j]))
            table.append(row)
        return table

    def relation(self, claim: Token, passage: Token) -> str:
        """How the claim's token relates to the passage's (`Relation`, "equal" or "number" for numbers)."""
        if claim.kind == "number" or passage.kind == "number":
            same = same_amount(claim, passage) if claim.kind == passage.kind else None
            return "none" if same is None else "equal" if same else "number"
        if "name" in (claim.kind, passage.kind) and _same_name(claim.text, passage.text):
            return "same"
        return self.lexicon.relation(claim.lower, passage.lower)

    # ------------------------------------------------------------------ slots

    def _slots(self, claim_tokens: tuple[Token, ...], passage_tokens: tuple[Token, ...], c_content: list[int],
               p_content: list[int], backbone: list[_Pair], matched_c: dict[int, _Pair],
               matched_p: dict[int, _Pair], scores: list[list[_Score]]) -> list[Difference]:
        """Substitutions and additions between consecutive anchors."""
        found: list[Difference] = []
        used_c: set[int] = set()
        used_p: set[int] = set()
        for pair in sorted(matched_c.values(), key=lambda p: p.claim):  # tokens beside a match share its slot
            for step in (1, -1):
                i, j = pair.claim + step, pair.passage + step
                if i in matched_c or j in matched_p or i in used_c or j in used_p \
                        or not (0 <= i < len(c_content) and 0 <= j < len(p_content)):
                    continue
                token, other = claim_tokens[c_content[i]], passage_tokens[p_content[j]]
                if _compatible(token, other, scores[i][j]):
                    used_c.add(i)
                    used_p.add(j)
                    found.append(Difference("substitution", _span(token), _span(other), scores[i][j].relation,
                                            _kind(token), anchored=1.0, beside_match=True))
        bounds = [(-1, -1), *((p.claim, p.passage) for p in backbone), (len(c_content), len(p_content))]
        for (c0, p0), (c1, p1) in zip(bounds, bounds[1:], strict=False):
            anchored = ((c0 >= 0) + (c1 < len(c_content))) / 2
            claim_gap = [i for i in range(c0 + 1, c1) if i not in matched_c and i not in used_c]
            passage_gap = [j for j in range(p0 + 1, p1) if j not in matched_p and j not in used_p]
            for i in claim_gap:
                token = claim_tokens[c_content[i]]
                partner = _partner(token, [j for j in passage_gap if j not in used_p],
                                   [passage_tokens[p_content[j]] for j in passage_gap if j not in used_p], i, scores)
                if partner is None:
                    found.append(Difference("addition", _span(token), None, "none", _kind(token), anchored=anchored))
                    continue
                used_p.add(partner)
                other = passage_tokens[p_content[partner]]
                found.append(Difference("substitution", _span(token), _span(other), scores[i][partner].relation,
                                        _kind(token), anchored=anchored))
        return found


def _pair_leftover_numbers(differences: list[Difference], passage_tokens: tuple[Token, ...], p_content: list[int],
                           matched_p: dict[int, _Pair]) -> list[Difference]:
    """Claim amounts left as additions paired with an unpaired passage amount of the same unit, wherever it stands.

    "in seven weeks" against "... the crossing took 48 days": an amount whose slot the anchors do not fix
    is still in the slot of the passage's amount of the same kind.
    """
    paired = {(d.passage.start, d.passage.end) for d in differences if d.passage is not None}
    free = [passage_tokens[j] for j in p_content if j not in matched_p and passage_tokens[j].kind == "number"
            and (passage_tokens[j].start, passage_tokens[j].end) not in paired]
    out = []
    for difference in differences:
        claim = difference.claim
        if difference.kind == "addition" and difference.span_kind == "number" and claim is not None:
            token = next((t for t in tokenize(claim.text) if t.kind == "number"), None)
            other = next((t for t in free if token is not None and t.unit == token.unit), None)
            if other is not None:
                free.remove(other)
                out.append(Difference("substitution", claim, _span(other), "number", "number", anchored=0.0))
                continue
        out.append(difference)
    return out


def _filled(claim_tokens: tuple[Token, ...], c_content: list[int], matched_c: dict[int, _Pair],
            differences: list[Difference]) -> float:
    """The share of the claim's content tokens matched or inside the claim span of a substitution or swap."""
    if not c_content:
        return 0.0
    slots = [(d.claim.start, d.claim.end) for d in differences if d.kind in ("substitution", "swap") and d.claim]
    filled = sum(1 for position, index in enumerate(c_content) if position in matched_c
                 or any(start <= claim_tokens[index].start < end for start, end in slots))
    return filled / len(c_content)


def _stated_elsewhere(differences: list[Difference], context: str) -> list[Difference]:
    """The differences less those of a claim amount that the context states (an equal amount, anywhere).

    A displaced amount stays: the passage states it, but in another slot ("up to four books" against
    "up to 12 books and 4 DVDs").
    """
    amounts = [t for t in tokenize(context) if t.kind == "number"]
    kept = []
    for difference in differences:
        if difference.span_kind == "number" and difference.claim is not None and difference.kind != "swap" \
                and not difference.displaced:
            token = next((t for t in tokenize(difference.claim.text) if t.kind == "number"), None)
            if token is not None and any(same_amount(token, other) for other in amounts):
                continue
        kept.append(difference)
    return kept


def _compatible(claim: Token, passage: Token, score: _Score) -> bool:
    """Tokens that can fill one slot: numbers of one kind, names, or words that are related or close."""
    if "number" in (claim.kind, passage.kind) or "name" in (claim.kind, passage.kind):
        return claim.kind == passage.kind and (claim.kind != "number" or score.relation != "none")
    return score.relation != "none" or score.cosine >= PAIR_COSINE


def _partner(token: Token, candidates: list[int], tokens: list[Token], claim_index: int,
             scores: list[list[_Score]]) -> int | None:
    """The passage token in the same slot that `token` most likely replaced: a related one first, then the closest."""
    fitting = [(position, j) for position, j in enumerate(candidates)
               if _compatible(token, tokens[position], scores[claim_index][j])]
    if not fitting:
        return None

    def rank(entry: tuple[int, int]) -> tuple[int, float, int]:
        position, j = entry
        score = scores[claim_index][j]
        return (int(score.relation in ("antonym", "cohyponym", "number")), score.cosine, -position)

    return max(fitting, key=rank)[1]


def _displaced(claim_tokens: tuple[Token, ...], passage_tokens: tuple[Token, ...], c_content: list[int],
               p_content: list[int], matched_c: dict[int, _Pair], matched_p: dict[int, _Pair]) -> list[Difference]:
    """Names and numbers matched elsewhere while the slot next to their neighbour's match holds another one."""
    found = []
    for i, pair in matched_c.items():
        token = claim_tokens[c_content[i]]
        if token.kind not in ("name", "number"):
            continue
        for neighbour, step in ((i + 1, -1), (i - 1, 1)):
            anchor = matched_c.get(neighbour)
            if anchor is None:
                continue
            slot = anchor.passage + step
            if slot == pair.passage or not 0 <= slot < len(p_content) or slot in matched_p:
                continue
            other = passage_tokens[p_content[slot]]
            if other.kind == token.kind and not _same_thing(token, other):
                found.append(Difference("substitution", _span(token), _span(other),
                                        "number" if token.kind == "number" else "none", _kind(token),
                                        displaced=True))
                break
    return found


def _swaps(claim_tokens: tuple[Token, ...], passage_tokens: tuple[Token, ...], c_content: list[int],
           p_content: list[int], pairs: list[_Pair]) -> list[Difference]:
    """Two matched tokens in crossed order that traded their neighbours."""
    found = []
    for a in pairs:
        for b in pairs:
            if not (a.claim < b.claim and a.passage > b.passage):
                continue
            ta, tb = claim_tokens[c_content[a.claim]], claim_tokens[c_content[b.claim]]
            if ta.kind == "number" or tb.kind == "number" or ta.kind != tb.kind:
                continue
            a_claim = _role(claim_tokens, c_content[a.claim])
            b_claim = _role(claim_tokens, c_content[b.claim])
            a_passage = _role(passage_tokens, p_content[a.passage])
            b_passage = _role(passage_tokens, p_content[b.passage])
            crossed = (_shares(a_claim, b_passage) and _shares(b_claim, a_passage)) \
                or _same_role_word(a_claim, b_passage) or _same_role_word(b_claim, a_passage)
            if a_claim == b_claim or not crossed:
                continue
            claim_span = Span(f"{ta.text} … {tb.text}", ta.start, tb.end)
            pa, pb = passage_tokens[p_content[b.passage]], passage_tokens[p_content[a.passage]]
            found.append(Difference("swap", claim_span, Span(f"{pa.text} … {pb.text}", pa.start, pb.end), "swap",
                                    _kind(ta)))
    return found


def _role(tokens: tuple[Token, ...], index: int) -> tuple[str, str]:
    """The words on either side of a token, skipping articles: what marks its role in the sentence."""
    def near(step: int) -> str:
        k = index + step
        while 0 <= k < len(tokens) and tokens[k].lower in ("the", "a", "an"):
            k += step
        return tokens[k].lower if 0 <= k < len(tokens) else "^" if step < 0 else "$"
    return near(-1), near(1)


ROLE_WORDS = frozenset({"from", "to", "into", "towards", "toward", "by", "above", "below", "under", "over",
                        "before", "after", "than"})
"""Prepositions that give a name its role: one the claim puts before a name that the passage puts before the
other name is a swap on its own ("relocated from Canberra to Melbourne" against "sat in Melbourne ... moved
to Canberra")."""


def _same_role_word(first: tuple[str, str], second: tuple[str, str]) -> bool:
    """Whether two tokens follow the same role-giving preposition."""
    return first[0] == second[0] and first[0] in ROLE_WORDS


def _shares(first: tuple[str, str], second: tuple[str, str]) -> bool:
    return any(x == y and x not in ("^", "$", "and", "or") for x, y in zip(first, second, strict=True))


def _polarity(claim_tokens: tuple[Token, ...], passage_tokens: tuple[Token, ...], c_content: list[int],
              p_content: list[int], matched_c: dict[int, _Pair], matched_p: dict[int, _Pair]) -> list[Difference]:
    """A negation of a matched part on one side, where the other side has no negation at all.

    A sentence that negates in other words ("no sailings on Sundays" for "does not sail on Sundays") still
    has a negation, so only a side with none at all differs in polarity.
    """
    claim_negations = _scoped_negations(claim_tokens, {c_content[i] for i in matched_c})
    passage_negations = _scoped_negations(passage_tokens, {p_content[j] for j in matched_p})
    if passage_negations and not any(t.kind == "negation" for t in claim_tokens):
        return [Difference("polarity", None, _span(passage_negations[0]), "passage", "negation")]
    if claim_negations and not any(t.kind == "negation" for t in passage_tokens):
        return [Difference("polarity", _span(claim_negations[0]), None, "claim", "negation")]
    return []


def _scoped_negations(tokens: tuple[Token, ...], matched: set[int]) -> list[Token]:
    """Negation cues over a matched part of the sentence.

    A cue's scope is the next content token within `NEGATION_SCOPE`. It counts when that token is
    matched, or when the words around it are: a matched content token just before the cue and another
    just after the scope ("Children's cards do not collect overdue fines" against "... are charged
    overdue fines": the negated verb differs, the sentence around it is the claim's).
    """
    found = []
    for index, token in enumerate(tokens):
        if token.kind != "negation":
            continue
        scope = _next_content(tokens, index, 1)
        if scope is None:
            continue
        before = _next_content(tokens, index, -1)
        after = _next_content(tokens, scope, 1)
        if scope in matched or (before in matched and after in matched):
            found.append(token)
    return found


def _next_content(tokens: tuple[Token, ...], index: int, step: int) -> int | None:
    """The nearest content token within `NEGATION_SCOPE` of `index` in direction `step`, or None."""
    for k in range(index + step, index + step * (NEGATION_SCOPE + 1), step):
        if not 0 <= k < len(tokens):
            return None
        if tokens[k].is_content:
            return k
    return None


def _modality(claim_tokens: tuple[Token, ...], passage_tokens: tuple[Token, ...]) -> list[Difference]:
    """Modals of disjoint kinds on the two sides ("must" against "may")."""
    claim_modals = [t for t in claim_tokens if modality_of(t) not in (None, "future")]
    passage_modals = [t for t in passage_tokens if modality_of(t) not in (None, "future")]
    if not claim_modals or not passage_modals:
        return []
    if {modality_of(t) for t in claim_modals} & {modality_of(t) for t in passage_modals}:
        return []
    return [Difference("modality", _span(claim_modals[0]), _span(passage_modals[0]), "modal", "modal")]


# ---------------------------------------------------------------------- matching


def _match(scores: list[list[_Score]], claims: int, passages: int) -> list[_Pair]:
    """One-to-one matches, best first; a pair whose neighbours also match scores a little higher."""
    def raw(i: int, j: int) -> float:
        return scores[i][j].score if 0 <= i < claims and 0 <= j < passages else 0.0
    ranked = []
    for i in range(claims):
        for j in range(passages):
            base = raw(i, j)
            if base < MATCH:
                continue
            bonus = NEIGHBOUR_BONUS * ((raw(i - 1, j - 1) >= MATCH) + (raw(i + 1, j + 1) >= MATCH))
            ranked.append((base + bonus, i, j))
    ranked.sort(key=lambda r: (-r[0], r[1], r[2]))
    taken_c: set[int] = set()
    taken_p: set[int] = set()
    pairs = []
    for _, i, j in ranked:
        if i in taken_c or j in taken_p:
            continue
        taken_c.add(i)
        taken_p.add(j)
        pairs.append(_Pair(i, j, scores[i][j].score, scores[i][j].relation))
    return pairs


def _increasing(pairs: list[_Pair]) -> list[_Pair]:
    """The longest run of matches in the same order on both sides (ties: the higher total score)."""
    ordered = sorted(pairs, key=lambda p: p.claim)
    best: list[tuple[int, float, int]] = []  # (length, score, previous index)
    for k, pair in enumerate(ordered):
        length, total, previous = 1, pair.score, -1
        for m in range(k):
            if ordered[m].passage < pair.passage:
                candidate = (best[m][0] + 1, best[m][1] + pair.score)
                if candidate > (length, total):
                    length, total, previous = candidate[0], candidate[1], m
        best.append((length, total, previous))
    if not best:
        return []
    k = max(range(len(best)), key=lambda n: (best[n][0], best[n][1]))
    chain = []
    while k != -1:
        chain.append(ordered[k])
        k = best[k][2]
    return chain[::-1]


# ---------------------------------------------------------------------- words


def _same_thing(first: Token, second: Token) -> bool:
    """Whether two names share their words, or two amounts are equal: one thing, however often it is named."""
    if first.kind == "number":
        return bool(same_amount(first, second))
    return _same_name(first.text, second.text)


def _same_name(first: str, second: str) -> bool:
    """Names that share their words: "Collins" and "Michael Collins", "the Pacific" and "Pacific"."""
    a = set(Entity(first, 0, len(first)).keys)
    b = set(Entity(second, 0, len(second)).keys)
    return bool(a and b) and (a <= b or b <= a)


def _span(token: Token) -> Span:
    return Span(token.text, token.start, token.end)


def _kind(token: Token) -> SpanKind:
    return token.kind if token.kind in ("number", "name", "negation", "modal") else "word"


def static_word_similarity(claim_words: Sequence[str], passage_words: Sequence[str]) -> list[list[float]]:
    """Cosines of words' static vectors (`veracity.offline.model.static`), memoised per word."""
    claim_vectors = np.stack([_word_vector(w) for w in claim_words])
    passage_vectors = np.stack([_word_vector(w) for w in passage_words])
    cosines: list[list[float]] = (claim_vectors @ passage_vectors.T).tolist()
    return cosines


@functools.lru_cache(maxsize=65_536)
def _word_vector(word: str) -> NDArray[np.float32]:
    from veracity.offline.model.static import default_static_embedder

    vector: NDArray[np.float32] = default_static_embedder().embed([word])[0]
    return vector
