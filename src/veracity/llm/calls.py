"""One call to a chat model: ask it for a structured payload (the call's time limit is `stalls`'s).

The raw payload is returned unvalidated: validation belongs to the gate nodes, which
send the exact error back to the model when it fails.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage
from pydantic import BaseModel

from veracity.cache_outcomes import CacheOutcome, observe_cache, overall
from veracity.context import StructuredOutput
from veracity.contracts import StructuredMethod

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.runnables import RunnableConfig


@dataclass(frozen=True)
class ModelReply:
    """A model's answer: the payload to validate, the tokens it cost, and how it was obtained."""

    payload: Any
    tokens_in: int
    tokens_out: int
    cache: CacheOutcome | None = None
    """'hit' (answered from the cache, costing no tokens), 'miss', or None when no cache was asked."""
    truncated: bool = False
    """The answer stopped at its output-token limit, so it is most likely incomplete."""
    structured: StructuredMethod | None = None
    """How the answer was asked for (None: not by a chat model)."""
    note: str | None = None
    """Why the structured request was replaced by a plain one (the server refused it), or None."""
    logprob: float | None = None
    """The mean log-probability of the answer's tokens, where the endpoint returned them (OpenAI-style
    ``logprobs``, e.g. a model made with ``logprobs=True``), else None."""


@functools.cache
def _json_schema(schema: type[BaseModel]) -> dict[str, Any]:
    return schema.model_json_schema()


def _supports_tools(model: BaseChatModel) -> bool:
    from langchain_core.language_models import BaseChatModel

    return type(model).bind_tools is not BaseChatModel.bind_tools


def _usage(message: BaseMessage | None) -> tuple[int, int]:
    usage = getattr(message, "usage_metadata", None) or {}
    return int(usage.get("input_tokens", 0) or 0), int(usage.get("output_tokens", 0) or 0)


def _payload_of(message: BaseMessage | None) -> Any:
    if isinstance(message, AIMessage) and message.tool_calls:
        return message.tool_calls[0].get("args")
    return message.content if message is not None else None


def _mean_logprob(message: BaseMessage | None) -> float | None:
    """The mean token log-probability in an OpenAI-style ``logprobs`` of the message's metadata, or None."""
    metadata = getattr(message, "response_metadata", None) or {}
    logprobs = metadata.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    values = [item["logprob"] for item in content or () if isinstance(item, dict)
              and isinstance(item.get("logprob"), int | float)]
    return sum(values) / len(values) if values else None


def _stopped_at_limit(message: BaseMessage | None) -> bool:
    """Whether the provider says the answer ended at its token limit (OpenAI-style or Anthropic-style)."""
    metadata = getattr(message, "response_metadata", None) or {}
    return metadata.get("finish_reason") == "length" or metadata.get("stop_reason") == "max_tokens"


def _cut_off(exc: BaseException) -> BaseMessage | None:
    """The partial answer inside a client's "length limit reached" error, or None for any other error.

    The OpenAI SDK refuses to parse a schema-bound answer that stopped at its limit and raises
    with the completion attached; it is turned back into a message so the gate can say why.
    """
    completion = getattr(exc, "completion", None)
    if type(exc).__name__ != "LengthFinishReasonError" or completion is None:
        return None
    usage = getattr(completion, "usage", None)
    choices = getattr(completion, "choices", None) or []
    content = getattr(getattr(choices[0], "message", None), "content", None) if choices else None
    return AIMessage(
        content=content or "",
        response_metadata={"finish_reason": "length"},
        usage_metadata={
            "input_tokens": int(getattr(usage, "prompt_tokens", 0) or 0),
            "output_tokens": int(getattr(usage, "completion_tokens", 0) or 0),
            "total_tokens": int(getattr(usage, "total_tokens", 0) or 0),
        },
    )


def _refused_structured_output(exc: BaseException) -> bool:
    """Whether `exc` says the server does not take the structured-output request.

    That is a 400/422 naming the schema, the response format or tools, or a client that cannot
    build the request; any other failure is left to the gate as a failed attempt.
    """
    if isinstance(exc, NotImplementedError):
        return True
    status = getattr(exc, "status_code", None) or getattr(getattr(exc, "response", None), "status_code", None)
    if status not in (400, 422):
        return False
    text = str(exc).lower()
    return any(word in text for word in ("response_format", "json_schema", "schema", "grammar", "tool"))


def _shortened(text: str, limit: int = 200) -> str:
    """`text` on one line, cut to `limit` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _method(model: BaseChatModel, asked: StructuredOutput) -> StructuredMethod:
    """The structured-output method to use for `asked` (see `StructuredOutput`).

    A model without tool calling only has the prompt.
    """
    from langchain_openai.chat_models.base import BaseChatOpenAI

    if asked == "prompt" or not _supports_tools(model):
        return "prompt"
    if asked == "auto":
        return "json_schema" if isinstance(model, BaseChatOpenAI) else "provider"
    return asked


async def _structured_call(
    model: BaseChatModel, messages: list[BaseMessage], schema: dict[str, Any], method: StructuredMethod,
    config: RunnableConfig,
) -> BaseMessage | None:
    kwargs: dict[str, Any] = {"include_raw": True}
    if method in ("json_schema", "tools"):
        kwargs["method"] = "json_schema" if method == "json_schema" else "function_calling"
    runnable = model.with_structured_output(schema, **kwargs)
    try:
        result = await runnable.ainvoke(messages, config=config)
    except Exception as exc:
        partial = _cut_off(exc)
        if partial is None:
            raise
        return partial
    assert isinstance(result, dict)  # include_raw=True: {"raw": message, "parsed": ..., "parsing_error": ...}
    raw: BaseMessage | None = result["raw"]
    return raw


async def ask_structured(
    model: BaseChatModel, messages: list[BaseMessage], schema: type[BaseModel], *, run_name: str | None = None,
    structured_output: StructuredOutput = "auto", request_schema: dict[str, Any] | None = None,
) -> ModelReply:
    """Ask `model` for an answer shaped like `schema` and return the unvalidated payload.

    `structured_output` picks how (see `StructuredOutput`); a model without tool calling is asked
    through the prompt alone. When the server refuses the structured request (llama.cpp builds
    without schema support, some proxies), the same call is made as a plain one and the reply says
    so in `note`. Either way the payload is the raw tool-call arguments or message text, and the
    gates validate it. The model carries its output cap (`Resources.chat_model` sets it); an answer
    that stopped at the cap comes back with `truncated` set. `request_schema` replaces `schema`'s
    JSON schema in the request (a bounded one, see `request_schema`). `run_name` names the call
    in LangSmith traces.

    The schema is passed as a plain JSON-schema dict, not the pydantic class: given a
    class, some clients (the OpenAI SDK's `parse`) validate inside the call and raise,
    which would hide the reply and its token usage from the gate.
    """
    config: RunnableConfig = {"run_name": run_name or schema.__name__, "tags": [f"veracity:{schema.__name__}"]}
    method = _method(model, structured_output)
    note: str | None = None
    raw: BaseMessage | None
    with observe_cache() as seen:
        if method == "prompt":
            raw = await model.ainvoke(messages, config=config)
        else:
            try:
                raw = await _structured_call(model, messages, request_schema or _json_schema(schema), method,
                                             config)
            except Exception as exc:
                if not _refused_structured_output(exc):
                    raise
                note = (f"the server refused structured output ({_shortened(str(exc))}); asked for JSON in the "
                        "prompt instead")
                method = "prompt"
                raw = await model.ainvoke(messages, config=config)
    cache = overall(seen)
    tokens_in, tokens_out = (0, 0) if cache == "hit" else _usage(raw)
    return ModelReply(
        payload=_payload_of(raw), tokens_in=tokens_in, tokens_out=tokens_out, cache=cache,
        truncated=_stopped_at_limit(raw), structured=method, note=note,
        logprob=_mean_logprob(raw),
    )

