"""Every request the real OpenAI client sends carries its output cap, on every path that asks a model.

The loopback fake OpenAI server records each request body; a check in LLM mode, each way of
asking for structured output, the plain retry after a refused schema, and the answer that
`POST /analyze` asks the model for are all looked at.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.app_server import serving as serving_app
from tests.integration.conftest import FakeOpenAI, RecordedRequest, ScriptedServer, serving
from tests.integration.test_real_clients import (  # noqa: F401 (scripted is a fixture)
    MODEL,
    TEXT,
    run_check,
    scripted,
)
from veracity.context import Context
from veracity.resources import Resources
from veracity.server.app import ANSWER_TOKENS, create_app

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("scripted")]

QUERY = "Who designed the Sydney Opera House, and when did it open?"


def output_cap(request: RecordedRequest) -> Any:
    """The output cap a request body names, under either of the names OpenAI-compatible servers take."""
    body = request.body
    return body.get("max_completion_tokens", body.get("max_tokens"))


def assert_every_request_capped(requests: list[RecordedRequest]) -> None:
    assert requests, "no model request was made"
    uncapped = [request.body for request in requests if not (isinstance(output_cap(request), int)
                                                             and output_cap(request) > 0)]
    assert uncapped == [], f"{len(uncapped)} of {len(requests)} requests carry no output cap"


@pytest.mark.parametrize("structured_output", ["auto", "json_schema", "tools", "prompt"])
def test_every_request_of_a_check_carries_its_cap(fake_openai: FakeOpenAI, structured_output: str) -> None:
    report = run_check(structured_output=structured_output)

    assert report.ok, report.evaluation.issues
    assert len(fake_openai.requests) == 3  # one extraction, two judge calls
    assert_every_request_capped(fake_openai.requests)


def test_the_plain_request_after_a_refused_schema_carries_its_cap(fake_openai: FakeOpenAI) -> None:
    fake_openai.refuse_schema = True

    report = run_check()

    assert report.ok, report.evaluation.issues
    assert any("response_format" not in request.body for request in fake_openai.requests)
    assert_every_request_capped(fake_openai.requests)


def test_the_answer_analyze_asks_the_model_for_carries_its_cap(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    scripted_reply = fake_openai._reply_for

    def reply(prompt: str) -> Any:  # the query is answered with the text the rest of the script expects
        return TEXT if prompt == QUERY else scripted_reply(prompt)

    monkeypatch.setattr(fake_openai, "_reply_for", reply)
    with serving_app(create_app(model=f"openai:{MODEL}", source_text=TEXT, api_key="", cache=False)) as url:
        response = httpx.post(f"{url}/analyze", json={"query": QUERY}, timeout=60)

    assert response.status_code == 200, response.text
    assert response.json()["answer"] == TEXT
    [asked] = [request for request in fake_openai.requests if FakeOpenAI._prompt(request.body) == QUERY]
    assert output_cap(asked) == ANSWER_TOKENS
    assert len(fake_openai.requests) > 1  # the answer was then checked, by capped requests too
    assert_every_request_capped(fake_openai.requests)


def test_a_proxy_setting_still_reaches_the_limited_client(monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = ScriptedServer({})  # records what it is sent and answers 404
    monkeypatch.setenv("OPENAI_BASE_URL", "http://models.invalid/v1")
    with serving(proxy):
        monkeypatch.setenv("OPENAI_PROXY", proxy.base_url)
        model = Resources(model=f"openai:{MODEL}").chat_model(Context(cache=False), max_tokens=50)
        with pytest.raises(Exception, match="404"):
            model.invoke("hi")
    [request] = proxy.requests
    assert request.path == "http://models.invalid/v1/chat/completions"
    assert output_cap(request) == 50
