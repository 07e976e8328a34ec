"""The model endpoint probe: what counts as answering, how long a result is kept, and which models are probed.

No sockets: the probe's HTTP goes to `httpx.MockTransport`, and `Resources` gets a fake prober.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

import httpx
import pytest
from langchain_core.caches import InMemoryCache
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.load import dumps
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration

from veracity.context import Context
from veracity.llm import probe
from veracity.llm.models import CLIENT_RETRIES, init_model
from veracity.llm.probe import EndpointProbes, ModelUnreachable, model_endpoint, probe_endpoint, unreachable
from veracity.resources import Resources
from veracity.run.checker import Checker
from veracity.run_scope import RunScope

BASE_URL = "http://models.internal:8080/v1"


def answering(status: int, seen: list[httpx.Request] | None = None) -> httpx.MockTransport:
    """A transport that answers every request with `status`, keeping the requests in `seen`."""

    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request)
        return httpx.Response(status, json={"data": []})

    return httpx.MockTransport(handler)


def failing(error: Callable[[httpx.Request], Exception]) -> httpx.MockTransport:
    """A transport whose every request raises `error(request)`."""

    def handler(request: httpx.Request) -> httpx.Response:
        raise error(request)

    return httpx.MockTransport(handler)


@pytest.mark.parametrize("status", [200, 401, 404, 500])
def test_any_http_answer_counts_as_alive(status: int) -> None:
    seen: list[httpx.Request] = []
    assert probe_endpoint(BASE_URL, transport=answering(status, seen)) is None
    [request] = seen
    assert request.method == "GET" and str(request.url) == f"{BASE_URL}/models"


def test_a_trailing_slash_is_not_doubled() -> None:
    seen: list[httpx.Request] = []
    probe_endpoint(BASE_URL + "/", transport=answering(200, seen))
    assert str(seen[0].url) == f"{BASE_URL}/models"


@pytest.mark.parametrize("error", [
    lambda request: httpx.ReadTimeout("timed out", request=request),
    lambda request: httpx.ConnectTimeout("timed out", request=request),
])
def test_no_answer_in_time_is_a_problem_naming_the_address(error: Callable[[httpx.Request], Exception]) -> None:
    problem = probe_endpoint(BASE_URL, timeout=5, transport=failing(error))
    assert problem is not None
    assert BASE_URL in problem and "did not answer within 5 s" in problem


@pytest.mark.parametrize(("error", "shown"), [
    (lambda request: httpx.ConnectError("[Errno 111] Connection refused", request=request), "Connection refused"),
    (lambda request: httpx.ConnectError("[Errno -2] Name or service not known", request=request),
     "Name or service not known"),
    (lambda request: httpx.RemoteProtocolError("Server disconnected", request=request), "Server disconnected"),
])
def test_an_endpoint_that_cannot_be_reached_is_a_problem_naming_the_address(
    error: Callable[[httpx.Request], Exception], shown: str,
) -> None:
    problem = probe_endpoint(BASE_URL, transport=failing(error))
    assert problem is not None
    assert BASE_URL in problem and "cannot be reached" in problem and shown in problem


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_result_is_reused_for_the_same_url_until_it_is_old() -> None:
    asked: list[str] = []
    clock = Clock()

    def prober(base_url: str) -> str | None:
        asked.append(base_url)
        return "down" if "dead" in base_url else None

    probes = EndpointProbes(prober, memory=30, clock=clock)
    assert probes.problem("http://dead/v1") == "down"
    assert probes.problem("http://live/v1") is None
    clock.now += 29
    assert probes.problem("http://dead/v1") == "down"
    assert probes.problem("http://live/v1") is None
    assert asked == ["http://dead/v1", "http://live/v1"]
    clock.now += 2
    probes.problem("http://dead/v1")
    assert asked == ["http://dead/v1", "http://live/v1", "http://dead/v1"]
    probes.forget()
    probes.problem("http://dead/v1")
    assert len(asked) == 4


@pytest.fixture
def openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    monkeypatch.setenv("OPENAI_BASE_URL", BASE_URL)
    for name in ("OPENAI_PROXY", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def probed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Replace the process's probes with a fake: every endpoint is dead; the URLs asked are listed."""
    asked: list[str] = []

    def prober(base_url: str) -> str | None:
        asked.append(base_url)
        return f"the model endpoint {base_url} is not answering"

    monkeypatch.setattr(probe, "ENDPOINT_PROBES", EndpointProbes(prober))
    return asked


@pytest.mark.usefixtures("openai_env")
def test_a_created_openai_model_makes_no_retries_of_its_own_unless_asked() -> None:
    model = init_model("openai:gpt-4.1-mini")
    assert CLIENT_RETRIES == 0
    assert model.max_retries == 0  # type: ignore[attr-defined]
    assert model.root_async_client.max_retries == 0  # type: ignore[attr-defined]
    asked = init_model("openai:gpt-4.1-mini", max_retries=4)
    assert asked.root_async_client.max_retries == 4  # type: ignore[attr-defined]


@pytest.mark.usefixtures("openai_env")
def test_a_proxy_variable_gets_no_warning_that_proxies_are_ignored(monkeypatch: pytest.MonkeyPatch,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")  # before: the first stderr line was this warning
    monkeypatch.setattr("langchain_openai.chat_models._client_utils._proxy_env_warning_emitted", False)
    with caplog.at_level("WARNING"):
        model = init_model("openai:gpt-4.1-mini")
    assert not [record for record in caplog.records if "proxy" in record.getMessage()]
    assert model.http_async_client is not None and model.http_client is not None  # type: ignore[attr-defined]


@pytest.mark.usefixtures("openai_env")
def test_the_probed_address_is_the_openai_clients_base_url() -> None:
    assert model_endpoint(init_model("openai:gpt-4.1-mini")) == BASE_URL
    assert model_endpoint(GenericFakeChatModel(messages=iter([]))) is None


@pytest.mark.usefixtures("openai_env")
async def test_a_silent_endpoint_fails_each_call_at_once_with_the_address(probed: list[str]) -> None:
    resources, run = Resources(), RunScope()
    context = Context(model="openai:gpt-4.1-mini", search="source", source_text="x", cache=False)
    resources.preflight(context, run)
    assert probed == [BASE_URL]  # extraction and judge share the model: one probe
    model = resources.chat_model(context, max_tokens=50, step="extract", run=run)
    with pytest.raises(ModelUnreachable, match=BASE_URL):
        await model.ainvoke("hello")
    other_run = RunScope()
    assert resources.chat_model(context, max_tokens=50, run=other_run) is not model  # no preflight: no stand-in


@pytest.mark.usefixtures("openai_env")
async def test_an_answering_endpoint_keeps_the_real_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(probe, "ENDPOINT_PROBES", EndpointProbes(lambda base_url: None))
    resources, run = Resources(), RunScope()
    context = Context(model="openai:gpt-4.1-mini", search="source", source_text="x", cache=False)
    resources.preflight(context, run)
    model = resources.chat_model(context, max_tokens=50, step="extract", run=run)
    assert model.root_async_client.base_url is not None  # type: ignore[attr-defined]
    assert not isinstance(model.root_async_client, probe._SilentEndpointClient)  # type: ignore[attr-defined]


@pytest.mark.usefixtures("openai_env")
async def test_answers_in_the_cache_are_still_served_for_a_silent_endpoint() -> None:
    cache = InMemoryCache()
    model = init_model("openai:gpt-4.1-mini", cache=cache)
    messages = [HumanMessage("hello")]
    cache.update(dumps(messages), model._get_llm_string(), [ChatGeneration(message=AIMessage("kept"))])
    stand_in = unreachable(model, "down")
    assert (await stand_in.ainvoke(messages)).content == "kept"
    with pytest.raises(ModelUnreachable, match="down"):
        await stand_in.ainvoke([HumanMessage("not kept")])


def test_offline_runs_and_bound_models_are_not_probed(probed: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    Resources().preflight(Context(model="offline", search="source", source_text="x"))
    bound = GenericFakeChatModel(messages=iter([]))
    Resources(model=bound).preflight(Context(search="source", source_text="x"))
    assert probed == []


@pytest.mark.usefixtures("openai_env")
def test_only_the_step_on_the_openai_client_is_probed(probed: list[str]) -> None:
    resources, run = Resources(), RunScope()
    context = Context(model="openai:gpt-4.1-mini", extract_model="offline", search="source", source_text="x",
                      cache=False)
    resources.preflight(context, run)
    assert probed == [BASE_URL]
    with pytest.raises(ModelUnreachable):
        resources.chat_model(context, max_tokens=50, step="judge", run=run).invoke("hello")


@pytest.mark.usefixtures("openai_env")
def test_configuration_errors_come_before_the_probe(probed: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from veracity.errors import ConfigurationError

    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    with pytest.raises(ConfigurationError):
        Resources().preflight(Context(model="openai:gpt-4.1-mini", search="web"))
    assert probed == []


@pytest.mark.usefixtures("openai_env")
async def test_a_slow_probe_does_not_hold_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    probing, probed = threading.Event(), threading.Event()

    def slow_dead_prober(base_url: str) -> str | None:
        probing.set()
        time.sleep(0.5)  # a probe waiting on a silent endpoint blocks its thread
        probed.set()
        return f"the model endpoint {base_url} is not answering"

    monkeypatch.setattr(probe, "ENDPOINT_PROBES", EndpointProbes(slow_dead_prober))
    ticks_while_probing = 0

    async def other_request() -> None:  # another check a server is serving meanwhile
        nonlocal ticks_while_probing
        assert await asyncio.to_thread(probing.wait, 5)
        while not probed.is_set():
            await asyncio.sleep(0.01)
            ticks_while_probing += 1

    checker = Checker(model="openai:gpt-4.1-mini", source_text="The shop opens at nine.", cache=False)
    report, _ = await asyncio.gather(checker.acheck("The shop opens at nine."), other_request())
    assert ticks_while_probing >= 10  # the loop kept running: at most 1 when the probe ran on it
    assert report.failures and all(BASE_URL in failure.model_dump_json() for failure in report.failures)
