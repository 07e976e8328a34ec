"""The claim splitter itself: sentences to passages to claims, each with the verbatim span it came from."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import cast

from veracity.contracts import SkipReason
from veracity.offline.extract import framing, lexicon, worthiness
from veracity.offline.extract.coordination import Conjunct, split_conjuncts
from veracity.offline.extract.segments import clause_spans, courtesy_spans, is_all_courtesy, passage_spans
from veracity.offline.extract.subjects import next_subject, resolved_subject, splittable_subject, with_subject
from veracity.offline.extract.tokens import CLOSERS, TRAILING_PUNCTUATION, Token, tokenize, trim_end, trim_start
from veracity.offline.extract.verbs import carried_auxiliary, first_verb


@dataclass(frozen=True)
class _Claim:
    claim: str
    source: str


@dataclass(frozen=True)
class _Skipped:
    source: str
    reason: SkipReason
    start: int  # where `source` begins in the text, to list skipped statements in reading order


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
    strict: bool  # source mode: "will" is a promise to check


def extract_claims_offline(text: str, *, source_mode: bool = False) -> dict[str, list[dict[str, str]]]:
    """Return an ExtractionOutput-shaped payload: {"claims": [{"claim", "source"}], "skipped": [{"source", "reason"}]}.

    What is not check-worthy (see `worthiness`) is listed in ``skipped`` with its reason, in reading
    order: courtesy ("Thanks for reaching out"), questions, opinions and value judgements ("X is
    overrated") and predictions ("We predict that ...", "X will win"). `source_mode` is for checking
    an answer against a policy or document: apologies and empathy are then courtesy even when they
    mention a fact, and "will" statements are promises to check, not predictions.
    """
    found: list[_Claim] = []
    skipped: list[_Skipped] = []
    subject: str | None = None
    for start, end in clause_spans(text):
        claims, subject = _sentence_claims(text, start, end, subject, strict=source_mode, skipped=skipped)
        found.extend(claims)
    return {
        "claims": [{"claim": c.claim, "source": c.source} for c in _unique(found)],
        "skipped": [{"source": s.source, "reason": s.reason}
                    for s in sorted(dict.fromkeys(skipped), key=lambda s: s.start) if s.source],
    }


def skip_reason(statement: str, *, source_mode: bool = False) -> SkipReason | None:
    """Why `statement` is not check-worthy (courtesy, question, opinion, prediction), or None when it is.

    The splitter's own rule applied to one statement: None when it yields a claim, or when it
    yields nothing at all (a fragment is not judged here). For a chat model's claims, see the
    extraction gate.
    """
    payload = extract_claims_offline(statement, source_mode=source_mode)
    if payload["claims"] or not payload["skipped"]:
        return None
    return cast(SkipReason, payload["skipped"][0]["reason"])


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
    if worthiness.is_question(tokens, terminal):
        courtesy = is_all_courtesy(text, start, body_end, strict)
        skipped.append(_Skipped(text[start:trim_end(text, start, end)], "courtesy" if courtesy else "question", start))
        return [], None
    skipped.extend(_Skipped(text[a:b], "courtesy", a) for a, b in courtesy_spans(text, start, body_end, strict))
    claims: list[_Claim] = []
    for p_start, p_end in passage_spans(text, start, body_end, strict):
        passage_claims, subject = _passage_claims(text, p_start, p_end, subject, strict=strict, skipped=skipped)
        claims.extend(passage_claims)
    return claims, subject


def _passage_claims(
    text: str, start: int, end: int, subject: str | None, *, strict: bool, skipped: list[_Skipped]
) -> tuple[list[_Claim], str | None]:
    """Claims of one courtesy-free passage, and the subject to carry on; opinions and predictions go to `skipped`."""
    passage = _Skipped(text[start:trim_end(text, start, end)], "opinion", start)
    if worthiness.is_prediction(text, start, end, strict=strict):
        skipped.append(replace(passage, reason="prediction"))
        return [], subject
    start = framing.strip_leading_frames(text, start, end)
    hedge = lexicon.HEDGE.match(text, start, end)
    if hedge:
        start = hedge.end()
    tokens = tokenize(text, start, end)
    if len(tokens) < 2:
        if tokens and worthiness.is_evaluation(tokens, sentence_start=True):  # "Delicious!"
            skipped.append(passage)
        return [], subject
    verb = first_verb(tokens)
    resolved = resolved_subject(text, tokens, verb, subject, end)
    carried = next_subject(text, tokens, verb, subject, resolved)
    if worthiness.is_opinion(text, tokens, start, hedged=hedge is not None, strict=strict):
        skipped.append(passage)
        return [], carried
    shared = resolved or splittable_subject(text, tokens, verb)
    parsed = _Passage(text, tokens, end, verb, resolved, shared, carried, strict)
    claims = []
    for part in split_conjuncts(text, tokens, verb, split=shared is not None):
        claim = _conjunct_claim(parsed, part)
        if isinstance(claim, _Skipped):
            skipped.append(claim)
        else:
            claims.append(claim)
    return claims, carried


def _conjunct_claim(passage: _Passage, part: Conjunct) -> _Claim | _Skipped:
    """The claim one coordinated part makes, with its subject restored; an evaluation or a forecast is skipped."""
    text, tokens = passage.text, passage.tokens
    part_start = tokens[part.first].start
    part_end = tokens[part.last].start if part.last < len(tokens) else passage.end
    part_end = trim_end(text, part_start, part_end)
    source = text[part_start:part_end]
    own = tokens[part.first:part.last]
    subject: list[Token] = []
    if part.kind == "main":
        # "is overrated" is all verb group: the participle can be the judgement
        verb_in_part = passage.verb is not None and passage.verb >= part.first
        judged = own[passage.verb - part.first:] if passage.verb is not None and verb_in_part else own
        subject = own[:len(own) - len(judged)]
    else:
        judged = own[(part.head or part.first) - part.first:]
        if worthiness.is_prediction(text, tokens[part.head or part.first].start, part_end, strict=passage.strict):
            return _Skipped(source, "prediction", part_start)
    verbless = part.kind == "main" and passage.verb is None and part.first == 0
    if worthiness.is_value_judgement(subject, judged, sentence_start=verbless):
        return _Skipped(source, "opinion", part_start)
    if part.kind == "main":
        claim = with_subject(text, own, passage.verb, passage.resolved, part_end) if passage.resolved else source
    elif part.kind == "clause":
        verb = first_verb(own)
        resolved = resolved_subject(text, own, verb, passage.carried, part_end)
        claim = with_subject(text, own, verb, resolved, part_end) if resolved else source
    else:
        carry = carried_auxiliary(text, tokens, passage.verb, part.head) if passage.verb is not None else None
        claim = f"{passage.shared} {carry + ' ' if carry else ''}{source}"
    return _Claim(_finish(claim), source)


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
