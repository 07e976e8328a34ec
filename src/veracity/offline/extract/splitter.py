"""The claim splitter itself: sentences to passages to claims, each with the verbatim span it came from."""

from __future__ import annotations

from dataclasses import dataclass, replace

from veracity.offline.extract import framing, lexicon
from veracity.offline.extract.coordination import Conjunct, split_conjuncts
from veracity.offline.extract.segments import clause_spans, has_fact, is_question, passage_spans
from veracity.offline.extract.subjects import next_subject, resolved_subject, splittable_subject, with_subject
from veracity.offline.extract.tokens import CLOSERS, TRAILING_PUNCTUATION, Token, tokenize, trim_end, trim_start
from veracity.offline.extract.verbs import carried_auxiliary, first_verb, predicate_tokens


@dataclass(frozen=True)
class _Claim:
    claim: str
    source: str


@dataclass(frozen=True)
class _Skipped:
    source: str
    reason: str


@dataclass(frozen=True)
class _Passage:
    """A courtesy-free span of the text, tokenised, with the subjects its parts may borrow."""

    text: str
    tokens: list[Token]
    end: int
    verb: int | None
    resolved: str | None  # the previous subject, standing in for a leading "It"/"Its X"
    shared: str | None  # the subject coordinated verb phrases share
    carried: str | None  # the subject a later pronoun refers to


def extract_claims_offline(text: str, *, source_mode: bool = False) -> dict[str, list[dict[str, str]]]:
    """Return an ExtractionOutput-shaped payload: {"claims": [{"claim", "source"}], "skipped": [{"source", "reason"}]}.

    Opinions and value judgements ("X is overrated") and predictions ("We predict that ...",
    "X will win next year") are listed in ``skipped``, not as claims. `source_mode` is for
    checking an answer against a policy or document: apologies and empathy are then dropped
    even when they mention a fact, and "will" statements are promises to check, not predictions.
    """
    found: list[_Claim] = []
    skipped: list[_Skipped] = []
    subject: str | None = None
    for start, end in clause_spans(text):
        claims, subject = _sentence_claims(text, start, end, subject, strict=source_mode, skipped=skipped)
        found.extend(claims)
    return {
        "claims": [{"claim": c.claim, "source": c.source} for c in _unique(found)],
        "skipped": [{"source": s.source, "reason": s.reason} for s in dict.fromkeys(skipped)],
    }


def _sentence_claims(
    text: str, start: int, end: int, subject: str | None, *, strict: bool, skipped: list[_Skipped]
) -> tuple[list[_Claim], str | None]:
    """Claims of one sentence, and the subject a following pronoun would refer to."""
    body_end = trim_end(text, start, end)
    start = trim_start(text, start, body_end)
    terminal = text[body_end:end]
    if "?" in terminal:  # "X, right?" and "Did you know that X?" assert X
        tag = framing.tag_question_start(text, start, body_end)
        asserted = framing.asserted_question_start(text, start, body_end) if tag is None else None
        if asserted is not None and first_verb(tokenize(text, asserted, body_end)) is not None:
            start, terminal = asserted, "."
        elif tag is not None:
            body_end, terminal = tag, "."
    body_end = framing.strip_trailing_frames(text, start, body_end)
    tokens = tokenize(text, start, body_end)
    if not tokens or terminal.rstrip("\"'”’)] \n\t").endswith(":"):
        return [], subject
    if is_question(tokens, terminal):
        return [], None
    claims: list[_Claim] = []
    for p_start, p_end in passage_spans(text, start, body_end, strict):
        passage_claims, subject = _passage_claims(text, p_start, p_end, subject, strict=strict, skipped=skipped)
        claims.extend(passage_claims)
    return claims, subject


def _passage_claims(
    text: str, start: int, end: int, subject: str | None, *, strict: bool, skipped: list[_Skipped]
) -> tuple[list[_Claim], str | None]:
    """Claims of one courtesy-free passage, and the subject to carry on; opinions and predictions go to `skipped`."""
    passage = _Skipped(text[start:trim_end(text, start, end)], "opinion")
    if lexicon.PREDICTION.match(text, start, end) or (not strict and _is_forecast(text, start, end)):
        skipped.append(replace(passage, reason="prediction"))
        return [], subject
    start = framing.strip_leading_frames(text, start, end)
    hedge = lexicon.HEDGE.match(text, start, end)
    if hedge:
        start = hedge.end()
    tokens = tokenize(text, start, end)
    if len(tokens) < 2:
        return [], subject
    verb = first_verb(tokens)
    resolved = resolved_subject(text, tokens, verb, subject, end)
    carried = next_subject(text, tokens, verb, subject, resolved)
    if _is_opinion(text, tokens, start, hedged=hedge is not None):
        skipped.append(passage)
        return [], carried
    shared = resolved or splittable_subject(text, tokens, verb)
    parsed = _Passage(text, tokens, end, verb, resolved, shared, carried)
    claims = []
    for part in split_conjuncts(text, tokens, verb, split=shared is not None):
        claim = _conjunct_claim(parsed, part)
        if isinstance(claim, _Skipped):
            skipped.append(claim)
        else:
            claims.append(claim)
    return claims, carried


def _is_forecast(text: str, start: int, end: int) -> bool:
    """A statement in the future tense about a time to come ("X will win next year", "... by 2050")."""
    return bool(lexicon.FUTURE_VERB.search(text, start, end)) and bool(lexicon.FUTURE_TIME.search(text, start, end))


def _conjunct_claim(passage: _Passage, part: Conjunct) -> _Claim | _Skipped:
    """The claim one coordinated part makes, with its subject restored; an evaluation is skipped."""
    text, tokens = passage.text, passage.tokens
    part_end = tokens[part.last].start if part.last < len(tokens) else passage.end
    part_end = trim_end(text, tokens[part.first].start, part_end)
    source = text[tokens[part.first].start:part_end]
    own = tokens[part.first:part.last]
    if part.kind == "main":
        predicate = predicate_tokens(own, passage.verb)
        # "is overrated" is all verb group: the participle can be the judgement
        judged = own[passage.verb - part.first:] if passage.verb is not None and passage.verb >= part.first else own
    else:
        predicate = judged = own[(part.head or part.first) - part.first:]
    if _is_evaluation(judged) and _is_evaluation(judged + predicate):
        return _Skipped(source, "opinion")
    if part.kind == "main":
        claim = with_subject(text, own, passage.verb, passage.resolved, part_end) if passage.resolved else source
    elif part.kind == "clause":
        verb = first_verb(own)
        subject = resolved_subject(text, own, verb, passage.carried, part_end)
        claim = with_subject(text, own, verb, subject, part_end) if subject else source
    else:
        carry = carried_auxiliary(text, tokens, passage.verb, part.head) if passage.verb is not None else None
        claim = f"{passage.shared} {carry + ' ' if carry else ''}{source}"
    return _Claim(_finish(claim), source)


def _is_opinion(text: str, tokens: list[Token], start: int, *, hedged: bool) -> bool:
    """A pure opinion: a hedge with nothing checkable, a like/love statement, or an exclamation."""
    if lexicon.AFFECT.match(text, start):
        return not any(any(ch.isdigit() for ch in t.text) for t in tokens)
    if lexicon.EXCLAMATIVE.match(text, start) or (tokens[0].folded == "how" and tokens[1].folded in lexicon.EVALUATIVE):
        return True
    return hedged and not has_fact(tokens)


def _is_evaluation(predicate: list[Token]) -> bool:
    """A subjective word in the predicate and no number, date or name to check."""
    evaluative = any(t.is_lower and t.folded in lexicon.EVALUATIVE for t in predicate)
    return evaluative and not has_fact(predicate)


def _finish(claim: str) -> str:
    """One line, capitalised, ending in a period (moved outside a closing quote: 'said "x".')."""
    claim = " ".join(claim.split()).rstrip(TRAILING_PUNCTUATION + " ")
    if len(claim) > 1 and claim[-1] in CLOSERS and claim[-2] in TRAILING_PUNCTUATION:
        claim = claim[:-2].rstrip(TRAILING_PUNCTUATION) + claim[-1]
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
