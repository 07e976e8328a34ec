"""Turn a raw model payload (tool-call arguments or message text) into a validated contract."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

Contract = TypeVar("Contract", bound=BaseModel)

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL | re.IGNORECASE)


def _as_json(payload: Any) -> Any:
    if isinstance(payload, list):  # content blocks
        payload = "".join(
            block.get("text", "") if isinstance(block, dict) else str(block) for block in payload
        )
    if not isinstance(payload, str):
        return payload
    text = payload.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    if not text:
        raise ValueError("the answer was empty; a JSON object was expected")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the answer is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from exc


def validate_payload(payload: Any, contract: type[Contract]) -> tuple[Contract | None, str | None]:
    """Validate `payload` against `contract`; return (object, None) or (None, exact error text)."""
    try:
        data = _as_json(payload)
    except ValueError as exc:
        return None, str(exc)
    try:
        return contract.model_validate(data), None
    except ValidationError as exc:
        return None, str(exc)
