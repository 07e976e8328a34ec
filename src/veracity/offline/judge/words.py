"""Words for the lexical signals: tokens, rough stems, function words, and how much wording two texts share.

All functions are deterministic, English-only heuristics with no model behind them.
"""

from __future__ import annotations

import functools
import re

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

MONTHS = {
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
}
WEEKDAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
"""Month names and abbreviations, and weekday names: calendar words, not names of things."""

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+(?:[.,]\d+)*")
_CLITIC = re.compile(r"['’](?:s|ll|re|ve|d|m)$")


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
    return tuple(part for token in _WORD.findall(text) for part in split_token(token))


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
def split_token(token: str) -> tuple[str, ...]:
    """One word token as words: "isn't" -> ("is", "not"), "cannot" -> ("can", "not"), clitics dropped."""
    lowered = token.lower().replace("’", "'")
    if lowered.endswith("n't"):
        head = lowered[:-3]
        return (head, "not") if head else ("not",)
    if lowered == "cannot":
        return ("can", "not")
    return (_CLITIC.sub("", lowered),)
