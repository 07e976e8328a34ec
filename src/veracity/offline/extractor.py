"""The offline claim splitter: a deterministic stand-in for the extraction model.

It follows the extraction prompt's rules with explainable heuristics, sentence by sentence:

1. drop questions;
2. cut the sentence at commas, dashes and "and"/"but", drop the courtesy pieces (greetings, thanks,
   apologies, empathy), and keep each remaining run of pieces as a passage;
3. strip hedges ("I think that"), drop pure opinions;
4. split coordinated verb phrases ("was designed by X and opened in 1973"), carrying the subject over;
5. replace a leading pronoun ("It", "Its", "This building") with the previous sentence's subject.

Claims keep the character span they came from, so every `source` is a verbatim passage of the text.
Precision over recall: when a heuristic is unsure, the sentence stays whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, NamedTuple

from veracity.offline import lexicon as lx
from veracity.offline.sentences import split_sentences

_WORD = re.compile(r"\w+(?:(?:['’.\-]|(?<=\d),(?=\d{3}))\w+)*")
_CLAUSE_BREAK = re.compile(r";\s+")
_SEGMENT_BREAK = re.compile(r"\s*[,;:]\s+|\s+[-–—]+\s+|\s+(?=(?:and|but)\s)", re.IGNORECASE)
_LEADING_JUNK = re.compile(r"(?:[\s\-*•·\"“‘(\[]|\d+[.)]\s)+")
_TRAILING_PUNCTUATION = ".!?…:;,"
_CLOSERS = {'"': '"', "”": "“", "’": "‘", ")": "(", "]": "["}
_MAX_SUBJECT_WORDS = 10


class _Token(NamedTuple):
    text: str
    start: int
    end: int
    low: str  # lower case, straight apostrophes

    @property
    def is_lower(self) -> bool:
        return self.text[:1].islower()


@dataclass(frozen=True)
class _Claim:
    claim: str
    source: str


@dataclass(frozen=True)
class _Conjunct:
    """Tokens [first, last) of one coordinated part; `head` is where its verb group starts.

    `kind` is "main" (the passage's first part), "verb_phrase" (borrows the main subject) or
    "clause" (has a subject of its own, maybe a pronoun).
    """

    first: int
    last: int
    head: int | None
    kind: Literal["main", "verb_phrase", "clause"]


@dataclass(frozen=True)
class _Passage:
    """A courtesy-free span of the text, tokenised, with the subjects its parts may borrow."""

    text: str
    tokens: list[_Token]
    end: int
    verb: int | None
    resolved: str | None  # the previous subject, standing in for a leading "It"/"Its X"
    shared: str | None  # the subject coordinated verb phrases share
    carried: str | None  # the subject a later pronoun refers to


def extract_claims_offline(text: str, *, source_mode: bool = False) -> dict[str, list[dict[str, str]]]:
    """Return an ExtractionOutput-shaped payload: {"claims": [{"claim": ..., "source": ...}, ...]}.

    `source_mode` is for checking an answer against a policy or document: apologies and empathy are
    then dropped even when they mention a fact, since a customer-support answer is full of them.
    """
    found: list[_Claim] = []
    subject: str | None = None
    for start, end in _clause_spans(text):
        claims, subject = _sentence_claims(text, start, end, subject, strict=source_mode)
        found.extend(claims)
    return {"claims": [{"claim": c.claim, "source": c.source} for c in _unique(found)]}


# --------------------------------------------------------------------------- sentences and passages


def _clause_spans(text: str) -> list[tuple[int, int]]:
    """Sentences, further cut at semicolons (each side of one is a sentence of its own)."""
    spans: list[tuple[int, int]] = []
    for sentence in split_sentences(text):
        start = sentence.start
        for match in _CLAUSE_BREAK.finditer(text, sentence.start, sentence.end):
            spans.append((start, match.start() + 1))
            start = match.end()
        spans.append((start, sentence.end))
    return spans


def _sentence_claims(
    text: str, start: int, end: int, subject: str | None, *, strict: bool
) -> tuple[list[_Claim], str | None]:
    """Claims of one sentence, and the subject a following pronoun would refer to."""
    body_end = _trim_end(text, start, end)
    start = _trim_start(text, start, body_end)
    terminal = text[body_end:end]
    tokens = _tokens(text, start, body_end)
    if not tokens or terminal.rstrip("\"'”’)] \n\t").endswith(":"):
        return [], subject
    if _is_question(tokens, terminal):
        return [], None
    claims: list[_Claim] = []
    for p_start, p_end in _passages(text, start, body_end, strict):
        passage_claims, subject = _passage_claims(text, p_start, p_end, subject)
        claims.extend(passage_claims)
    return claims, subject


def _is_question(tokens: list[_Token], terminal: str) -> bool:
    if "?" in terminal:
        return True
    first = tokens[0].low
    unpunctuated = not any(mark in terminal for mark in ".!")
    return unpunctuated and (first in lx.QUESTION_WORDS or first in lx.AUXILIARIES)


def _passages(text: str, start: int, end: int, strict: bool) -> list[tuple[int, int]]:
    """Maximal runs of non-courtesy segments, as spans; a subordinate clause cut off from its main
    clause by courtesy ("Even though X, don't worry, Y") is dropped."""
    segments = _segments(text, start, end)
    kept = [not _is_courtesy(text, seg, i, len(segments), strict) for i, seg in enumerate(segments)]
    passages: list[tuple[int, int]] = []
    i = 0
    while i < len(segments):
        if not kept[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(segments) and kept[j + 1]:
            j += 1
        span = _strip_leading_conjunctions(text, segments[i][0], segments[j][1])
        cut_off = j + 1 < len(segments) and not any(segments[k][2] for k in range(i + 1, j + 1))
        if span and not (cut_off and lx.SUBORDINATOR.match(text, span[0])):
            passages.append(span)
        i = j + 1
    return passages


def _segments(text: str, start: int, end: int) -> list[tuple[int, int, bool]]:
    """(start, end, follows_punctuation) pieces between commas, dashes and "and"/"but"."""
    segments: list[tuple[int, int, bool]] = []
    cursor, after_punctuation = start, False
    for match in _SEGMENT_BREAK.finditer(text, start, end):
        if match.start() > cursor:
            segments.append((cursor, match.start(), after_punctuation))
        cursor, after_punctuation = match.end(), bool(match.group().strip())
    if end > cursor:
        segments.append((cursor, end, after_punctuation))
    return segments


def _is_courtesy(text: str, segment: tuple[int, int, bool], index: int, count: int, strict: bool) -> bool:
    span = _strip_leading_conjunctions(text, segment[0], segment[1])
    if span is None:
        return True
    body = text[span[0]:span[1]]
    if lx.ALWAYS_COURTESY.match(body):
        return True
    if lx.SHORT_COURTESY.match(body) and len(body.split()) <= lx.SHORT_COURTESY_MAX_WORDS:
        return True
    if lx.SOFT_COURTESY.match(body):
        return strict or not _has_fact(_tokens(text, *span)[1:])
    pieces = [piece for piece in re.split(r"[.!…]+\s*", body) if piece.strip()]
    return index in (0, count - 1) and all(lx.INTERJECTION.fullmatch(piece.strip()) for piece in pieces)


def _strip_leading_conjunctions(text: str, start: int, end: int) -> tuple[int, int] | None:
    for match in _WORD.finditer(text, start, end):
        if match.group().lower() not in lx.LEADING_CONJUNCTIONS:
            return match.start(), end
    return None


# --------------------------------------------------------------------------- passages to claims


def _passage_claims(text: str, start: int, end: int, subject: str | None) -> tuple[list[_Claim], str | None]:
    """Claims of one courtesy-free passage, and the subject to carry on."""
    hedge = lx.HEDGE.match(text, start, end)
    if hedge:
        start = hedge.end()
    tokens = _tokens(text, start, end)
    if len(tokens) < 2:
        return [], subject
    verb = _first_verb(tokens)
    resolved = _resolved_subject(text, tokens, verb, subject, end)
    carried = _next_subject(text, tokens, verb, subject, resolved)
    if _is_opinion(text, tokens, start, hedged=hedge is not None):
        return [], carried
    shared = resolved or _splittable_subject(text, tokens, verb)
    passage = _Passage(text, tokens, end, verb, resolved, shared, carried)
    claims = [_conjunct_claim(passage, part) for part in _conjuncts(text, tokens, verb, split=shared is not None)]
    return [claim for claim in claims if claim is not None], carried


def _conjunct_claim(passage: _Passage, part: _Conjunct) -> _Claim | None:
    """The claim one coordinated part makes, with its subject restored; None for an evaluation."""
    text, tokens = passage.text, passage.tokens
    part_end = tokens[part.last].start if part.last < len(tokens) else passage.end
    part_end = _trim_end(text, tokens[part.first].start, part_end)
    source = text[tokens[part.first].start:part_end]
    own = tokens[part.first:part.last]
    if part.kind == "main":
        predicate = _predicate(own, passage.verb)
    else:
        predicate = own[(part.head or part.first) - part.first:]
    if _is_evaluation(predicate):
        return None
    if part.kind == "main":
        claim = _with_subject(text, own, passage.verb, passage.resolved, part_end) if passage.resolved else source
    elif part.kind == "clause":
        verb = _first_verb(own)
        subject = _resolved_subject(text, own, verb, passage.carried, part_end)
        claim = _with_subject(text, own, verb, subject, part_end) if subject else source
    else:
        carry = _carried_auxiliary(text, tokens, passage.verb, part.head) if passage.verb is not None else None
        claim = f"{passage.shared} {carry + ' ' if carry else ''}{source}"
    return _Claim(_finish(claim), source)


def _is_opinion(text: str, tokens: list[_Token], start: int, *, hedged: bool) -> bool:
    """A pure opinion: a hedge with nothing checkable, a like/love statement, or an exclamation."""
    if lx.AFFECT.match(text, start):
        return not any(any(ch.isdigit() for ch in t.text) for t in tokens)
    if lx.EXCLAMATIVE.match(text, start) or (tokens[0].low == "how" and tokens[1].low in lx.EVALUATIVE):
        return True
    return hedged and not _has_fact(tokens)


def _is_evaluation(predicate: list[_Token]) -> bool:
    """A subjective word in the predicate and no number, date or name to check."""
    evaluative = any(t.is_lower and t.low in lx.EVALUATIVE for t in predicate)
    return evaluative and not _has_fact(predicate)


def _has_fact(tokens: list[_Token]) -> bool:
    return any(
        any(ch.isdigit() for ch in t.text)
        or t.low in lx.MONTHS
        or (t.text[:1].isupper() and t.low != "i" and not t.low.startswith("i'"))
        for t in tokens
    )


# --------------------------------------------------------------------------- verbs


def _first_verb(tokens: list[_Token]) -> int | None:
    for i in range(len(tokens)):
        if _is_verb(tokens, i):
            return i
    return None


def _is_verb(tokens: list[_Token], i: int) -> bool:
    token = tokens[i]
    low = token.low
    if low in lx.AUXILIARIES:
        return i == 0 or token.is_lower
    if "'" in low:
        return _clitic(token) is not None
    if not token.is_lower:
        return False
    previous = tokens[i - 1].low if i else ""
    if previous in lx.DETERMINERS or previous.endswith(("'s", "s'")):
        return False
    return low in lx.IRREGULAR_PAST or low in lx.PRESENT_VERBS or _looks_past(low)


def _looks_past(low: str) -> bool:
    return low.endswith("ed") and len(low) >= 4 and low.isalpha() and low not in lx.ED_NON_VERBS


def _is_participle(low: str) -> bool:
    return low in lx.IRREGULAR_PAST or _looks_past(low)


def _clitic(token: _Token) -> tuple[str, str] | None:
    """Split "it's"/"we'll" into (host, clitic) when the clitic is a verb; None for "Australia's"."""
    host, mark, rest = token.low.rpartition("'")
    if mark and host in lx.CLITIC_HOSTS and "'" + rest in lx.CLITIC_VERBS:
        return host, "'" + rest
    return None


def _group_end(tokens: list[_Token], head: int) -> int:
    """Index just past the verb group starting at `head` ("was originally designed")."""
    has_auxiliary = tokens[head].low in lx.AUXILIARIES or _clitic(tokens[head]) is not None
    j = head + 1
    while j < len(tokens) and tokens[j].is_lower:
        low = tokens[j].low
        if low in lx.AUXILIARIES:
            has_auxiliary = True
        elif not (low in lx.VERB_ADVERBS or low.endswith("ly") or (has_auxiliary and _is_participle(low))):
            break
        j += 1
    return j


def _main_verb(tokens: list[_Token], head: int, end: int) -> int:
    for j in range(end - 1, head, -1):
        if tokens[j].low not in lx.VERB_ADVERBS and not tokens[j].low.endswith("ly"):
            return j
    return head


def _starts_verb_phrase(tokens: list[_Token], h: int) -> bool:
    """Whether the word after "and"/"but" opens a verb phrase rather than a noun phrase."""
    if h >= len(tokens) or not tokens[h].is_lower:
        return False
    low = tokens[h].low
    if low in lx.AUXILIARIES:
        return True
    if h + 1 >= len(tokens):
        return False
    if low in lx.IRREGULAR_PAST or low in lx.PRESENT_VERBS:
        return tokens[h + 1].low not in lx.AUXILIARIES
    following = tokens[h + 1]
    return _looks_past(low) and (
        following.low in lx.DETERMINERS
        or following.low in lx.VERB_FOLLOWERS
        or following.low.endswith("ly")
        or not following.is_lower
    )


def _carried_auxiliary(text: str, tokens: list[_Token], verb: int, head: int | None) -> str | None:
    """The auxiliary a participle conjunct borrows: "was designed by X and [was] built by Y"."""
    if head is None or not _is_participle(tokens[head].low) or tokens[head].low in lx.AUXILIARIES:
        return None
    end = _group_end(tokens, verb)
    main = _main_verb(tokens, verb, end)
    passive_by = head + 1 < len(tokens) and tokens[head + 1].low == "by"
    if main > verb and _is_participle(tokens[main].low):
        if not passive_by and tokens[head].low in lx.INTRANSITIVE_PAST:
            return None
        return _verb_text(text, tokens, verb, main)
    if main == verb and tokens[head].low in lx.ADJECTIVAL_PARTICIPLES and _be_form(tokens, verb):
        return _verb_text(text, tokens, verb, verb + 1)
    return None


def _be_form(tokens: list[_Token], verb: int) -> bool:
    clitic = _clitic(tokens[verb])
    return (lx.CLITIC_VERBS[clitic[1]] if clitic else tokens[verb].low) in lx.BE_FORMS


def _verb_text(text: str, tokens: list[_Token], verb: int, stop: int) -> str:
    """The words of tokens [verb, stop), with a leading "it's" reduced to its verb ("is")."""
    clitic = _clitic(tokens[verb])
    if clitic is None:
        return " ".join(text[tokens[verb].start:tokens[stop - 1].end].split())
    rest = text[tokens[verb].end:tokens[stop - 1].end] if stop - 1 > verb else ""
    return " ".join((_expand_clitic(tokens, verb) + rest).split())


def _expand_clitic(tokens: list[_Token], verb: int) -> str:
    """The verb a contraction stands for: "it's" -> "is", "it's been" -> "has", "we'll" -> "will"."""
    clitic = _clitic(tokens[verb])
    if clitic is None:
        return tokens[verb].text
    following = tokens[verb + 1].low if verb + 1 < len(tokens) else ""
    if clitic[1] == "'s" and following in {"been", "got"}:
        return "has"
    return lx.CLITIC_VERBS[clitic[1]]


# --------------------------------------------------------------------------- coordination


def _conjuncts(text: str, tokens: list[_Token], verb: int | None, *, split: bool) -> list[_Conjunct]:
    """Cut the passage at "and"/"but" that join verb phrases or ", and it ..." clauses."""
    if verb is None or not split:
        return [_Conjunct(0, len(tokens), verb, "main")]
    parts: list[_Conjunct] = []
    first, head, kind = 0, verb, "main"
    i = _group_end(tokens, verb)
    has_object = False
    while i < len(tokens):
        low = tokens[i].low
        if low in lx.RELATIVES or low in lx.CLAUSE_OPENERS:
            break
        if low in ("and", "but") and has_object:
            next_head, next_kind = _coordinated_head(text, tokens, i)
            if next_kind:
                parts.append(_Conjunct(first, i, head, kind))
                first, head, kind = i + 1, next_head, next_kind
                i, has_object = _group_end(tokens, next_head), False
                continue
        has_object = True
        i += 1
    parts.append(_Conjunct(first, len(tokens), head, kind))
    return parts


def _coordinated_head(text: str, tokens: list[_Token], i: int) -> tuple[int, str | None]:
    """Where the part after the conjunction at `i` starts its verb, and what kind of part it is."""
    h = i + 1
    if h < len(tokens) and tokens[h].low in lx.VERB_ADVERBS and tokens[h].low != "not":
        h += 1
    if _starts_verb_phrase(tokens, h):
        return h, "verb_phrase"
    if "," in text[tokens[i - 1].end:tokens[i].start]:
        clause_verb = next((j for j in range(i + 1, min(len(tokens), i + 8)) if _is_verb(tokens, j)), None)
        if clause_verb is not None and _opens_clause(tokens[i + 1:clause_verb], tokens[i + 1]):
            return clause_verb, "clause"
    return i, None


def _opens_clause(subject: list[_Token], first: _Token) -> bool:
    """Whether ", and <subject> <verb>" starts an independent clause ("..., and it remains ...")."""
    if not subject:
        clitic = _clitic(first)
        return clitic is not None and clitic[0] in lx.PERSONAL_PRONOUNS
    opener = subject[0].low
    return (
        len(subject) <= 6
        and opener not in lx.NON_SUBJECT_STARTS
        and subject[-1].low not in lx.SUBJECT_BAD_ENDS
        and not any(t.low in lx.RELATIVES for t in subject)
        and (opener in lx.PERSONAL_PRONOUNS or opener in lx.DETERMINERS or not subject[0].is_lower)
    )


# --------------------------------------------------------------------------- subjects and pronouns


def _subject_end(tokens: list[_Token], verb: int | None) -> int:
    if verb is not None:
        return verb
    return 1 if tokens[0].low in lx.PERSONAL_PRONOUNS else 0


def _resolved_subject(text: str, tokens: list[_Token], verb: int | None, carried: str | None, end: int) -> str | None:
    """The previous subject standing in for a leading "It", "Its X", "This building"; else None."""
    if carried is None or _is_expletive(text, tokens[0].start, end):
        return None
    clitic = _clitic(tokens[0])
    words = [t.low for t in tokens[:_subject_end(tokens, verb)]] or ([clitic[0]] if clitic else [])
    if words in (["it"], ["he"], ["she"]):
        return carried
    if words == ["they"]:
        return carried if _looks_plural(carried) else None
    if len(words) >= 2 and words[0] in lx.POSSESSIVE_PRONOUNS:
        rest = text[tokens[1].start:tokens[len(words) - 1].end]
        return f"{_possessive(carried)} {rest}"
    if len(words) == 2 and words[0] in lx.DEMONSTRATIVES and words[1] in lx.ANAPHORIC_NOUNS:
        return carried
    return None


def _with_subject(text: str, tokens: list[_Token], verb: int | None, subject: str, end: int) -> str:
    """Rewrite the clause with `subject` in place of its pronoun subject."""
    if verb == 0:
        rest = text[tokens[0].end:end]
        return f"{subject} {_expand_clitic(tokens, 0)}{rest}"
    stop = _subject_end(tokens, verb)
    return f"{subject} {text[tokens[stop].start:end]}" if stop < len(tokens) else subject


def _next_subject(
    text: str, tokens: list[_Token], verb: int | None, carried: str | None, resolved: str | None
) -> str | None:
    """The noun phrase a pronoun in the next sentence refers to, if it is clear enough."""
    if resolved is not None or (carried and _is_expletive(text, tokens[0].start, tokens[-1].end)):
        return carried
    subject = _splittable_subject(text, tokens, verb)
    if subject is None or tokens[0].low in lx.VAGUE_SUBJECT_STARTS:
        return None
    return subject if tokens[0].text[:1].isupper() or tokens[0].low == "the" else None


def _splittable_subject(text: str, tokens: list[_Token], verb: int | None) -> str | None:
    """The words before the first verb, when they read as a subject another verb phrase can share."""
    if verb is None:
        return None
    clitic = _clitic(tokens[0])
    if verb == 0:
        pronoun = clitic[0] if clitic else ""
        return pronoun.capitalize() if pronoun in lx.PERSONAL_PRONOUNS | {"we", "you", "i"} else None
    words = tokens[:verb]
    span = text[words[0].start:words[-1].end]
    if (
        "," in span
        or len(words) > _MAX_SUBJECT_WORDS
        or words[0].low in lx.NON_SUBJECT_STARTS
        or words[-1].low in lx.SUBJECT_BAD_ENDS
        or any(w.low in lx.RELATIVES for w in words[1:])
    ):
        return None
    return " ".join(span.split())


def _is_expletive(text: str, start: int, end: int) -> bool:
    return lx.EXPLETIVE_IT.match(text, start, end) is not None


def _looks_plural(subject: str) -> bool:
    return " and " in subject or subject.lower().endswith("s")


def _possessive(subject: str) -> str:
    return subject + ("'" if subject.endswith("s") else "'s")


# --------------------------------------------------------------------------- text helpers


def _predicate(tokens: list[_Token], verb: int | None) -> list[_Token]:
    return tokens if verb is None else tokens[_group_end(tokens, verb):]


def _tokens(text: str, start: int, end: int) -> list[_Token]:
    return [_token(match) for match in _WORD.finditer(text, start, end)]


def _token(match: re.Match[str]) -> _Token:
    word = match.group()
    return _Token(word, match.start(), match.end(), word.lower().replace("’", "'"))


def _trim_start(text: str, start: int, end: int) -> int:
    match = _LEADING_JUNK.match(text, start, end)
    return match.end() if match else start


def _trim_end(text: str, start: int, end: int) -> int:
    """Drop trailing spaces, sentence punctuation and unbalanced closing quotes or brackets."""
    while end > start:
        char = text[end - 1]
        closing = char in _CLOSERS and _unbalanced(text[start:end], char)
        if not (char.isspace() or char in _TRAILING_PUNCTUATION or closing):
            break
        end -= 1
    return end


def _unbalanced(span: str, closer: str) -> bool:
    opener = _CLOSERS[closer]
    if opener == closer:
        return span.count(closer) % 2 == 1
    return span.count(closer) > span.count(opener)


def _finish(claim: str) -> str:
    """One line, capitalised, ending in a period (moved outside a closing quote: 'said "x".')."""
    claim = " ".join(claim.split()).rstrip(_TRAILING_PUNCTUATION + " ")
    if len(claim) > 1 and claim[-1] in _CLOSERS and claim[-2] in _TRAILING_PUNCTUATION:
        claim = claim[:-2].rstrip(_TRAILING_PUNCTUATION) + claim[-1]
    return claim[:1].upper() + claim[1:] + "."


def _unique(claims: list[_Claim]) -> list[_Claim]:
    seen: set[str] = set()
    unique: list[_Claim] = []
    for claim in claims:
        key = " ".join(claim.claim.casefold().split())
        if key not in seen and claim.source.strip():
            seen.add(key)
            unique.append(claim)
    return unique
