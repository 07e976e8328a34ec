"""Chat-model answers kept on disk, through LangChain's cache interface (a model's `cache=` setting).

LangChain builds the key: the model's identity and parameters (name, temperature, the tools or
response format bound for structured output) and the exact messages. The same question to the
same model is answered from the file; anything different goes to the model. Answers are kept as
plain JSON (`StoredGeneration`), and rebuilt only into LangChain's own message classes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.caches import RETURN_VAL_TYPE, BaseCache
from langchain_core.messages import message_to_dict, messages_from_dict
from langchain_core.outputs import ChatGeneration, Generation

from veracity.cache.entries import MODEL_ANSWER, StoredGeneration, StoredMessage
from veracity.cache.store import MODEL_NAMESPACE, CacheStore, digest
from veracity.cache_outcomes import note

log = logging.getLogger("veracity.cache")


def _encode(generations: Sequence[Generation]) -> list[StoredGeneration]:
    encoded: list[StoredGeneration] = []
    for generation in generations:
        if isinstance(generation, ChatGeneration):
            message = StoredMessage.model_validate(message_to_dict(generation.message))
            encoded.append(StoredGeneration(message=message, info=generation.generation_info))
        else:
            encoded.append(StoredGeneration(text=generation.text, info=generation.generation_info))
    return encoded


def _decode(encoded: list[StoredGeneration]) -> list[Generation]:
    generations: list[Generation] = []
    for item in encoded:
        if item.message is not None:
            (message,) = messages_from_dict([item.message.model_dump()])
            generations.append(ChatGeneration(message=message, generation_info=item.info))
        else:
            generations.append(Generation(text=item.text or "", generation_info=item.info))
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
        key = self._key(prompt, llm_string)
        stored = self.store.get(MODEL_NAMESPACE, key, MODEL_ANSWER)
        generations = None
        if stored is not None:
            try:
                generations = _decode(stored)
            except (KeyError, TypeError, ValueError) as exc:  # e.g. an unknown message type: a miss
                log.warning("cache entry %s (model) in %s holds no usable model answer (%s); asking afresh "
                            "instead", key, self.store.path, exc)
        note("hit" if generations else "miss")
        return generations or None  # LangChain takes any list, even an empty one, for a hit

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        """Keep the model's answer (model answers do not expire; `veracity cache clear` removes them)."""
        self.store.set(MODEL_NAMESPACE, self._key(prompt, llm_string), _encode(return_val), MODEL_ANSWER, None)

    async def alookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        """`lookup` in a worker thread."""
        return await asyncio.to_thread(self.lookup, prompt, llm_string)

    async def aupdate(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        """`update` in a worker thread."""
        await asyncio.to_thread(self.update, prompt, llm_string, return_val)

    def clear(self, **kwargs: Any) -> None:
        """Remove every kept model answer."""
        self.store.clear_namespace(MODEL_NAMESPACE)
