"""The JSON schemas sent to the model: each contract's schema, bounded by what this call can hold.

A server that enforces the schema (llama.cpp and vLLM compile it into a grammar) then cannot
generate a string or a list without end, and the judge can only name an evidence id that was
retrieved. The bounds follow from the contracts: a `source` or a `quote` is copied from a text,
so it is no longer than that text. They are a guide for the server, never the validation: the
gates still check every answer against the pydantic contracts and the texts.
"""

from __future__ import annotations

import copy
from typing import Any

from veracity.contracts import Evidence, ExtractionOutput, JudgeOutput

REASON_CHARS = 600
"""A judge's reason is one or two sentences."""

QUERY_CHARS = 200
"""A counter-query is a short search query."""

CLAIM_MARGIN_CHARS = 200
"""A claim may restate its source with names put in for pronouns."""

WORDS_PER_CLAIM = 3
"""The fewest words of text one claim can come from ("Paris is French" is three)."""

RUN_CHARS_PER_WORD = 4
"""In a run of text longer than `LONG_RUN` characters without a space (scripts written without spaces,
"巴黎是法国的首都。"), every this many characters count as one word."""

LONG_RUN = 12


def _property(schema: dict[str, Any], definition: str | None, name: str) -> dict[str, Any]:
    owner = schema["$defs"][definition] if definition else schema
    prop: dict[str, Any] = owner["properties"][name]
    return prop


def _bound_string(prop: dict[str, Any], chars: int) -> None:
    """Bound a string property, or the string branch of a string-or-null one, to `chars` characters."""
    branches = prop.get("anyOf")
    for branch in branches if branches else [prop]:
        if branch.get("type") == "string":
            branch["maxLength"] = max(1, chars)


def word_count(text: str) -> int:
    """The words of `text`: whitespace-separated, a long run without spaces counting one per 4 characters.

    The bound on claims must stay tight (a small model given room repeats its list until its
    token cap) but must not hold a text in a script without spaces to a single claim.
    """
    runs = text.split()
    return sum(len(run) // RUN_CHARS_PER_WORD if len(run) > LONG_RUN else 1 for run in runs)


def statement_limit(text: str) -> int:
    """The most claims (and the most skipped statements) an extraction of `text` may list: one per three words.

    The request schema sends it as `maxItems`; the extraction gate rejects a model's answer with more
    claims than that, so a server that ignores the schema cannot fan a check out into thousands.
    """
    return word_count(text) // WORDS_PER_CLAIM + 1


def extraction_schema(text: str) -> dict[str, Any]:
    """`ExtractionOutput`'s schema for extracting claims from `text`.

    Passages are no longer than the text, and there are no more claims (or skipped statements)
    than `statement_limit` allows.
    """
    schema = copy.deepcopy(ExtractionOutput.model_json_schema())
    length = len(text)
    _bound_string(_property(schema, "ExtractedClaim", "claim"), length + CLAIM_MARGIN_CHARS)
    _bound_string(_property(schema, "ExtractedClaim", "source"), length)
    _bound_string(_property(schema, "ExtractedClaim", "counter_query"), QUERY_CHARS)
    _bound_string(_property(schema, "SkippedStatement", "source"), length)
    statements = statement_limit(text)
    schema["properties"]["claims"]["maxItems"] = statements
    schema["properties"]["skipped"]["maxItems"] = statements
    return schema


def judge_schema(evidence: list[Evidence]) -> dict[str, Any]:
    """`JudgeOutput`'s schema for judging a claim against `evidence`.

    The reason is short, the evidence id is one that was retrieved (or none), and the quote is no
    longer than the longest evidence text.
    """
    schema = copy.deepcopy(JudgeOutput.model_json_schema())
    _bound_string(_property(schema, None, "reason"), REASON_CHARS)
    ids = [item.id for item in evidence]
    schema["properties"]["evidence_id"]["anyOf"] = [{"enum": ids}, {"type": "null"}] if ids else [{"type": "null"}]
    longest = max((len(item.text) for item in evidence), default=0)
    if longest:
        _bound_string(_property(schema, None, "quote"), longest)
    else:
        schema["properties"]["quote"]["anyOf"] = [{"type": "null"}]
    return schema
