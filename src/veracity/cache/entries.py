"""The shapes of cached values: what the cache writes, and all it accepts back.

An entry read back is validated against the shape its kind was written in; anything else is
treated as a miss.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, model_validator

from veracity.contracts import SearchHit


class StoredMessage(BaseModel):
    """A chat message as LangChain's `message_to_dict` writes it."""

    model_config = ConfigDict(extra="forbid")

    type: str
    data: dict[str, Any]


class StoredGeneration(BaseModel):
    """One generation of a kept model answer: a chat message, or plain text, with its generation info."""

    model_config = ConfigDict(extra="forbid")

    message: StoredMessage | None = None
    text: str | None = None
    info: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _message_or_text(self) -> StoredGeneration:
        if (self.message is None) == (self.text is None):
            raise ValueError("a kept generation holds either a message or a text")
        return self


MODEL_ANSWER: TypeAdapter[list[StoredGeneration]] = TypeAdapter(list[StoredGeneration])
"""A kept model answer: its generations."""

SEARCH_ANSWER: TypeAdapter[list[SearchHit]] = TypeAdapter(list[SearchHit])
"""A kept search answer: its hits."""
