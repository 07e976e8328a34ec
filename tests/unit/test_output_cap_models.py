"""Every model the steps use carries an output cap, and a created model's HTTP clients limit each response."""

from __future__ import annotations

import inspect

import pytest
from langchain_openai import ChatOpenAI

from veracity.context import Context
from veracity.llm.response_limit import ACCEPT_ENCODING
from veracity.resources import Resources


@pytest.fixture
def openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    for name in ("OPENAI_PROXY", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


def test_asking_for_the_model_needs_its_output_cap() -> None:
    parameter = inspect.signature(Resources.chat_model).parameters["max_tokens"]
    assert parameter.kind is inspect.Parameter.KEYWORD_ONLY and parameter.default is inspect.Parameter.empty


def test_a_bound_model_without_a_limit_gets_the_steps_cap() -> None:
    resources = Resources(model=ChatOpenAI(model="m", api_key="k"))
    model = resources.chat_model(Context(), max_tokens=300)
    assert model._get_request_payload([("user", "hi")])["max_completion_tokens"] == 300  # type: ignore[attr-defined]


@pytest.mark.usefixtures("openai_env")
def test_a_created_model_carries_the_cap_and_clients_that_limit_responses() -> None:
    resources = Resources(model="openai:gpt-4.1-mini")
    model = resources.chat_model(Context(cache=False), max_tokens=77)
    assert isinstance(model, ChatOpenAI)
    assert model._get_request_payload([("user", "hi")])["max_completion_tokens"] == 77
    for client in (model.http_client, model.http_async_client):
        assert client is not None and client.event_hooks["response"]
        assert client.headers["accept-encoding"] == ACCEPT_ENCODING
    # The created model is made once; each cap is a copy sharing its clients.
    other = resources.chat_model(Context(cache=False), max_tokens=500)
    assert isinstance(other, ChatOpenAI) and other.max_tokens == 500
    assert other.root_async_client is model.root_async_client
