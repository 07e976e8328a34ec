"""The server's settings are checked as `Context` checks them (issue 37, item 5): a request's own settings
(`search`, `source_text`) get a 422 in Context's words, on a real server on loopback; the server's settings
are refused when the app is made, as Python and `veracity serve` refuse them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.app_server import serving
from veracity.context import Context
from veracity.errors import SettingError
from veracity.server.app import create_app

POLICY = "The customer may return a package within 14 days of the delivery date."
TEXT = "You can return the package within 14 days of the delivery date."
ROUTES = ("/factcheck/invoke", "/factcheck/audit", "/factcheck/stream")


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serving(create_app(model="offline", api_key="", rate_limit="1000/minute")) as base:
        yield base


def refusal(name: str, value: Any) -> str:
    with pytest.raises(SettingError) as raised:
        Context(**{name: value})
    return str(raised.value)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(("name", "value"), [
    ("search", "bogus"), ("search", "WEB"), ("search", ""), ("search", 5), ("source_text", 5),
    ("source_text", ["a", "list"]),
])
def test_a_bad_request_setting_is_a_422_in_contexts_words(url: str, route: str, name: str, value: Any) -> None:
    response = httpx.post(url + route, json={"input": {"text": TEXT, name: value}}, timeout=60)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error.startswith("invalid request: ") and error.endswith(refusal(name, value))


def test_a_bad_setting_in_a_batch_names_the_input(url: str) -> None:
    inputs = [{"text": TEXT}, {"text": TEXT, "search": "bogus"}]
    response = httpx.post(url + "/factcheck/batch", json={"inputs": inputs}, timeout=60)
    assert response.status_code == 422
    assert response.json()["error"] == f"invalid request: body.inputs.1.search: {refusal('search', 'bogus')}"


def test_good_request_settings_are_taken(url: str) -> None:
    response = httpx.post(url + "/factcheck/invoke", json={"input": {"text": TEXT, "source_text": POLICY,
                                                                     "search": "source"}}, timeout=60)
    assert response.status_code == 200, response.text
    assert [verdict["label"] for verdict in response.json()["output"]["verdicts"]] == ["supported"]


@pytest.mark.parametrize(("name", "value"), [
    ("search_attempts", 0), ("model_timeout", float("nan")), ("search_backoff", float("inf")),
    ("page_allowed_networks", "intranet"), ("temperature", float("nan")),
])
def test_a_server_with_a_bad_setting_is_not_made(name: str, value: Any) -> None:
    with pytest.raises(SettingError) as raised:
        create_app(model="offline", api_key="", **{name: value})
    assert str(raised.value) == refusal(name, value)
