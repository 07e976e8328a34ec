"""Passages that mention a statement without asserting it: questions, reports of claims, conditions.

A fact-check page restates the claim it examines ("Q: Did the city ban cars?"), a news item
reports what others said ("A viral post claimed that the city banned cars"), and a paper reasons
from a supposition ("If vitamin D does reduce the severity, supplements would help"). An
entailment model reads all three as support, because the claim's words are all there. None
asserts the claim, so none may support it. Deterministic, English-only heuristics.
"""

from __future__ import annotations

import re
from typing import Literal

Hearsay = Literal["question", "report", "condition"]
"""How a passage mentions a statement without asserting it."""

_ENDS_ASKING = re.compile(r"\?[\s\"'”’)\].]*$")
"""A sentence that ends in a question mark (closing quotes, brackets and a full stop after it allowed)."""
_QUESTION_LABEL = re.compile(r"^\s*(?:q\s*\d*|question\s*\d*)\s*[:.)-]", re.IGNORECASE)

_DOUBT_WORDS = (
    r"claim(?:s|ed|ing)?\s+(?:that|to)|alleg(?:e|es|ed|edly|ing|ation|ations)|purport(?:s|ed|edly)?|"
    r"rumou?r(?:s|ed)?|hoax(?:es)?|myths?|misinformation|disinformation|conspiracy\s+theor(?:y|ies)|"
    r"debunk(?:s|ed|ing)?|fact[\s-]?check(?:s|ed|ers?|ing)?|false(?:ly)?\s+(?:claim|said|stated|report)|"
    r"misleading|unfounded|unsubstantiated|baseless|viral\s+(?:post|claim|video|image|message)|"
    r"(?:posts?|users?|tweets?|memes?|messages?)\s+(?:on\s+\w+\s+)?(?:claim|say|said|suggest|share)"
)
_DOUBT = re.compile(rf"\b(?:{_DOUBT_WORDS})", re.IGNORECASE)
_CONDITIONAL_CLAIM = re.compile(r"\b(?:if|unless|provided|as long as|whether|when|once)\b", re.IGNORECASE)
_CONDITION = re.compile(r"[\s\"'“(]*(?:if|unless|suppose|supposing|assuming|whether|provided that)\b", re.IGNORECASE)


def is_question(passage: str) -> bool:
    """Whether the passage is, or holds, a question ("Q: Did X ...?", '"Ask the experts: is X true?".').

    A question asks about its statement; it never asserts it. A passage of several sentences
    counts when any of them is a question: its statement is then the question's.
    """
    for sentence in re.split(r"(?<=[.!?])\s+", passage.strip()):
        text = sentence.strip()
        if not text:
            continue
        if _QUESTION_LABEL.match(text) or _ENDS_ASKING.search(text):
            return True
    return False


def reports_doubtful_claim(passage: str) -> bool:
    """Whether the passage reports a statement as someone's claim, rumour or myth, or as fact-checked."""
    return _DOUBT.search(passage) is not None


def is_conditional(passage: str) -> bool:
    """Whether a sentence of the passage opens with a condition ("If X does reduce Y, ..."): it asserts no X."""
    return any(_CONDITION.match(sentence) for sentence in re.split(r"(?<=[.!?])\s+", passage.strip()))


def hearsay(passage: str, claim: str = "") -> Hearsay | None:
    """How the passage mentions a statement without asserting it (a question, a report, a condition), or None.

    A condition counts only against a `claim` that states no condition of its own: "You get a
    refund if you return it within 30 days" is what "If you return it within 30 days, you get a
    refund" says.
    """
    if is_question(passage):
        return "question"
    if reports_doubtful_claim(passage):
        return "report"
    if is_conditional(passage) and not _CONDITIONAL_CLAIM.search(claim):
        return "condition"
    return None
