"""Framing: words around a statement that vouch for it without changing what it says.

"As everyone knows, X", "It's a well-known fact that X", "Numerous studies have shown that X",
"Honestly, X", "X, of course", "X, right?" and "Did you know that X?" all make the claim X.
Framing is stripped before the claim is judged, so a confident frame cannot change a verdict and a
tag question cannot hide a claim. The frames are built from word classes (who vouches, how, with
which verb or adjective), not from a list of fixed phrases, so that unseen combinations of the
same parts are recognised too. Deterministic, English-only.
"""

from __future__ import annotations

import re

from veracity.offline.extract.lexicon import phrase_pattern
from veracity.offline.judge.entities import named_entities

_VOUCHING_ADVERBS = (
    r"obviously|clearly|certainly|surely|undoubtedly|unquestionably|indisputably|undeniably|evidently|plainly|"
    r"definitely|absolutely|honestly|frankly|truly|truthfully|really|indeed|actually|naturally|basically|"
    r"essentially|admittedly|literally|seriously|famously|notably|interestingly|importantly|remarkably|"
    r"of\s+course|in\s+fact|in\s+reality|in\s+truth|as\s+a\s+matter\s+of\s+fact|for\s+the\s+record|"
    r"without\s+(?:a|any)\s+doubt|without\s+question|beyond\s+(?:a|any)\s+doubt|no\s+doubt|for\s+sure|"
    r"needless\s+to\s+say|believe\s+it\s+or\s+not|make\s+no\s+mistake|mind\s+you|"
    r"to\s+be\s+(?:honest|clear|fair|sure|frank)|(?:let's|let\s+us)\s+be\s+(?:honest|clear|real|frank)|"
    r"(?:fun|interesting|quick|little[\s-]known)\s+fact|trust\s+me|believe\s+me|let\s+me\s+tell\s+you|"
    r"the\s+(?:truth|fact|reality|thing)\s+is|truth\s+be\s+told|to\s+tell\s+(?:you\s+)?the\s+truth|"
    r"in\s+all\s+honesty|(?:let's\s+)?face\s+it|no\s+(?:doubt|question)\s+about\s+it|you\s+know\s+what|"
    r"(?:frankly|honestly|generally|broadly|truthfully)\s+speaking|period|full\s+stop|end\s+of\s+story|true\s+story|"
    r"fact"
)
"""Sentence adverbs and set phrases that only vouch for what follows ("Honestly,", "Of course")."""

_BARE_ADVERBS = (
    r"obviously|clearly|certainly|surely|undoubtedly|unquestionably|indisputably|undeniably|evidently|definitely|"
    r"of\s+course|in\s+fact|indeed|honestly|frankly|actually|admittedly|famously"
)
"""Vouching adverbs that are also stripped with no comma after them ("Surely the tower is ...")."""
_STATEMENT_OPENING = r"(?:(?:the|a|an|this|that|these|those|its|his|her|their|our|my|there|it)\b|(?-i:[A-Z0-9]))"

_CLAUSE_VERBS = (
    r"knows?|knew|agrees?|agreed|remembers?|remembered|understands?|understood|(?:is|are|was|were)\s+(?:well\s+)?aware"
)
"""Knowing verbs that vouch even with no "that" after them ("Everyone knows the tower is ...")."""

_KNOWING_VERBS = (
    r"knows?|knew|known|agrees?|agreed|confirms?|confirmed|shows?|showed|shown|proves?|proved|proven|"
    r"demonstrates?|demonstrated|establish(?:es|ed)?|finds?|found|acknowledges?|acknowledged|accepts?|accepted|"
    r"recogni[sz]es?|recogni[sz]ed|understands?|understood|reali[sz]es?|reali[sz]ed|remembers?|remembered|"
    r"admits?|admitted|says?|said|tells?\s+us|told\s+us|teaches|taught\s+us|indicates?|indicated|"
    r"reports?|reported|documents?|documented|(?:is|are|was|were)\s+(?:well\s+)?aware|"
    r"(?:tells?|told|will\s+tell|can\s+tell|would\s+tell)\s+(?:you|us)|(?:will|would|can|could)\s+(?:confirm|agree|say)|"
    r"heard|read|seen|learned|learnt|noted|mentioned|explained|stated|expected"
)
"""Verbs by which someone vouches for a statement ("everyone knows", "studies have shown")."""

_VOUCHERS = (
    r"(?:everyone|everybody|we\s+all|all\s+of\s+us|you|people|most\s+people|many\s+people|the\s+world|"
    r"(?:(?:the|numerous|many|several|multiple|countless|recent|all|most|leading|top|the\s+best)\s+)?"
    r"(?:studies|research|researchers|science|scientists|experts|doctors|historians|specialists|the\s+data|data|"
    r"evidence|the\s+evidence|history|surveys|polls|records|sources|reports|statistics|the\s+numbers|"
    r"the\s+records|analysts|economists|everyone\s+who\s+knows))"
)
"""Who is said to vouch: everyone, people, studies, experts, history, the data ..."""

_HELPERS = (
    r"(?:(?:has|have|had|can|could|will|would|now|all|already|long|since|generally|widely|clearly|repeatedly|"
    r"consistently|conclusively)\s+)*"
)

_IT_IS = (
    r"(?:it(?:\s+is|'s|\s+was|\s+has|\s+had|\s+remains)"
    r"(?:\s+(?:long|always|now|since|widely|generally|already|clearly|repeatedly))*(?:\s+been)?)"
)
_VOUCHED_STATES = (
    r"(?:(?:well|widely|generally|commonly|universally|long|scientifically|historically)[\s-]+)?"
    r"(?:known|accepted|acknowledged|established|proven|proved|confirmed|documented|recogni[sz]ed|understood|"
    r"agreed|reported|shown|demonstrated)"
    r"|(?:a|an|the)\s+(?:(?:well[\s-]known|known|established|proven|undeniable|indisputable|simple|basic|"
    r"historical|scientific|documented|plain|hard|cold|sad|interesting|little[\s-]known|accepted)\s+)*(?:fact|truth)"
    r"|(?:absolutely\s+|quite\s+|very\s+|perfectly\s+|completely\s+)?"
    r"(?:true|clear|obvious|evident|certain|undeniable|indisputable|unquestionable|apparent|plain|beyond\s+(?:dispute|doubt|question)|"
    r"no\s+(?:secret|surprise|wonder|mystery|exaggeration)|common\s+(?:knowledge|sense)|a\s+given)"
)
"""What "it is ... that" may say of a statement without changing it: known, a fact, true, clear ..."""

LEADING_FRAME = phrase_pattern(
    rf"(?:(?:{_VOUCHING_ADVERBS})\s*[,:;—–-]\s*"
    rf"|(?:{_BARE_ADVERBS})\s+(?={_STATEMENT_OPENING})"
    rf"|as\s+(?:(?!as\b)[^\s,;:]+\s+){{0,4}}?(?:{_KNOWING_VERBS})(?:\s+(?:it|that|this))?(?:\s+many\s+times)?\s*[,:—–-]\s*"
    rf"|as\s+is\s+(?:{_VOUCHED_STATES})\s*,\s*"
    rf"|{_VOUCHERS}\s+{_HELPERS}(?:{_KNOWING_VERBS})(?:\s+(?:(?:beyond|without)\s+(?:a|any)\s+doubt|conclusively|"
    rf"clearly|repeatedly|long\s+ago))?(?:\s+that\b\s*|\s*[,:]\s*)"
    rf"|{_VOUCHERS}\s+{_HELPERS}(?:{_CLAUSE_VERBS})\s+(?={_STATEMENT_OPENING})"
    rf"|{_IT_IS}\s+(?:{_VOUCHED_STATES})\s+that\b\s*"
    rf"|it\s+goes\s+without\s+saying(?:\s+that\b)?\s*,?\s*"
    rf"|(?:there\s+is|there's)\s+no\s+(?:doubt|denying|question|arguing\s+with\s+the\s+fact)(?:\s+that\b)?\s*,?\s*"
    rf"|(?:no\s+one|nobody)\s+(?:can\s+|could\s+|would\s+)?(?:deny|denies|doubt|doubts|disputes?)(?:\s+that\b)?\s*,?\s*"
    rf"|(?:i|we)\s+can\s+(?:tell|assure|promise)\s+you(?:\s+that\b)?\s*,?\s*"
    rf"|(?:let\s+me|allow\s+me\s+to)\s+(?:tell|remind|assure)\s+you(?:\s+that\b)?\s*,?\s*"
    rf"|(?:i'm|i\s+am|we're|we\s+are)\s+(?:absolutely\s+|quite\s+|very\s+|100%\s+)?(?:sure|certain|confident|positive)"
    rf"(?:\s+that\b)?\s*,?\s*"
    rf"|(?:you\s+(?:should|must|might|may)\s+(?:already\s+)?know|don't\s+forget|never\s+forget)(?:\s+that\b)?\s*,?\s*"
    rf"|(?:it's|it\s+is)\s+worth\s+(?:noting|remembering|mentioning|knowing)(?:\s+that\b)?\s*,?\s*"
    rf"|(?:it's|it\s+is|it\s+would\s+be)\s+(?:no\s+exaggeration|safe|fair|accurate|correct|true)\s+to\s+say"
    rf"(?:\s+that\b)?\s*,?\s*"
    rf"|(?P<generic>(?:(?!that\b)[^\W\d_][^\s,;:]*\s+){{1,7}}?)(?:{_KNOWING_VERBS})\s+that\b\s*"
    rf"|according\s+to\s+(?P<according>(?:[^\W\d_][^\s,;:]*\s*){{1,5}}?)\s*,\s*)",
)
"""A frame before the statement. Applied repeatedly ("Honestly, as everyone knows, X")."""

TRAILING_FRAME = phrase_pattern(
    rf"\s*[,;—–-]\s*(?:(?:{_VOUCHING_ADVERBS})"
    rf"|as\s+(?:(?!as\b)[^\s,;:]+\s+){{0,4}}?(?:{_KNOWING_VERBS})(?:\s+(?:it|that|this))?"
    rf"|as\s+is\s+(?:{_VOUCHED_STATES})"
    rf"|(?:and\s+)?(?:{_VOUCHERS})\s+{_HELPERS}(?:{_KNOWING_VERBS})(?:\s+(?:that|it|this))?"
    rf"|you\s+know|i\s+(?:promise|assure\s+you|tell\s+you|swear)|trust\s+me|believe\s+me|no\s+question"
    rf"|(?:and\s+)?(?:that's|that\s+is|this\s+is|that\s+much\s+is|it's|it\s+is)\s+(?:(?:a|an)\s+"
    rf"(?:(?:established|undeniable|known|simple|plain)\s+)?(?:fact|given)|for\s+sure|certain|true|clear|obvious|"
    rf"undeniable|beyond\s+doubt))\s*$",
)
"""A frame after the statement: "X, of course.", "X, as everyone knows.", "X — studies confirm it."."""

_PRONOUNS = r"(?:it|they|he|she|we|you|there|that|this|these|those|i)"
_AUXILIARIES = (
    r"(?:is|are|was|were|am|does|do|did|has|have|had|will|would|can|could|should|shall|must|might|may)"
)
TAG_QUESTION = phrase_pattern(
    rf"\s*[,;—–-]?\s*(?:(?:right|correct|true|yes|no|eh|ok|okay|agreed|huh|yeah|innit|no\s+doubt)"
    rf"|(?:am\s+i|are\s+we)\s+(?:right|correct|wrong)"
    rf"|{_AUXILIARIES}n't\s+{_PRONOUNS}|ain't\s+{_PRONOUNS}|{_AUXILIARIES}\s+{_PRONOUNS}(?:\s+not)?"
    rf"|(?:wouldn't|don't|do|would|won't|will|can't|couldn't)\s+you\s+(?:agree|say|think|admit)"
    rf"|(?:isn't|is|wasn't|was)\s+(?:that|it|this)\s+(?:so|right|true|correct|a\s+fact)"
    rf"|(?:true|right)\s+or\s+(?:false|not|wrong)|yes\s+or\s+no|if\s+i'm\s+not\s+mistaken|you\s+know)\s*$",
)
"""A tag that makes a statement a question ("..., right?", "..., wouldn't you agree?"); the statement is a claim."""

LEADING_QUESTION = phrase_pattern(
    r"(?:(?:did|do|didn't|don't)\s+you\s+(?:know|realise|realize|remember|hear)(?:\s+that\b)?"
    r"|(?:isn't|wasn't|is\s+it\s+not)\s+it\s+(?:true|a\s+fact|obvious|clear)\s+that"
    r"|(?:is\s+it\s+not|isn't\s+it)\s+(?:true|a\s+fact)\s+that"
    r"|(?:wouldn't|don't)\s+you\s+agree\s+that)\s*,?\s*",
)
"""A question whose content is asserted ("Did you know that X?", "Isn't it true that X?"): X is a claim."""

_MAX_FRAMES = 4


def strip_leading_frames(text: str, start: int, end: int) -> int:
    """Where the statement begins once every leading frame is stripped (`start` when there is none).

    Nothing is stripped when no statement would be left.
    """
    for _ in range(_MAX_FRAMES):
        frame = LEADING_FRAME.match(text, start, end)
        if frame is None or not _has_words(text, frame.end(), end, 2) or _names_a_source(frame):
            break
        start = frame.end()
    return start


def _names_a_source(frame: re.Match[str]) -> bool:
    """Whether a frame with a free-form subject attributes the statement to someone named.

    "Any expert will confirm that X" only vouches for X; "Einstein said that X" is a claim about
    what Einstein said, and stays whole.
    """
    if not (frame.group("generic") or frame.group("according")):
        return False
    return bool(named_entities(frame.group(0)))




def strip_trailing_frames(text: str, start: int, end: int) -> int:
    """Where the statement ends once every trailing frame is stripped (`end` when there is none)."""
    for _ in range(_MAX_FRAMES):
        frame = TRAILING_FRAME.search(text, start, end)
        if frame is None or not _has_words(text, start, frame.start(), 2):
            break
        end = frame.start()
    return end


def tag_question_start(text: str, start: int, end: int) -> int | None:
    """Where a tag that turns the statement into a question begins, or None without one."""
    tag = TAG_QUESTION.search(text, start, end)
    if tag is None or not _has_words(text, start, tag.start(), 2):
        return None
    return tag.start()


def asserted_question_start(text: str, start: int, end: int) -> int | None:
    """Where the asserted statement of a leading question ("Did you know that X?") begins, or None."""
    frame = LEADING_QUESTION.match(text, start, end)
    if frame is None or not _has_words(text, frame.end(), end, 2):
        return None
    return frame.end()


_WORD = re.compile(r"[^\W_]+")


def _has_words(text: str, start: int, end: int, count: int) -> bool:
    return len(_WORD.findall(text, start, end)) >= count
