"""Chat models from settings: a 'provider:model' string made into a model whose responses are limited."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from veracity.errors import ConfigurationError

if TYPE_CHECKING:
    from langchain_core.caches import BaseCache
    from langchain_core.language_models import BaseChatModel

CLIENT_RETRIES = 0
"""Retries the OpenAI client makes within one model call: none, since each gate attempt is already one try
(the client's default, 2, would make every failed attempt up to three requests)."""


def init_model(spec: str, *, temperature: float = 0.0, cache: BaseCache | bool | None = None,
               **settings: Any) -> BaseChatModel:
    """Create a chat model from a 'provider:model' string, with a clear error when unconfigured.

    An OpenAI-compatible server is reached by setting `OPENAI_BASE_URL`; local servers often
    need no real key, so any non-empty `OPENAI_API_KEY` will do there. `cache` is LangChain's
    model setting: a cache object, False for none, None for LangChain's global one.

    A model on the OpenAI client (OpenAI, Azure, and the servers that speak its API) gets HTTP
    clients that abort any response longer than its request's output cap allows (see
    `response_limit`), so a server that ignores the cap cannot fill memory. The output cap itself
    is set per call by `Resources.chat_model`. Such a model makes no retries of its own
    (`CLIENT_RETRIES`) unless `settings` name `max_retries`: the gates retry a failed call.

    `settings` go to the model class as they are (e.g. `max_retries`, `base_url`).
    """
    from langchain.chat_models import init_chat_model
    from langchain_openai.chat_models.base import BaseChatOpenAI

    from veracity.llm.response_limit import limited_async_client, limited_client

    provider = spec.split(":", 1)[0] if ":" in spec else ""
    if provider == "openai" and not os.environ.get("OPENAI_API_KEY"):
        raise ConfigurationError(
            f"model {spec!r} needs OPENAI_API_KEY. Set it (for an OpenAI-compatible local server, "
            "set OPENAI_BASE_URL too, and any non-empty key), or choose another model with "
            "--model provider:name."
        )
    try:
        model: BaseChatModel = init_chat_model(spec, temperature=temperature, cache=cache, **settings)
        if isinstance(model, BaseChatOpenAI):  # made again, now with clients that limit each response
            proxy = {"proxy": model.openai_proxy} if model.openai_proxy else {}
            # `http_socket_options` is for the clients langchain-openai would build; with both clients
            # given it has nothing to apply to, and left unset it warns that proxies are ignored (they are not)
            limited = {"max_retries": CLIENT_RETRIES, **settings, "openai_proxy": None, "http_socket_options": (),
                       "http_client": limited_client(**proxy), "http_async_client": limited_async_client(**proxy)}
            model = init_chat_model(spec, temperature=temperature, cache=cache, **limited)
    except Exception as exc:  # provider packages raise many kinds of errors here
        raise ConfigurationError(f"cannot create chat model {spec!r}: {exc}") from exc
    return model
