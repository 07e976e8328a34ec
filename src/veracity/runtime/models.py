"""Chat-model plumbing: resolve a model from settings, and ask it for a structured payload.

The raw payload is returned unvalidated: validation belongs to the gate nodes, which
send the exact error back to the model when it fails.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from langchain_core.caches import BaseCache
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel

from veracity.cache.outcomes import CacheOutcome, observe_cache, overall
from veracity.errors import ConfigurationError


@dataclass(frozen=True)
class ModelReply:
    """A model's answer: the payload to validate, the tokens it cost, and whether the cache gave it."""

    payload: Any
    tokens_in: int
    tokens_out: int
    cache: CacheOutcome | None = None
    """'hit' (answered from the cache, costing no tokens), 'miss', or None when no cache was asked."""


def init_model(spec: str, *, temperature: float = 0.0, cache: BaseCache | bool | None = None) -> BaseChatModel:
    """Create a chat model from a 'provider:model' string, with a clear error when unconfigured.

    An OpenAI-compatible server is reached by setting `OPENAI_BASE_URL`; local servers often
    need no real key, so any non-empty `OPENAI_API_KEY` will do there. `cache` is LangChain's
    model setting: a cache object, False for none, None for LangChain's global one.
    """
    from langchain.chat_models import init_chat_model

    provider = spec.split(":", 1)[0] if ":" in spec else ""
    if provider == "openai" and not os.environ.get("OPENAI_API_KEY"):
        raise ConfigurationError(
            f"model {spec!r} needs OPENAI_API_KEY. Set it (for an OpenAI-compatible local server, "
            "set OPENAI_BASE_URL too, and any non-empty key), or choose another model with "
            "--model provider:name."
        )
    try:
        return init_chat_model(spec, temperature=temperature, cache=cache)
    except Exception as exc:  # provider packages raise many kinds of errors here
        raise ConfigurationError(f"cannot create chat model {spec!r}: {exc}") from exc


@functools.cache
def _json_schema(schema: type[BaseModel]) -> dict[str, Any]:
    return schema.model_json_schema()


def _supports_tools(model: BaseChatModel) -> bool:
    return type(model).bind_tools is not BaseChatModel.bind_tools


def _usage(message: BaseMessage | None) -> tuple[int, int]:
    usage = getattr(message, "usage_metadata", None) or {}
    return int(usage.get("input_tokens", 0) or 0), int(usage.get("output_tokens", 0) or 0)


def _payload_of(message: BaseMessage | None) -> Any:
    if isinstance(message, AIMessage) and message.tool_calls:
        return message.tool_calls[0].get("args")
    return message.content if message is not None else None


class ModelTimeout(TimeoutError):
    """The chat model did not answer within the per-call limit (`Context.model_timeout`)."""


@asynccontextmanager
async def answer_within(seconds: float) -> AsyncIterator[None]:
    """Cancel the model call inside after `seconds` and raise `ModelTimeout`.

    A model that never answers would otherwise hold the check for ever; the node counts the
    timeout as one failed attempt, and the gate retries or records a typed failure.
    """
    try:
        async with asyncio.timeout(seconds):
            yield
    except TimeoutError:
        raise ModelTimeout(f"the model did not answer within {seconds:g} s (model_timeout)") from None


async def ask_structured(
    model: BaseChatModel, messages: list[BaseMessage], schema: type[BaseModel], *, run_name: str | None = None
) -> ModelReply:
    """Ask `model` for an answer shaped like `schema` and return the unvalidated payload.

    Models that implement tool calling get `with_structured_output(include_raw=True)`; the
    rest are asked for JSON in the prompt. Either way the payload is the raw tool-call
    arguments or message text. `run_name` names the call in LangSmith traces.

    The schema is passed as a plain JSON-schema dict, not the pydantic class: given a
    class, some clients (the OpenAI SDK's `parse`) validate inside the call and raise,
    which would hide the reply and its token usage from the gate.
    """
    config: RunnableConfig = {"run_name": run_name or schema.__name__, "tags": [f"veracity:{schema.__name__}"]}
    raw: BaseMessage | None
    with observe_cache() as seen:
        if _supports_tools(model):
            runnable = model.with_structured_output(_json_schema(schema), include_raw=True)
            result = await runnable.ainvoke(messages, config=config)
            assert isinstance(result, dict)  # include_raw=True: {"raw": message, "parsed": ..., "parsing_error": ...}
            raw = result["raw"]
        else:
            raw = await model.ainvoke(messages, config=config)
    cache = overall(seen)
    tokens_in, tokens_out = (0, 0) if cache == "hit" else _usage(raw)
    return ModelReply(payload=_payload_of(raw), tokens_in=tokens_in, tokens_out=tokens_out, cache=cache)
