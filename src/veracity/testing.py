"""Scripted stand-ins for a chat model and an evidence backend, for tests and simulations.

`ScriptedChatModel` answers from a function of the prompt, so parallel branches get the
right reply whatever order they run in. It can simulate latency and reports token usage.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr

from veracity.contracts import SearchHit

Reply = str | dict[str, Any] | AIMessage | BaseException
"""What a responder returns: text, tool-call arguments, a message, or an exception to raise."""

_ids = itertools.count(1)


def prompt_text(messages: Sequence[BaseMessage]) -> str:
    """All message contents of a prompt joined into one string."""
    return "\n".join(str(m.content) for m in messages)


def count_tokens(text: str) -> int:
    """A rough token count (words), used for simulated usage metadata."""
    return len(text.split())


class ScriptedChatModel(BaseChatModel):
    """A chat model whose replies come from `responder(messages)`.

    A `dict` reply becomes a tool call (the structured-output path); a `str` becomes message
    text; an exception is raised. `first_token_delay` and `token_delay` simulate latency.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    responder: Callable[[list[BaseMessage]], Reply]
    first_token_delay: float = 0.0
    token_delay: float = 0.0
    calls: list[list[BaseMessage]] = Field(default_factory=list, repr=False)  # LangChain logs repr() per call
    _tool_name: str = PrivateAttr(default="output")

    @property
    def _llm_type(self) -> str:
        return "veracity-scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        """Accept tools so structured output works; replies are scripted anyway.

        Returns a copy that names its tool calls after the first tool; the copy shares `calls`.
        """
        bound = self.model_copy()
        if tools:
            tool = tools[0]
            if isinstance(tool, dict):
                bound._tool_name = str(tool.get("title") or tool.get("name") or "output")
            else:
                bound._tool_name = str(getattr(tool, "__name__", None) or getattr(tool, "name", "output"))
        return bound

    def calls_matching(self, needle: str) -> int:
        """How many prompts so far contained `needle`."""
        return sum(needle in prompt_text(call) for call in self.calls)

    def _reply(self, messages: list[BaseMessage]) -> tuple[AIMessage, float]:
        self.calls.append(list(messages))
        reply = self.responder(messages)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, dict):
            call = {"name": self._tool_name, "args": reply, "id": f"call_{next(_ids)}"}
            message = AIMessage(content="", tool_calls=[call])
            out_text = json.dumps(reply)
        elif isinstance(reply, AIMessage):
            message, out_text = reply, str(reply.content)
        else:
            message, out_text = AIMessage(content=str(reply)), str(reply)
        tokens_in, tokens_out = count_tokens(prompt_text(messages)), count_tokens(out_text)
        if message.usage_metadata is None:
            message.usage_metadata = {
                "input_tokens": tokens_in, "output_tokens": tokens_out, "total_tokens": tokens_in + tokens_out,
            }
        return message, self.first_token_delay + self.token_delay * tokens_out

    def _generate(
        self, messages: list[BaseMessage], stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any,
    ) -> ChatResult:
        message, delay = self._reply(messages)
        if delay:
            time.sleep(delay)
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(
        self, messages: list[BaseMessage], stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None, **kwargs: Any,
    ) -> ChatResult:
        message, delay = self._reply(messages)
        if delay:
            await asyncio.sleep(delay)
        return ChatResult(generations=[ChatGeneration(message=message)])


class ScriptedBackend:
    """An evidence backend whose hits come from `responder(query)` (hits, or an exception to raise)."""

    def __init__(
        self, responder: Callable[[str], list[SearchHit] | BaseException], *, name: str = "fake", delay: float = 0.0,
    ) -> None:
        self.responder = responder
        self.name = name
        self.delay = delay
        self.queries: Counter[str] = Counter()

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """Return the scripted hits for `query` after the simulated delay."""
        self.queries[query] += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        result = self.responder(query)
        if isinstance(result, BaseException):
            raise result
        return result[:limit]
