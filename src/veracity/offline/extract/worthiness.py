"""Check-worthiness: whether a statement is a claim to check and, if not, why.

One rule for both modes. The offline splitter applies these tests sentence by sentence and
passage by passage; `veracity.offline.extract.skip_reason` applies the splitter, and so the same
tests, to one statement, and the extraction gate asks it about every claim a chat model returns.
The four reasons are `SkipReason`'s, each made of word classes from `lexicon`, not fixed sentences:

* courtesy: greetings, thanks, offers of help, apologies and empathy, sign-offs, interjections;
* question: a "?" (unless a tag or "Did you know that ...?" asserts the statement), or an
  unpunctuated sentence opened by a question word or an auxiliary;
* opinion: "I like/love ...", "my favourite ...", an exclamation, a hedge with nothing checkable,
  a normative "should", or a value judgement: a word of taste (beautiful, delicious, overrated,
  boring) or of ranking (best, worst, greatest) said of the subject, with no number or date that
  measures it ("the best quarter since 2010") and no one named who judged ("was voted the best city
  by ..."). Measurable superlatives (tallest, largest, first, oldest, most populous) are facts;
* prediction: a forecast someone makes ("Experts expect ..."), a likelihood ("is expected to",
  "is likely to", "is going to"), or a future verb group ("will", "'ll", "shall"), and "could",
  "might" or "may" with a future time. A timetable in the present ("The museum opens at 9 am") is a
  fact; so is a scheduled event ("will be held in Brisbane", "will open on Monday"), a general law
  ("If you heat ice, it will melt") and a claim of effect ("Garlic will not cure the flu",
  "Drinking water will ..."). In source mode "will" is a promise to check, not a forecast.
"""

from __future__ import annotations

import re

from veracity.offline.extract import framing, lexicon
from veracity.offline.extract.tokens import Token, tokenize
from veracity.offline.extract.verbs import first_verb, group_end, split_clitic

_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)$", re.IGNORECASE)
_JUDGEMENT_REACH = 8
"""A judgement is what the verb says of its subject: its word comes within this many words of the verb
("is one of the most beautiful cities"), not deep in a long predicate ("... to make a tough situation worse")."""


# --------------------------------------------------------------------------- courtesy and questions


def is_courtesy(text: str, start: int, end: int, *, edge: bool, strict: bool) -> bool:
    """Whether text[start:end] (one segment, leading conjunctions already stripped) is courtesy.

    Interjections ("Sure", "Well") count only at an `edge` of the sentence; apologies and empathy
    only when they carry no checkable fact, or always in source mode (`strict`).
    """
    body = text[start:end]
    if lexicon.ALWAYS_COURTESY.match(body):
        return True
    if lexicon.SHORT_COURTESY.match(body) and len(body.split()) <= lexicon.SHORT_COURTESY_MAX_WORDS:
        return True
    if lexicon.SOFT_COURTESY.match(body):
        return strict or not has_fact(tokenize(text, start, end)[1:])
    return edge and is_interjection(body)


def is_interjection(body: str) -> bool:
    """Whether `body` is only bare interjections ("Sure!", "Oh, well", "OK.")."""
    pieces = [piece for piece in re.split(r"[.!…]+\s*", body) if piece.strip()]
    return bool(pieces) and all(lexicon.INTERJECTION.fullmatch(piece.strip()) for piece in pieces)


def is_question(tokens: list[Token], terminal: str) -> bool:
    """Whether the sentence asks something: a "?", or, with no "." or "!", a question word or auxiliary first."""
    if "?" in terminal:
        return True
    first = tokens[0].folded
    unpunctuated = not any(mark in terminal for mark in ".!")
    return unpunctuated and (first in lexicon.QUESTION_WORDS or first in lexicon.AUXILIARIES)


# --------------------------------------------------------------------------- predictions


def is_prediction(text: str, start: int, end: int, *, strict: bool) -> bool:
    """Whether text[start:end] (one passage) is a statement about the future rather than a fact."""
    if lexicon.PREDICTION.match(text, start, end):
        return True
    if strict:
        return False
    start = statement_start(text, start, end)
    tokens = tokenize(text, start, end)
    verb = _main_verb(tokens)
    future_time = bool(lexicon.FUTURE_TIME.search(text, start, end))
    if verb is not None and _future_auxiliary(tokens[verb]):
        return not (_scheduled(tokens, verb + 1) or (not future_time and _general(text, start, end, tokens, verb)))
    if verb is not None and _likelihood(tokens, verb):
        return True
    return verb is not None and tokens[verb].folded in lexicon.SPECULATIVE and future_time


def statement_start(text: str, start: int, end: int) -> int:
    """Where the statement itself begins, past vouching frames and a hedge ("I think that")."""
    start = framing.strip_leading_frames(text, start, end)
    hedge = lexicon.HEDGE.match(text, start, end)
    return hedge.end() if hedge else start


def _main_verb(tokens: list[Token]) -> int | None:
    """The first verb group's position, past a relative clause ("The firm, which will move, was founded in 1990")."""
    verb = first_verb(tokens)
    if verb is not None and verb > 0 and tokens[verb - 1].folded in lexicon.RELATIVES:
        after = group_end(tokens, verb)
        later = first_verb(tokens[after:])
        return after + later if later is not None else verb
    return verb


def _future_auxiliary(token: Token) -> bool:
    clitic = split_clitic(token)
    return token.folded in lexicon.FUTURE_AUXILIARIES or (clitic is not None and clitic[1] == "'ll")


def _general(text: str, start: int, end: int, tokens: list[Token], verb: int) -> bool:
    """Whether the "will" states what always happens rather than what is going to.

    After a generic condition ("If you heat ice"), with an action as the subject ("Drinking water
    will ..."), or with a verb of cause and effect ("will cure", "will not protect").
    """
    gerund = verb > 0 and tokens[0].folded.endswith("ing") and tokens[0].folded not in lexicon.AUXILIARIES
    effect = _head_verb(tokens, verb + 1) in lexicon.EFFECTS
    return bool(lexicon.GENERAL_LAW.search(text, start, end)) or gerund or effect


def _head_verb(tokens: list[Token], position: int) -> str:
    """The verb after "will" and its adverbs ("will not always cure" -> "cure"), or ""."""
    while position < len(tokens) and tokens[position].folded in lexicon.VERB_ADVERBS:
        position += 1
    return tokens[position].folded if position < len(tokens) else ""


def _scheduled(tokens: list[Token], position: int) -> bool:
    """Whether the verb after "will" (past "not", an adverb and "be") is a timetable verb."""
    while position < len(tokens) and (tokens[position].folded in lexicon.VERB_ADVERBS
                                      or tokens[position].folded == "be"):
        position += 1
    return position < len(tokens) and tokens[position].folded in lexicon.SCHEDULED


def _likelihood(tokens: list[Token], verb: int) -> bool:
    """A present "be" + likelihood word + "to" ("is expected to", "are likely to", "'s going to + verb")."""
    clitic = split_clitic(tokens[verb])
    be = lexicon.CLITIC_VERBS[clitic[1]] if clitic else tokens[verb].folded
    if be not in lexicon.PRESENT_BE:
        return False
    position = verb + 1
    while position < len(tokens) and tokens[position].folded in lexicon.VERB_ADVERBS | {"very", "highly", "widely"}:
        position += 1
    if position + 2 > len(tokens) or tokens[position].folded not in lexicon.LIKELIHOOD:
        return False
    if tokens[position + 1].folded != "to":
        return False
    following = tokens[position + 2] if position + 2 < len(tokens) else None
    # "is going to the museum", "is going to school" are trips, not forecasts
    return following is None or not (following.folded in lexicon.DETERMINERS or following.folded in lexicon.DESTINATIONS
                                     or not following.is_lower)


# --------------------------------------------------------------------------- opinions


def is_opinion(text: str, tokens: list[Token], start: int, *, hedged: bool, strict: bool) -> bool:
    """A pure opinion: "I like ...", "my favourite ...", an exclamation, a hedge with nothing checkable.

    Outside source mode, a normative "should" ("Everyone should visit Paris") is one too.
    """
    if lexicon.AFFECT.match(text, start) or lexicon.PERSONAL_TASTE.search(text, start, tokens[-1].end):
        return not any(any(ch.isdigit() for ch in t.text) for t in tokens)
    if lexicon.EXCLAMATIVE.match(text, start) or (tokens[0].folded == "how" and tokens[1].folded in lexicon.EVALUATIVE):
        return True
    verb = first_verb(tokens)
    ought = any(t.folded in {"ought", "oughtn't"} for t in tokens)
    if not strict and (ought or (verb is not None and tokens[verb].folded in lexicon.NORMATIVE)):
        return True
    return hedged and not has_fact(tokens)


def is_evaluation(words: list[Token], *, sentence_start: bool = False) -> bool:
    """A value judgement: a word of taste or ranking, nothing that measures it, and no one named who judged.

    With `sentence_start`, the first word counts even capitalised ("Best pizza in town!").
    """
    if not any(_evaluative(words, position, sentence_start) for position in range(min(len(words), _JUDGEMENT_REACH))):
        return False
    attributed = any(t.folded in lexicon.ATTRIBUTION_VERBS for t in words)
    return not attributed and not _measured(words)


def is_value_judgement(subject: list[Token], predicate: list[Token], *, sentence_start: bool = False) -> bool:
    """A value judgement in the predicate (from its verb on) or, after a copula, in the subject.

    "Paris is the most beautiful city in Europe", "The best pizza in town is at Luigi's".
    """
    if is_evaluation(predicate, sentence_start=sentence_start):
        return True
    return bool(predicate) and _copula(predicate[0]) and is_evaluation(subject + predicate)


def _copula(token: Token) -> bool:
    clitic = split_clitic(token)
    verb = lexicon.CLITIC_VERBS[clitic[1]] if clitic else token.folded
    return verb in lexicon.BE_FORMS or verb in {"remains", "remained", "became", "becomes"}


def _evaluative(words: list[Token], position: int, sentence_start: bool) -> bool:
    token = words[position]
    sentence_case = (sentence_start and position == 0 and token.text[1:].islower()
                     and (len(words) == 1 or words[1].is_lower))
    if not (token.is_lower or sentence_case):
        return False  # "Best Picture", "Great Barrier Reef", "Nice is a city in France"
    if token.folded in lexicon.TASTE:
        return True
    if token.folded in lexicon.GRADED_TASTE:  # "the most romantic city", not "a romantic comedy"
        return position > 0 and words[position - 1].folded in lexicon.GRADERS
    if token.folded not in lexicon.RANKING:
        return False
    following = words[position + 1].folded if position + 1 < len(words) else ""
    measure = following in lexicon.MEASURE_NOUNS or following in lexicon.IRREGULAR_PAST
    # "can make the infection worse" is a claim of effect
    before = words[max(0, position - 4):position]
    caused = token.folded in lexicon.COMPARATIVES and any(t.folded in lexicon.CAUSATIVES for t in before)
    return not (measure or caused or (following.endswith(("ed", "ing")) and following.isalpha()))


def _measured(words: list[Token]) -> bool:
    """A number (not an ordinal such as "20th") or a month: the judgement is measured, e.g. a record."""
    return any(
        (any(ch.isdigit() for ch in t.text) and not _ORDINAL.match(t.text))
        or (t.folded in lexicon.MONTHS and not t.is_lower)
        for t in words
    )


def has_fact(tokens: list[Token]) -> bool:
    """Whether the tokens hold something checkable: a number, a month, or a capitalised name."""
    return any(
        any(ch.isdigit() for ch in t.text)
        or t.folded in lexicon.MONTHS
        or (t.text[:1].isupper() and t.folded != "i" and not t.folded.startswith("i'"))
        for t in tokens
    )
