"""Finding the verb group of a passage: auxiliaries, participles, clitics, and the main verb."""

from __future__ import annotations

from veracity.offline.extract import lexicon
from veracity.offline.extract.tokens import Token


def first_verb(tokens: list[Token]) -> int | None:
    """The position of the first token that reads as a verb, or None."""
    for position in range(len(tokens)):
        if is_verb(tokens, position):
            return position
    return None


def is_verb(tokens: list[Token], position: int) -> bool:
    """Whether the token at `position` reads as a verb: an auxiliary, a known or past-tense verb, a clitic."""
    token = tokens[position]
    folded_word = token.folded
    if folded_word in lexicon.AUXILIARIES:
        # "Will Smith", "Can Tho": a capitalised modal before a capitalised word opens a name
        name = folded_word in lexicon.MODALS and position + 1 < len(tokens) and tokens[position + 1].text[:1].isupper()
        return token.is_lower or (position == 0 and not name)
    if "'" in folded_word:
        return split_clitic(token) is not None
    if not token.is_lower:
        return False
    previous = tokens[position - 1].folded if position else ""
    if previous in lexicon.DETERMINERS or previous.endswith(("'s", "s'")):
        return False
    return folded_word in lexicon.IRREGULAR_PAST or folded_word in lexicon.PRESENT_VERBS or _looks_past(folded_word)


def _looks_past(folded_word: str) -> bool:
    return (folded_word.endswith("ed") and len(folded_word) >= 4 and folded_word.isalpha()
            and folded_word not in lexicon.ED_NON_VERBS)


def _is_participle(folded_word: str) -> bool:
    return folded_word in lexicon.IRREGULAR_PAST or _looks_past(folded_word)


def split_clitic(token: Token) -> tuple[str, str] | None:
    """Split "it's"/"we'll" into (host, clitic) when the clitic is a verb; None for "Australia's"."""
    host, mark, rest = token.folded.rpartition("'")
    if mark and host in lexicon.CLITIC_HOSTS and "'" + rest in lexicon.CLITIC_VERBS:
        return host, "'" + rest
    return None


def group_end(tokens: list[Token], head: int) -> int:
    """Index just past the verb group starting at `head` ("was originally designed")."""
    has_auxiliary = tokens[head].folded in lexicon.AUXILIARIES or split_clitic(tokens[head]) is not None
    probe = head + 1
    while probe < len(tokens) and tokens[probe].is_lower:
        folded_word = tokens[probe].folded
        if folded_word in lexicon.AUXILIARIES:
            has_auxiliary = True
        elif not (folded_word in lexicon.VERB_ADVERBS or folded_word.endswith("ly")
                  or (has_auxiliary and _is_participle(folded_word))):
            break
        probe += 1
    return probe


def _main_verb(tokens: list[Token], head: int, end: int) -> int:
    for probe in range(end - 1, head, -1):
        if tokens[probe].folded not in lexicon.VERB_ADVERBS and not tokens[probe].folded.endswith("ly"):
            return probe
    return head


def starts_verb_phrase(tokens: list[Token], h: int) -> bool:
    """Whether the word after "and"/"but" opens a verb phrase rather than a noun phrase."""
    if h >= len(tokens) or not tokens[h].is_lower:
        return False
    folded_word = tokens[h].folded
    if folded_word in lexicon.AUXILIARIES:
        return True
    if h + 1 >= len(tokens):
        return False
    if folded_word in lexicon.IRREGULAR_PAST or folded_word in lexicon.PRESENT_VERBS:
        return tokens[h + 1].folded not in lexicon.AUXILIARIES
    following = tokens[h + 1]
    return _looks_past(folded_word) and (
        following.folded in lexicon.DETERMINERS
        or following.folded in lexicon.VERB_FOLLOWERS
        or following.folded.endswith("ly")
        or not following.is_lower
    )


def carried_auxiliary(text: str, tokens: list[Token], verb: int, head: int | None) -> str | None:
    """The auxiliary a participle conjunct borrows: "was designed by X and [was] built by Y"."""
    if head is None or not _is_participle(tokens[head].folded) or tokens[head].folded in lexicon.AUXILIARIES:
        return None
    end = group_end(tokens, verb)
    main = _main_verb(tokens, verb, end)
    passive_by = head + 1 < len(tokens) and tokens[head + 1].folded == "by"
    if main > verb and _is_participle(tokens[main].folded):
        if not passive_by and tokens[head].folded in lexicon.INTRANSITIVE_PAST:
            return None
        return _verb_text(text, tokens, verb, main)
    if main == verb and tokens[head].folded in lexicon.ADJECTIVAL_PARTICIPLES and _be_form(tokens, verb):
        return _verb_text(text, tokens, verb, verb + 1)
    return None


def _be_form(tokens: list[Token], verb: int) -> bool:
    clitic = split_clitic(tokens[verb])
    return (lexicon.CLITIC_VERBS[clitic[1]] if clitic else tokens[verb].folded) in lexicon.BE_FORMS


def _verb_text(text: str, tokens: list[Token], verb: int, stop: int) -> str:
    """The words of tokens [verb, stop), with a leading "it's" reduced to its verb ("is")."""
    clitic = split_clitic(tokens[verb])
    if clitic is None:
        return " ".join(text[tokens[verb].start:tokens[stop - 1].end].split())
    rest = text[tokens[verb].end:tokens[stop - 1].end] if stop - 1 > verb else ""
    return " ".join((expand_clitic(tokens, verb) + rest).split())


def expand_clitic(tokens: list[Token], verb: int) -> str:
    """The verb a contraction stands for: "it's" -> "is", "it's been" -> "has", "we'll" -> "will"."""
    clitic = split_clitic(tokens[verb])
    if clitic is None:
        return tokens[verb].text
    following = tokens[verb + 1].folded if verb + 1 < len(tokens) else ""
    if clitic[1] == "'s" and following in {"been", "got"}:
        return "has"
    return lexicon.CLITIC_VERBS[clitic[1]]


def predicate_tokens(tokens: list[Token], verb: int | None) -> list[Token]:
    """The tokens after the verb group (all of them when there is no verb)."""
    return tokens if verb is None else tokens[group_end(tokens, verb):]
