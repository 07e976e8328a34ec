"""Chat-model answers kept on disk, through LangChain's cache interface (a model's `cache=` setting).

LangChain builds the key: the model's identity and parameters (name, temperature, the tools or
response format bound for structured output) and the exact messages. The same question to the
same model is answered from the file; anything different goes to the model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from langchain_core.caches import RETURN_VAL_TYPE, BaseCache
from langchain_core.messages import message_to_dict, messages_from_dict
from langchain_core.outputs import ChatGeneration, Generation

from veracity.cache.outcomes import note
from veracity.cache.store import MODEL_NAMESPACE, CacheStore, digest


def _encode(generations: Sequence[Generation]) -> list[dict[str, Any]]:
    encoded: list[dict[str, Any]] = []
    for generation in generations:
        if isinstance(generation, ChatGeneration):
            encoded.append({"message": message_to_dict(generation.message), "info": generation.generation_info})
        else:
            encoded.append({"text": generation.text, "info": generation.generation_info})
    return encoded


def _decode(encoded: list[dict[str, Any]]) -> list[Generation]:
    generations: list[Generation] = []
    for item in encoded:
        if "message" in item:
            (message,) = messages_from_dict([item["message"]])
            generations.append(ChatGeneration(message=message, generation_info=item.get("info")))
        else:
            generations.append(Generation(text=item["text"], generation_info=item.get("info")))
    return generations


class ModelCallCache(BaseCache):
    """A LangChain `BaseCache` over the veracity cache file; lookups note a hit or a miss."""

    def __init__(self, store: CacheStore) -> None:
        self.store = store

    @staticmethod
    def _key(prompt: str, llm_string: str) -> str:
        return digest(llm_string, prompt)

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        """The answer kept for this prompt and model, or None."""
        stored = self.store.get(MODEL_NAMESPACE, self._key(prompt, llm_string))
        generations = None
        if isinstance(stored, list):
            try:
                generations = _decode(stored)
            except (KeyError, TypeError, ValueError):  # an entry written by another version: a miss
                generations = None
        note("hit" if generations else "miss")
        return generations or None  # LangChain takes any list, even an empty one, for a hit

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        """Keep the model's answer (model answers do not expire; `veracity cache clear` removes them)."""
        self.store.set(MODEL_NAMESPACE, self._key(prompt, llm_string), _encode(return_val), None)

    async def alookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        """`lookup` in a worker thread."""
        return await asyncio.to_thread(self.lookup, prompt, llm_string)

    async def aupdate(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        """`update` in a worker thread."""
        await asyncio.to_thread(self.update, prompt, llm_string, return_val)

    def clear(self, **kwargs: Any) -> None:
        """Remove every kept model answer."""
        self.store.clear_namespace(MODEL_NAMESPACE)
