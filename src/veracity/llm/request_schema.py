"""Request schemas: the JSON schema sent to the model is its contract's, bounded by what this call can hold.

A server that enforces the schema (llama.cpp and vLLM compile it into a grammar) then cannot
generate a string or a list without end, and the judge can only name an evidence id that was
retrieved. The bounds follow from the contracts: a `source` or a `quote` is copied from a text,
so it is no longer than that text. They are a guide for the server, never the validation: the
gates still check every answer against the pydantic contracts and the texts. Each step bounds
its own: `extraction_schema` in `nodes/extract.py`, `judge_schema` in `nodes/judge.py`.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel


def contract_schema(contract: type[BaseModel]) -> dict[str, Any]:
    """A copy of `contract`'s JSON schema, for one request to bound."""
    return copy.deepcopy(contract.model_json_schema())


def property_schema(schema: dict[str, Any], definition: str | None, name: str) -> dict[str, Any]:
    """The schema of property `name` of the model `definition` in `schema` (None: of the top-level model)."""
    owner = schema["$defs"][definition] if definition else schema
    prop: dict[str, Any] = owner["properties"][name]
    return prop


def bound_string(prop: dict[str, Any], chars: int) -> None:
    """Bound a string property, or the string branch of a string-or-null one, to `chars` characters."""
    branches = prop.get("anyOf")
    for branch in branches if branches else [prop]:
        if branch.get("type") == "string":
            branch["maxLength"] = max(1, chars)
