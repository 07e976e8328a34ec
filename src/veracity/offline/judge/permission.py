"""Permissions and prohibitions: a claim that permits what a passage forbids outright, or the reverse.

"Sale items can be returned within 30 days" against "Sale items are final and cannot be returned":
the passage forbids returning sale items without any limit, so every permission to return them
contradicts it. The rule reads one clause of each text as a *stance*: who (the subject), may or may
not (the modal), do what (the action), and how (the rest of the clause). Two stances conflict when
the subject and the action are the same, one permits and the other forbids, the prohibition has no
limit of its own ("cannot be returned after 30 days" limits it: no conflict with "can be returned
within 30 days"), and the permission covers at least what the prohibition names ("cannot park in
lot A" conflicts with "can park in lot A on Sundays", not with "can park in lot B").

Deterministic, English-only and deliberately narrow: a stance it cannot read gives no signal.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from veracity.offline.judge.words import STOPWORDS, content_stems, stem

_MODALS: tuple[tuple[str, bool], ...] = (
    (r"can\s*not|can't|cannot|may not|must not|mustn't|must never|may never|can never|shall not", False),
    (r"(?:is|are) not (?:allowed|permitted|entitled|eligible) to", False),
    (r"(?:is|are) (?:prohibited|forbidden|barred|banned) from", False),
    (r"(?:is|are) (?:forbidden|prohibited) to", False),
    (r"(?:is|are) (?:allowed|permitted|entitled|eligible|free) to", True),
    (r"can|may", True),
)
_MODAL = re.compile(r"\b(?:" + "|".join(f"(?P<m{i}>{pattern})" for i, (pattern, _) in enumerate(_MODALS)) + r")\b",
                    re.IGNORECASE)
_PASSIVE = re.compile(r"\b(?:is|are)\s+(?P<negated>not\s+)?(?P<word>allowed|permitted|prohibited|forbidden|banned)\b"
                      r"(?!\s+(?:to|from)\b)", re.IGNORECASE)
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")
_FORBIDDING_WORDS = frozenset({"prohibited", "forbidden", "banned"})
_FIRST_VERB = re.compile(
    r"\b(?:is|are|was|were|will|shall|must|can|cannot|can't|may|might|should|would|could|do|does|did|has|have|had)\b",
    re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[;:]|\bbut\b|\bwhereas\b|,\s*(?:while|although|though)\b", re.IGNORECASE)
_FILLERS = frozenset({"be", "also", "still", "always", "ever", "now", "then", "freely", "further", "get", "have"})
_CONDITIONAL_STARTS = frozenset({"if", "when", "unless", "although", "though", "once", "whether", "whenever",
                                 "should", "until", "before", "after", "while"})
LIMITS = frozenset({
    "after", "before", "unless", "except", "excepting", "without", "beyond", "until", "till", "outside", "only",
    "if", "once", "more", "longer", "later", "earlier", "within", "than", "during", "while", "when", "whose",
    "which", "that", "where", "unsupervised", "alone", "past", "less", "fewer", "first",
})
"""Words that limit a prohibition to some cases: a limited prohibition contradicts no permission here."""
_ARTICLES = frozenset({"a", "an", "the"})
_GENERIC = frozenset({"any", "anyone", "anybody", "anything", "anywhere", "ever", "time", "times", "all",
                      "circumstance", "circumstances", "case", "cases", "way", "ways",
                      "reason", "whatsoever"})
"""Words that widen a clause rather than narrow it ("at any time", "under any circumstances")."""


@dataclass(frozen=True)
class Stance:
    """One clause read as: `subject` may (`permits`) or may not do `action`, with `scope` and `limited`."""

    subject: frozenset[str]
    action: str
    action_word: str
    permits: bool
    scope: frozenset[str]
    limited: bool
    wording: frozenset[str]
    """Every word of the rest of the clause but articles, limits included (stems)."""


@dataclass(frozen=True)
class PermissionConflict:
    """A claim that permits what the passage forbids outright, or forbids what it permits."""

    action: str
    forbidden_in: str

    def describe(self) -> str:
        """E.g. "permission conflict: the evidence forbids 'returned' outright, the claim permits it"."""
        other = "claim" if self.forbidden_in == "evidence" else "evidence"
        return (f"permission conflict: the {self.forbidden_in} forbids {self.action!r} outright, "
                f"the {other} permits it")


def stances(text: str) -> list[Stance]:
    """Every clause of `text` that reads as a permission or a prohibition."""
    found = []
    for clause in _CLAUSE_BREAK.split(text):
        stance = _stance(clause)
        if stance is not None:
            found.append(stance)
    return found


def permission_conflict(claim: str, passage: str) -> PermissionConflict | None:
    """The conflict between a stance of `claim` and one of `passage`, or None (see the module docstring)."""
    for said in stances(claim):
        for found in stances(passage):
            if said.permits == found.permits or said.subject != found.subject or said.action != found.action:
                continue
            forbidding, permitting = (found, said) if said.permits else (said, found)
            if forbidding.limited:
                covered = forbidding.wording <= permitting.wording
            else:
                covered = forbidding.scope <= permitting.scope
            if covered:
                return PermissionConflict(action=forbidding.action_word,
                                          forbidden_in="evidence" if forbidding is found else "claim")
    return None


def _stance(clause: str) -> Stance | None:
    """The stance of one clause, limited by a leading condition; None when the clause takes none."""
    condition = _condition(clause)
    stance = _unconditional_stance(clause[len(condition):])
    if stance is None or not condition:
        return stance
    # "If it rains, guests cannot use the pool": the condition limits the stance, and is part of its wording.
    return dataclasses.replace(stance, limited=True, wording=stance.wording | _stems(condition))


def _condition(clause: str) -> str:
    """A leading conditional clause ending in a comma ("If it rains, "), or ""."""
    head, comma, _ = clause.partition(",")
    words = _words(head)
    return head + comma if comma and words and words[0] in _CONDITIONAL_STARTS else ""


def _unconditional_stance(clause: str) -> Stance | None:
    modal = _MODAL.search(clause)
    if modal is not None:
        permits = _MODALS[int(next(k for k, v in modal.groupdict().items() if v)[1:])][1]
        subject = _subject(clause[:modal.start()])
        rest = _TOKEN.findall(clause[modal.end():])
        while rest and rest[0].lower() in _FILLERS:
            rest = rest[1:]
        if subject is None or not rest or rest[0].lower() in STOPWORDS or rest[0].lower() == "not":
            return None
        return _read(subject, rest[0].lower(), permits, rest[1:])
    passive = _PASSIVE.search(clause)
    if passive is None:
        return None
    subject = _subject(clause[:passive.start()])
    if subject is None:
        return None
    forbids = (passive["word"].lower() in _FORBIDDING_WORDS) != bool(passive["negated"])
    # "Smoking is not allowed": the subject is itself the action.
    stance = _read(subject, "", not forbids, _TOKEN.findall(clause[passive.end():]))
    return dataclasses.replace(stance, action_word=clause[:passive.start()].rsplit(",", 1)[-1].strip())


def _read(subject: frozenset[str], action: str, permits: bool, rest: list[str]) -> Stance:
    lowered = [token.lower() for token in rest]
    limited = any(word in LIMITS for word in lowered) or any(word.isdigit() for word in lowered)
    # A capital letter or a digit names something ("lot A", "gate 3"): it is part of the scope.
    scope = frozenset(stem(word) for word, token in zip(lowered, rest, strict=True)
                      if (word not in STOPWORDS or token.isupper() or word.isdigit()) and word not in _GENERIC)
    wording = _stems(" ".join(rest))
    return Stance(subject=subject, action=stem(action) if action else "", action_word=action, permits=permits,
                  scope=scope, limited=limited, wording=wording)


def _subject(before: str) -> frozenset[str] | None:
    """The content words of the clause's subject: what precedes its first verb, after any leading comma."""
    head = before.rsplit(",", 1)[-1]  # "However, sale items ..."
    verb = _FIRST_VERB.search(head)
    if verb is not None:
        head = head[:verb.start()]
    words = _words(head)
    if not words or words[0] in _CONDITIONAL_STARTS or any(w in LIMITS - {"only"} for w in words):
        return None
    stems = frozenset(content_stems(head))
    return stems or None


def _stems(text: str) -> frozenset[str]:
    """Every word of `text` but articles and widening words, as stems."""
    return frozenset(stem(word) for word in _words(text) if word not in _ARTICLES and word not in _GENERIC)


def _words(text: str) -> list[str]:
    return [token.lower() for token in _TOKEN.findall(text)]
